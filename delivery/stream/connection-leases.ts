// Spec "Limits": at most 10 WebSocket connections per API key, across every API instance. Each live
// connection is a row of stream_connections (sql/migrations/0011) holding a lease its instance renews;
// a crashed instance's rows stop counting when their lease runs out (docs/events-and-delivery.md "Connection limit").
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../platform/log.ts';
import { inTransaction, type Pool } from '../../platform/postgres.ts';

/** Spec "Connection rules" 3. */
export const CONNECTIONS_PER_CREDENTIAL = 10;

export type Acquired = { ok: true; id: string } | { ok: false; inUse: number };

export class ConnectionLeases {
  readonly #live = new Set<string>();
  /** Rows of ended connections whose delete failed: the next renewal deletes them. */
  readonly #unreleased = new Set<string>();
  #renewal: NodeJS.Timeout | undefined;
  #renewing: Promise<void> | undefined;

  constructor(
    private readonly pool: Pool,
    readonly instanceId: string,
    private readonly leaseSeconds: number,
    private readonly log: Logger,
    private readonly limit = CONNECTIONS_PER_CREDENTIAL,
  ) {}

  /** Renews this instance's leases every third of their length (wall clock: the lease is the database's time). */
  start(): void {
    this.#renewal ??= setInterval(() => void this.renew(), (this.leaseSeconds * 1000) / 3);
    this.#renewal.unref();
  }

  /**
   * Takes one of the credential's connections, or says how many are in use. Acquisitions for one credential
   * are serialized by a transaction-scoped advisory lock, so two instances cannot both take the tenth.
   */
  async acquire(credentialId: string): Promise<Acquired> {
    const id = `wsc_${randomUUID()}`;
    const result = await inTransaction(this.pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended('stream_connections:' || $1, 0))", [credentialId]);
      const { rows } = await client.query<{ in_use: number; taken: boolean }>(
        `WITH expired AS (DELETE FROM stream_connections WHERE credential_id = $1 AND lease_until < now()),
              live AS (SELECT count(*)::int AS n FROM stream_connections WHERE credential_id = $1 AND lease_until >= now()),
              taken AS (
                INSERT INTO stream_connections (id, credential_id, instance_id, lease_until)
                SELECT $2, $1, $3, now() + make_interval(secs => $4) FROM live WHERE live.n < $5
                RETURNING id)
         SELECT live.n AS in_use, EXISTS (SELECT 1 FROM taken) AS taken FROM live`,
        [credentialId, id, this.instanceId, this.leaseSeconds, this.limit],
      );
      return rows[0] as { in_use: number; taken: boolean };
    });
    if (!result.taken) return { ok: false, inUse: result.in_use };
    this.#live.add(id);
    return { ok: true, id };
  }

  /** The connection ended. Should the delete fail, the next renewal removes the row. */
  async release(id: string): Promise<void> {
    if (!this.#live.delete(id)) return;
    await this.pool.query('DELETE FROM stream_connections WHERE id = $1', [id]).catch((err) => {
      this.#unreleased.add(id);
      this.log.warn({ err }, 'stream connection lease not released; the next renewal removes it');
    });
  }

  /** Extends the leases of this instance's live connections, and deletes the rows of ended ones left behind. */
  renew(): Promise<void> {
    this.#renewing ??= (async () => {
      const unreleased = [...this.#unreleased];
      try {
        await this.pool.query('UPDATE stream_connections SET lease_until = now() + make_interval(secs => $2) WHERE instance_id = $1 AND id = ANY($3::text[])', [this.instanceId, this.leaseSeconds, [...this.#live]]);
        if (unreleased.length > 0) {
          await this.pool.query('DELETE FROM stream_connections WHERE id = ANY($1::text[])', [unreleased]);
          for (const id of unreleased) this.#unreleased.delete(id);
        }
      } catch (err) {
        this.log.warn({ err }, 'stream connection leases not renewed; they count until they run out');
      } finally {
        this.#renewing = undefined;
      }
    })();
    return this.#renewing;
  }

  /** Stops renewing and removes every row of this instance. */
  async stop(): Promise<void> {
    clearInterval(this.#renewal);
    await this.#renewing;
    this.#live.clear();
    this.#unreleased.clear();
    await this.pool.query('DELETE FROM stream_connections WHERE instance_id = $1', [this.instanceId]).catch((err) => this.log.warn({ err }, 'stream connection leases not removed; they run out by themselves'));
  }
}

// The system configuration in Postgres (sql/migrations/0021_system_config.sql): one document, replaced
// whole, every change kept with who made it. Readers that need it on every event hold a
// SystemConfigCache (system-config-cache.ts); a one-off reader (a validation) calls readSystemConfig.
import { isDeepStrictEqual } from 'node:util';
import { inTransaction, type Pool, type PoolClient } from '../../platform/postgres.ts';
import { DEFAULT_SYSTEM_CONFIG, type SystemConfig } from '../../schemas/system-config.ts';
import { namedWebhooks, systemConfigProblems, type ConfigProblem } from './system-config-rules.ts';
import { rulesNamingParties, rulesNamingGates } from './config-references.ts';
import { configWarnings, partyReach, receiverWebhookIds, type ConfigWarning, type PartyReach } from './party-receivers.ts';

export const SYSTEM_CONFIG_CHANGED_CHANNEL = 'pss_system_config_changed';

/** The stored document, its revision (0: never changed, the shipped defaults) and when it was stored. */
export interface StoredSystemConfig {
  config: SystemConfig;
  revision: number;
  updatedAt: Date | null;
}

/** The configuration in force: the stored document, or DEFAULT_SYSTEM_CONFIG when none was ever stored. */
export async function readSystemConfig(db: Pool | PoolClient): Promise<SystemConfig> {
  return (await readStoredSystemConfig(db)).config;
}

/**
 * readSystemConfig for a writer that validates rules against the configuration in its own transaction
 * (alert rules naming parties and gates): the configuration cannot change until it commits, so a PUT
 * cannot remove a party between the check and the write. Shares with other such writers.
 */
export async function readSystemConfigLocked(client: PoolClient): Promise<SystemConfig> {
  await client.query('LOCK TABLE system_config IN SHARE MODE');
  return readSystemConfig(client);
}

export async function readStoredSystemConfig(db: Pool | PoolClient): Promise<StoredSystemConfig> {
  const { rows } = await db.query<{ document: SystemConfig; revision: number; updated_at: Date }>(
    `SELECT document, revision, updated_at FROM system_config WHERE key = 'system'`,
  );
  const row = rows[0];
  return row === undefined ? { config: DEFAULT_SYSTEM_CONFIG, revision: 0, updatedAt: null } : { config: row.document, revision: row.revision, updatedAt: row.updated_at };
}

/** Who changes the configuration: an API credential (as an event's operator change records it) or `pss config set`. */
export interface ConfigAuthor {
  /** The API key id or OAuth access-token id; `cli` for the command line. */
  credentialId: string;
  /** The API key's name or the operator's username; for the command line, `cli:` and the OS user. */
  principal: string;
  kind: 'api_key' | 'oauth' | 'cli';
}

/** Stored (or unchanged), with what is worth knowing about it (party-receivers.ts); or refused with every problem. */
export type ReplaceOutcome = { stored: StoredSystemConfig; changed: boolean; warnings: ConfigWarning[]; problems?: undefined } | { problems: ConfigProblem[] };

/**
 * Validates the document against what is stored now (webhooks, the rules naming parties and gates) and
 * replaces the configuration, keeping the change (who, before, after) and notifying every cache, all in
 * one transaction. Writers take turns (the table lock), so each change's `before` is the previous `after`.
 * A document equal to the one in force writes nothing.
 */
export async function replaceSystemConfig(pool: Pool, config: SystemConfig, by: ConfigAuthor): Promise<ReplaceOutcome> {
  return inTransaction(pool, async (client) => {
    await client.query('LOCK TABLE system_config IN EXCLUSIVE MODE');
    const current = await readStoredSystemConfig(client);
    const partiesInUse = await rulesNamingParties(client);
    const problems = systemConfigProblems(config, {
      existingWebhooks: await existingWebhooks(client, namedWebhooks(config)),
      partiesInUse,
      gatesInUse: await rulesNamingGates(client),
    });
    if (problems.length > 0) return { problems };
    const warnings = configWarnings(partyReach(config, { activeWebhooks: await activeWebhooks(client, receiverWebhookIds(config)) }, partiesInUse));
    if (isDeepStrictEqual(current.config, config)) return { stored: current, changed: false, warnings };
    const revision = current.revision + 1;
    const { rows } = await client.query<{ updated_at: Date }>(
      `INSERT INTO system_config (key, document, revision, updated_at) VALUES ('system', $1, $2, now())
       ON CONFLICT (key) DO UPDATE SET document = EXCLUDED.document, revision = EXCLUDED.revision, updated_at = EXCLUDED.updated_at
       RETURNING updated_at`,
      [config, revision],
    );
    await client.query(
      `INSERT INTO system_config_changes (revision, changed_at, credential_id, principal, auth_kind, before, after) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [revision, rows[0]?.updated_at, by.credentialId, by.principal, by.kind, current.config, config],
    );
    // Delivered at commit, to every instance's cache (system-config-cache.ts).
    await client.query('SELECT pg_notify($1, $2)', [SYSTEM_CONFIG_CHANGED_CHANNEL, String(revision)]);
    return { stored: { config, revision, updatedAt: rows[0]?.updated_at ?? null }, changed: true, warnings };
  });
}

/** Of these webhook ids, those of webhooks that exist and are active: the facts receiversOf (party-receivers.ts) needs. */
export async function activeWebhooks(db: Pool | PoolClient, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>('SELECT id FROM webhooks WHERE id = ANY($1::text[]) AND active', [ids]);
  return new Set(rows.map((r) => r.id));
}

/** How each party of `config` is reached now: its receivers and what escalates to it (the health component's facts). */
export async function readPartyReach(db: Pool | PoolClient, config: SystemConfig): Promise<PartyReach[]> {
  return partyReach(config, { activeWebhooks: await activeWebhooks(db, receiverWebhookIds(config)) }, await rulesNamingParties(db));
}

async function existingWebhooks(client: PoolClient, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await client.query<{ id: string }>('SELECT id FROM webhooks WHERE id = ANY($1::text[])', [ids]);
  return new Set(rows.map((r) => r.id));
}

export interface SystemConfigChange {
  revision: number;
  changed_at: string;
  changed_by: { credential_id: string; principal: string; auth_kind: string };
  before: SystemConfig;
  after: SystemConfig;
}

export interface ChangeQuery {
  start: Date | undefined;
  end: Date | undefined;
  page: number;
  perPage: number;
}

/** One page of changes, newest first, and how many the range holds. */
export async function listSystemConfigChanges(pool: Pool, q: ChangeQuery): Promise<{ changes: SystemConfigChange[]; total: number }> {
  const range = [q.start ?? null, q.end ?? null];
  const [{ rows }, { rows: counted }] = await Promise.all([
    pool.query<{ revision: number; changed_at: Date; credential_id: string; principal: string; auth_kind: string; before: SystemConfig; after: SystemConfig }>(
      `SELECT revision, changed_at, credential_id, principal, auth_kind, before, after FROM system_config_changes
        WHERE ($1::timestamptz IS NULL OR changed_at >= $1) AND ($2::timestamptz IS NULL OR changed_at <= $2)
        ORDER BY revision DESC LIMIT $3 OFFSET $4`,
      [...range, q.perPage, (q.page - 1) * q.perPage],
    ),
    pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM system_config_changes WHERE ($1::timestamptz IS NULL OR changed_at >= $1) AND ($2::timestamptz IS NULL OR changed_at <= $2)`,
      range,
    ),
  ]);
  const changes = rows.map((r) => ({
    revision: r.revision,
    changed_at: r.changed_at.toISOString(),
    changed_by: { credential_id: r.credential_id, principal: r.principal, auth_kind: r.auth_kind },
    before: r.before,
    after: r.after,
  }));
  return { changes, total: Number(counted[0]?.n ?? 0) };
}

// A running SystemConfigCache sees a PUT through the NOTIFY sent in its transaction (its poll is an hour
// here, so nothing else could bring the change), and survives losing its LISTEN connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../../../platform/postgres.ts';
import { SystemConfigCache } from '../../../../response/settings/system-config-cache.ts';
import { replaceSystemConfig } from '../../../../response/settings/system-config-store.ts';
import { DEFAULT_SYSTEM_CONFIG, type SystemConfig } from '../../../../schemas/system-config.ts';
import { scratchDatabase, type ScratchDatabase } from '../../../support/scratch-database.ts';
import { testLog } from '../../../support/stack.ts';
import { startTcpProxy, type TcpProxy } from '../../../support/tcp-proxy.ts';

const BY = { credentialId: 'key_cache_test', principal: 'cache test', kind: 'api_key' } as const;
const HOUR_MS = 3_600_000;

function withGate(id: string): SystemConfig {
  const doc = structuredClone(DEFAULT_SYSTEM_CONFIG) as SystemConfig;
  doc.gates.push({ id, name: `Gate ${id}` });
  return doc;
}

async function put(pool: Pool, doc: SystemConfig): Promise<void> {
  const outcome = await replaceSystemConfig(pool, doc, BY);
  expect(outcome.problems).toBeUndefined();
}

describe('SystemConfigCache', () => {
  let db: ScratchDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await scratchDatabase('syscfg_cache');
    pool = createPool(db.url, 4, testLog);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('starts with the shipped defaults and sees a PUT of another instance through its NOTIFY', async () => {
    const cache = new SystemConfigCache(HOUR_MS);
    await cache.start(pool, testLog);
    try {
      expect(cache.current()).toEqual(DEFAULT_SYSTEM_CONFIG);
      expect(cache.revision()).toBe(0);
      const writer = createPool(db.url, 1, testLog);
      await put(writer, withGate('N1'));
      await expect.poll(() => cache.current(), { timeout: 5_000, interval: 20 }).toEqual(withGate('N1'));
      await put(writer, withGate('N2'));
      await expect.poll(() => cache.current(), { timeout: 5_000, interval: 20 }).toEqual(withGate('N2'));
      expect(cache.revision()).toBeGreaterThanOrEqual(2);
      await writer.end();
    } finally {
      await cache.stop();
    }
  });

  describe('through a connection that is reset', () => {
    let proxy: TcpProxy;
    let proxied: Pool;
    beforeAll(async () => {
      const url = new URL(db.url);
      proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
      url.hostname = proxy.host;
      url.port = String(proxy.port);
      proxied = createPool(url.toString(), 4, testLog);
    });
    afterAll(async () => {
      await proxied?.end();
      await proxy?.close();
    });

    const listeningThroughProxy = async () =>
      Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'LISTEN pss_system_config_changed' AND client_port = ANY($1::int[])`, [proxy.upstreamPorts()])).rows[0]?.n);

    it('keeps the last document while Postgres is unreachable, listens again on a new connection and reads what changed meanwhile', async () => {
      await put(pool, withGate('R1'));
      const cache = new SystemConfigCache(300);
      await cache.start(proxied, testLog);
      try {
        expect(cache.current()).toEqual(withGate('R1'));
        await expect.poll(listeningThroughProxy, { timeout: 5_000, interval: 100 }).toBe(1);
        proxy.reset(3_000);
        await put(pool, withGate('R2'));
        // Nothing to read from while every connection is refused: the document read last stays in force.
        expect(cache.current()).toEqual(withGate('R1'));
        await expect.poll(listeningThroughProxy, { timeout: 10_000, interval: 100 }).toBe(1);
        await expect.poll(() => cache.current(), { timeout: 5_000, interval: 50 }).toEqual(withGate('R2'));
      } finally {
        await cache.stop();
      }
      await expect.poll(listeningThroughProxy, { timeout: 5_000, interval: 100 }).toBe(0);
    });
  });
});

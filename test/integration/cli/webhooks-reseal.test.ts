import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook } from '../../../delivery/webhooks/store.ts';
import { SecretBox } from '../../../delivery/webhooks/secret-box.ts';
import { createPool, type Pool } from '../../../platform/postgres.ts';
import { scratchDatabase, type ScratchDatabase } from '../../support/scratch-database.ts';
import { testLog } from '../../support/stack.ts';

const PSS = fileURLToPath(new URL('../../../bin/pss.js', import.meta.url));
const OLD_KEY = Buffer.alloc(32, 0x11).toString('base64');
const NEW_KEY = Buffer.alloc(32, 0x22).toString('hex'); // either form is accepted
const OTHER_KEY = Buffer.alloc(32, 0x33).toString('base64');
const SECRET = 'whsec_reseal_0123456789abcdefghij';

// Rotating PSS_WEBHOOK_SECRET_KEY: every secret sealed under the old key is sealed again under the new one.
// A database of its own: resealing the shared one would take other tests' webhooks away from their key.
describe('pss webhooks reseal', () => {
  let db: ScratchDatabase;
  let pool: Pool;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    db = await scratchDatabase('reseal');
    pool = createPool(db.url, 2, testLog);
    const under = async (key: string, name: string) => {
      const hook = await createWebhook(pool, new SecretBox(key), { name, url: 'https://hooks.example.com/pss', events: ['*'], secret: SECRET });
      ids[name] = hook.id;
    };
    await under(OLD_KEY, 'old-1');
    await under(OLD_KEY, 'old-2');
    await under(Buffer.from(NEW_KEY, 'hex').toString('base64'), 'new');
    await under(OTHER_KEY, 'lost');
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  const pss = (env: Record<string, string>) =>
    spawnSync(process.execPath, [PSS, 'webhooks', 'reseal'], { env: { ...process.env, PSS_DATABASE_URL: db.url, PSS_ENVIRONMENT: 'test', PSS_LOG_LEVEL: 'warn', ...env }, encoding: 'utf8', timeout: 60_000 });
  const sealedOf = async (name: string) => (await pool.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhooks WHERE id = $1', [ids[name]])).rows[0]!.secret_sealed;

  it('seals what the previous key opens under the new key, leaves the rest, names what neither opens, and exits 1 for it', async () => {
    const untouched = [await sealedOf('new'), await sealedOf('lost')];
    const run = pss({ PSS_WEBHOOK_SECRET_KEY: NEW_KEY, PSS_WEBHOOK_SECRET_KEY_PREVIOUS: OLD_KEY });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as { ok: boolean; resealed: number; already_current: number; resealed_ids: string[]; unopenable_ids: string[] };
    expect(report).toMatchObject({ ok: false, resealed: 2, already_current: 1, unopenable_ids: [ids.lost] });
    expect(report.resealed_ids.sort()).toEqual([ids['old-1'], ids['old-2']].sort());
    // The new key alone now opens every resealed secret; the old key no longer does.
    const newOnly = new SecretBox(Buffer.from(NEW_KEY, 'hex').toString('base64'));
    for (const name of ['old-1', 'old-2', 'new']) expect(newOnly.open(ids[name]!, await sealedOf(name))).toBe(SECRET);
    const resealed = await sealedOf('old-1');
    expect(() => new SecretBox(OLD_KEY).open(ids['old-1']!, resealed)).toThrow();
    expect([await sealedOf('new'), await sealedOf('lost')]).toEqual(untouched);
  });

  it('run again, changes nothing', async () => {
    const before = await Promise.all(['old-1', 'old-2', 'new'].map(sealedOf));
    const run = pss({ PSS_WEBHOOK_SECRET_KEY: NEW_KEY, PSS_WEBHOOK_SECRET_KEY_PREVIOUS: OLD_KEY });
    expect(JSON.parse(run.stdout)).toMatchObject({ resealed: 0, already_current: 3, unopenable_ids: [ids.lost] });
    expect(await Promise.all(['old-1', 'old-2', 'new'].map(sealedOf))).toEqual(before);
  });

  it('refuses a previous key that is not 32 bytes, before touching anything', () => {
    const run = pss({ PSS_WEBHOOK_SECRET_KEY: NEW_KEY, PSS_WEBHOOK_SECRET_KEY_PREVIOUS: 'short' });
    expect(run.status).toBe(78);
    expect(run.stderr).toContain('PSS_WEBHOOK_SECRET_KEY_PREVIOUS');
  });
});

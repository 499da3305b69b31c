// `pss gates locks` and `pss gates release GATE --reason TEXT`: the whole-gate locks of the response loop
// and their release, from the database as the API does (processors/gate/gate-locks.ts). The release
// command is written to the gate command outbox; a processors instance's sender delivers it (woken by the
// commit's NOTIFY), so this command needs no Kafka. docs/gate.md "Locks and their release".
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../app/config.ts';
import { AppError } from '../platform/errors.ts';
import { createPool } from '../platform/postgres.ts';
import { listGateLocks, releaseGateLock } from '../processors/gate/gate-locks.ts';
import { usageLine } from './usage.ts';

export async function gatesCommand(args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { reason: { type: 'string' }, by: { type: 'string' } } });
  const [sub, gate, ...rest] = positionals;
  const releasing = sub === 'release' && gate !== undefined && rest.length === 0;
  if (!(sub === 'locks' && gate === undefined) && !releasing) {
    console.error(usageLine('gates'));
    return 2;
  }
  const reason = values.reason?.trim() ?? '';
  if (releasing && (reason.length < 10 || reason.length > 2000)) {
    console.error(`pss gates: --reason must hold 10 to 2000 characters\n${usageLine('gates')}`);
    return 2;
  }
  const config = loadConfig();
  const pool = createPool(config.databaseUrl, 2);
  try {
    if (!releasing) {
      console.log(JSON.stringify(await listGateLocks(pool), null, 2));
      return 0;
    }
    const by = values.by?.trim() || `cli:${userInfo().username}`;
    const { result } = await releaseGateLock(pool, { gate: gate!, reason, releasedBy: by, credentialId: 'cli' });
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    console.error(`pss gates: ${err.message}`);
    return 1;
  } finally {
    await pool.end();
  }
}

import { compile, problems } from '../api/http/validation.ts';
import { loadConfig } from '../app/config.ts';
import type { Config } from '../platform/config.ts';
import { AppError } from '../platform/errors.ts';
import { createLogger } from '../platform/log.ts';
import { createPool, migrate, type Pool } from '../platform/postgres.ts';

/** Runs a command body against the database (migrated first), closing the pool afterwards. */
export async function withDatabase<T>(fn: (pool: Pool, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  await migrate(config.databaseUrl, log);
  const pool = createPool(config.databaseUrl, 2, log, { connectMs: config.databaseConnectTimeoutMs, statementMs: config.databaseStatementTimeoutMs });
  try {
    return await fn(pool, config);
  } finally {
    await pool.end();
  }
}

/**
 * Validates command-line input with the same schema the API uses; throws a message listing every problem,
 * the schema's and `more` (rules checked in the same pass, as a route's `check`).
 */
export function validated<T>(schema: object, input: Record<string, unknown>, more: ReadonlyArray<{ path: string; message: string }> = []): T {
  const validate = compile('body', schema);
  const found = [...(validate(input) ? [] : problems('body', validate.errors)), ...more];
  if (found.length > 0) {
    throw new UsageError(found.map((p) => `${p.path.slice(1).replaceAll('/', '.') || 'input'} ${p.message}`).join('; '));
  }
  return input as T;
}

export class UsageError extends Error {}

export const splitList = (value: string | undefined): string[] | undefined => value?.split(',').map((s) => s.trim()).filter(Boolean);

/** Maps known failures to a message and exit status 2; anything else propagates (a parseArgs error to main.ts, which adds the usage). */
export async function asCommand(fn: () => Promise<void>): Promise<number> {
  try {
    await fn();
    return 0;
  } catch (err) {
    if (err instanceof UsageError || err instanceof AppError) {
      console.error(`pss: ${(err as Error).message}`);
      return 2;
    }
    throw err;
  }
}

import { parseArgs } from 'node:util';
import { createApiKey, listApiKeys, revokeApiKey } from '../api/auth/api-keys.ts';
import { apiKeyCreateSchema, type ApiKeyCreate } from '../schemas/auth.ts';
import { UsageError, asCommand, splitList, validated, withDatabase } from './db.ts';
import { usageLine } from './usage.ts';

const USAGE = usageLine('keys');

/** Bootstrap without the API (issue 3): the first admin key is made here. Prints JSON; the key is shown once. */
export async function keysCommand(args: string[]): Promise<number> {
  return asCommand(async () => {
    const [action, ...rest] = args;
    if (action === 'create') return create(rest);
    if (action === 'revoke') return revoke(rest);
    if (action === 'list') return list();
    throw new UsageError(USAGE);
  });
}

async function create(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { name: { type: 'string' }, scopes: { type: 'string' }, 'expires-in-days': { type: 'string' }, 'ip-allowlist': { type: 'string' } },
  });
  const days = values['expires-in-days'];
  const input = validated<ApiKeyCreate>(apiKeyCreateSchema, {
    name: values.name,
    scopes: splitList(values.scopes),
    ...(days === undefined ? {} : { expires_in_days: /^\d+$/.test(days) ? Number(days) : days }),
    ...(values['ip-allowlist'] === undefined ? {} : { ip_allowlist: splitList(values['ip-allowlist']) }),
  });
  const key = await withDatabase((pool, config) => createApiKey(pool, config.environment, input, 'cli'));
  console.log(JSON.stringify(key, null, 2));
}

async function revoke(args: string[]): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true });
  const id = positionals[0];
  if (id === undefined || positionals.length !== 1) throw new UsageError(USAGE);
  const found = await withDatabase((pool) => revokeApiKey(pool, id));
  if (!found) throw new UsageError(`no API key ${id}`);
  console.log(JSON.stringify({ id, revoked: true }));
}

async function list(): Promise<void> {
  const { items } = await withDatabase((pool) => listApiKeys(pool, 1, 10_000));
  console.log(JSON.stringify(items, null, 2));
}

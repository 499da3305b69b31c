import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { hashPassword } from '../api/auth/secrets.ts';
import { insertOperator } from '../api/auth/oauth-store.ts';
import { listOperators, readOperator, recordChange, resetPassword, updateOperator, type ChangeAuthor } from '../api/auth/operators.ts';
import { operatorChangeSchema, operatorCreateSchema, operatorPasswordSchema, type OperatorChange, type OperatorCreate, type OperatorPassword } from '../schemas/auth.ts';
import type { Pool } from '../platform/postgres.ts';
import { UsageError, asCommand, splitList, validated, withDatabase } from './db.ts';
import { usageLine } from './usage.ts';

const USAGE = usageLine('users');

/**
 * Operator accounts: the people who log in on the OAuth consent page. Passwords are hashed with scrypt.
 * Every change is recorded in operator_changes as made by `cli:<os user>` (api/auth/operators.ts).
 */
export async function usersCommand(args: string[]): Promise<number> {
  return asCommand(async () => {
    const [action, ...rest] = args;
    const by: ChangeAuthor = { credentialId: 'cli', principal: `cli:${userInfo().username}`, kind: 'cli' };
    switch (action) {
      case 'create': return create(rest, by);
      case 'list': return list(rest);
      case 'scopes': return change(rest, by, (values) => ({ scopes: splitList(values.scopes) }));
      case 'disable': return change(rest, by, () => ({ disabled: true }));
      case 'enable': return change(rest, by, () => ({ disabled: false }));
      case 'reset-password': return reset(rest, by);
      default: throw new UsageError(USAGE);
    }
  });
}

const OPTIONS = { username: { type: 'string' }, password: { type: 'string' }, 'password-stdin': { type: 'boolean' }, scopes: { type: 'string' } } as const;
type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

async function passwordOf(values: Values): Promise<string | undefined> {
  return values['password-stdin'] ? (await readStdin()).replace(/\r?\n$/, '') : values.password;
}

async function create(args: string[], by: ChangeAuthor): Promise<void> {
  const { values } = parseArgs({ args, options: OPTIONS });
  const input = validated<OperatorCreate>(operatorCreateSchema, { username: values.username, password: await passwordOf(values), scopes: splitList(values.scopes) });
  const id = `usr_${randomBytes(8).toString('hex')}`;
  const passwordHash = await hashPassword(input.password);
  await withDatabase(async (pool) => {
    try {
      await insertOperator(pool, { id, username: input.username, passwordHash, scopes: input.scopes });
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new UsageError(`username ${input.username} is taken`);
      throw err;
    }
    await recordChange(pool, id, 'create', by, {}, { username: input.username, scopes: input.scopes });
  });
  console.log(JSON.stringify({ id, username: input.username, scopes: input.scopes }, null, 2));
}

async function list(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(USAGE);
  await withDatabase(async (pool) => {
    const all = [];
    for (let page = 1; ; page++) {
      const { items, total } = await listOperators(pool, page, 200);
      all.push(...items);
      if (all.length >= total || items.length === 0) break;
    }
    console.log(JSON.stringify(all, null, 2));
  });
}

async function operatorId(pool: Pool, username: string | undefined): Promise<string> {
  if (!username) throw new UsageError(`--username is required\n${USAGE}`);
  const found = await readOperator(pool, username, 'username');
  if (!found) throw new UsageError(`no operator ${username}`);
  return found.id;
}

async function change(args: string[], by: ChangeAuthor, what: (values: Values) => Record<string, unknown>): Promise<void> {
  const { values } = parseArgs({ args, options: OPTIONS });
  const update = validated<OperatorChange>(operatorChangeSchema, what(values));
  await withDatabase(async (pool) => {
    const stored = await updateOperator(pool, await operatorId(pool, values.username), update, by);
    console.log(JSON.stringify(stored, null, 2));
  });
}

async function reset(args: string[], by: ChangeAuthor): Promise<void> {
  const { values } = parseArgs({ args, options: OPTIONS });
  const input = validated<OperatorPassword>(operatorPasswordSchema, { password: await passwordOf(values) });
  const passwordHash = await hashPassword(input.password);
  await withDatabase(async (pool) => {
    const id = await operatorId(pool, values.username);
    await resetPassword(pool, id, passwordHash, by);
    console.log(JSON.stringify({ id, username: values.username, password: 'reset', tokens: 'revoked' }, null, 2));
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

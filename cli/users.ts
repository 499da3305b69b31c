import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { hashPassword } from '../api/auth/secrets.ts';
import { insertOperator } from '../api/auth/oauth-store.ts';
import { operatorCreateSchema, type OperatorCreate } from '../schemas/auth.ts';
import { UsageError, asCommand, splitList, validated, withDatabase } from './db.ts';
import { usageLine } from './usage.ts';

const USAGE = usageLine('users');

/** Operator accounts: the people who log in on the OAuth consent page. Passwords are hashed with scrypt. */
export async function usersCommand(args: string[]): Promise<number> {
  return asCommand(async () => {
    const [action, ...rest] = args;
    if (action !== 'create') throw new UsageError(USAGE);
    const { values } = parseArgs({
      args: rest,
      options: { username: { type: 'string' }, password: { type: 'string' }, 'password-stdin': { type: 'boolean' }, scopes: { type: 'string' } },
    });
    const password = values['password-stdin'] ? (await readStdin()).replace(/\r?\n$/, '') : values.password;
    const input = validated<OperatorCreate>(operatorCreateSchema, {
      username: values.username,
      password,
      scopes: splitList(values.scopes),
    });
    const id = `usr_${randomBytes(8).toString('hex')}`;
    const passwordHash = await hashPassword(input.password);
    await withDatabase(async (pool) => {
      try {
        await insertOperator(pool, { id, username: input.username, passwordHash, scopes: input.scopes });
      } catch (err) {
        if ((err as { code?: string }).code === '23505') throw new UsageError(`username ${input.username} is taken`);
        throw err;
      }
    });
    console.log(JSON.stringify({ id, username: input.username, scopes: input.scopes }, null, 2));
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

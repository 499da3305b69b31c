import { parseArgs } from 'node:util';
import { registerClient } from '../api/auth/clients.ts';
import { oauthClientCreateSchema, type OAuthClientCreate } from '../schemas/auth.ts';
import { UsageError, asCommand, splitList, validated, withDatabase } from './db.ts';
import { usageLine } from './usage.ts';

const USAGE = usageLine('oauth-clients');

/** Registers an OAuth application; prints client_id and client_secret (shown once) as JSON. */
export async function oauthClientsCommand(args: string[]): Promise<number> {
  return asCommand(async () => {
    const [action, ...rest] = args;
    if (action !== 'create') throw new UsageError(USAGE);
    const { values } = parseArgs({
      args: rest,
      options: { name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true }, scopes: { type: 'string' }, public: { type: 'boolean' } },
    });
    const input = validated<OAuthClientCreate>(oauthClientCreateSchema, {
      name: values.name,
      redirect_uris: values['redirect-uri'],
      scopes: splitList(values.scopes),
      client_type: values.public ? 'public' : 'confidential',
    });
    const client = await withDatabase((pool) => registerClient(pool, input));
    console.log(JSON.stringify(client, null, 2));
  });
}

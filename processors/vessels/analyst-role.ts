// The analyst login (docs/analysts.md): migration 0016 creates the read-only role pss_analyst without a
// login; the set-up (every start and `pss migrate`) gives it PSS_ANALYST_PASSWORD. The password is sent
// as a SCRAM-SHA-256 verifier (RFC 5802/7677, PostgreSQL's stored form), so neither the server's logs
// nor pg_authid ever hold it in clear, and it travels as a query parameter.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { connectClient } from '../../platform/postgres.ts';

const ITERATIONS = 4096;

/** PostgreSQL's stored form of a SCRAM-SHA-256 password; a fresh salt each call. */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = ITERATIONS): string {
  // SASLprep is the identity for the printable ASCII most passwords use; PostgreSQL also falls back to the raw bytes.
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/**
 * Gives pss_analyst a login with `password`. Without one (setting empty) the role is left as it is: the
 * role is cluster-wide, so a service or test run on another database of the same cluster may have set it.
 */
export async function applyAnalystLogin(databaseUrl: string, password: string | null): Promise<void> {
  if (password === null) return;
  const client = await connectClient(databaseUrl);
  try {
    await client.query('SELECT pss_set_analyst_login($1)', [scramVerifier(password)]);
  } finally {
    await client.end();
  }
}

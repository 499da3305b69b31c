import { createHash, randomBytes, scrypt, timingSafeEqual, type BinaryLike, type ScryptOptions } from 'node:crypto';

/**
 * Every secret the service issues has the shape `<prefix><id>_<secret>`: a 16-hex-digit public id used
 * to find the record, and 32 random bytes (256 bits, base64url) that are never stored. The record keeps
 * sha256 of the whole value, compared in constant time. A fast hash is right for 256-bit random
 * secrets; passwords, which people choose, use scrypt (memory-hard) instead.
 */

export const PREFIXES = {
  production: 'svc_live_',
  test: 'svc_test_',
  development: 'svc_dev_',
  access: 'svc_oauth_',
  refresh: 'svc_refresh_',
  code: 'svc_code_',
  clientSecret: 'svc_secret_',
} as const;

export interface Minted {
  id: string;
  value: string;
  hash: Buffer;
}

const SHAPE = /^([a-z]+_[a-z]+_)([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export function mint(prefix: string): Minted {
  const id = randomBytes(8).toString('hex');
  const value = `${prefix}${id}_${randomBytes(32).toString('base64url')}`;
  return { id, value, hash: sha256(value) };
}

/** The id inside a presented secret, or null when it is not one of ours with this prefix. */
export function idOf(value: string, prefix: string): string | null {
  const m = SHAPE.exec(value);
  return m !== null && m[1] === prefix ? (m[2] as string) : null;
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time check of a presented secret against the stored hash. */
export function matches(value: string, storedHash: Buffer): boolean {
  const presented = sha256(value);
  return presented.length === storedHash.length && timingSafeEqual(presented, storedHash);
}

// scrypt with N=2^15, r=8: 32 MiB per hash, about 0.1 s; parameters are stored with each hash.
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 32;

function scryptAsync(password: BinaryLike, salt: BinaryLike, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password.normalize('NFKC'), salt, KEY_LENGTH, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptAsync(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(key, expected);
}

/** A hash of a random password: checking an unknown username against it costs as much as a real check. */
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

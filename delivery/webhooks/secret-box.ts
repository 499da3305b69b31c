// Signing secrets at rest: a secret must be at hand in clear to sign each delivery, so it cannot be
// hashed like an API key; it is sealed with AES-256-GCM under PSS_WEBHOOK_SECRET_KEY instead. The
// webhook id is the additional authenticated data, so a sealed secret copied to another row does not open.
// Rotating the key: PSS_WEBHOOK_SECRET_KEY_PREVIOUS opens what the old key sealed while `pss webhooks
// reseal` seals every secret again under the new one (docs/events-and-delivery.md "Rotating the secret key").
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
/** Used when no key is configured outside production (the service logs a warning). */
const DEVELOPMENT_KEY = createHash('sha256').update('pss development webhook secret key; never for production').digest();

export class SecretBox {
  readonly #key: Buffer;
  readonly #previous: Buffer | undefined;
  /** `keyBase64` seals and opens ('' is the development key); `previousKeyBase64`, when given, only opens. */
  constructor(keyBase64: string, previousKeyBase64 = '') {
    this.#key = keyBase64 === '' ? DEVELOPMENT_KEY : Buffer.from(keyBase64, 'base64');
    this.#previous = previousKeyBase64 === '' ? undefined : Buffer.from(previousKeyBase64, 'base64');
  }

  seal(webhookId: string, secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(webhookId));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** Throws when the sealed value was made neither with the key nor with the previous one, for this webhook. */
  open(webhookId: string, sealed: string): string {
    return this.openWith(webhookId, sealed).secret;
  }

  /** The secret, and whether the current key sealed it (false: the previous one; reseal it). */
  openWith(webhookId: string, sealed: string): { secret: string; current: boolean } {
    const [version, data] = sealed.split(':');
    if (version !== VERSION || data === undefined) throw new Error('unknown sealed secret format');
    const bytes = Buffer.from(data, 'base64');
    try {
      return { secret: unseal(this.#key, webhookId, bytes), current: true };
    } catch (err) {
      if (this.#previous === undefined) throw err;
      return { secret: unseal(this.#previous, webhookId, bytes), current: false };
    }
  }
}

function unseal(key: Buffer, webhookId: string, bytes: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(webhookId));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

/** What reads show of a secret: its last four characters. */
export function secretHint(secret: string): string {
  return `…${secret.slice(-4)}`;
}

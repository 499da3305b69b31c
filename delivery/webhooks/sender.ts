// One delivery attempt over HTTP(S): POST, no redirects followed, bounded by one timeout, and only a
// short excerpt of the answer kept. SSRF: the host is resolved by our own lookup, which refuses a name
// with any address webhooks may not reach, and the address the socket actually connected to is checked
// again, so neither a literal host nor DNS rebinding between check and connect gets through.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { addressAllowed, classifyAddress } from './address-policy.ts';
import type { AttemptResult, ReasonClass } from './outcome.ts';
import { failureOf } from './outcome.ts';

/** Bytes of an answer read (so its connection can be reused); a longer answer closes the connection. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** Characters of the answer kept with the attempt. */
const EXCERPT_CHARS = 256;

// Idle connections are kept for every slot (PSS_WEBHOOK_CONCURRENCY): with fewer, each answer beyond them
// closed its socket and the next attempt opened one, and at 512 in flight to one host attempts timed out.
const httpAgent = new http.Agent({ keepAlive: true, maxFreeSockets: 2048, scheduling: 'lifo' });
const httpsAgent = new https.Agent({ keepAlive: true, maxFreeSockets: 2048, scheduling: 'lifo' });

export interface OutgoingAttempt {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  allowLoopback: boolean;
}

class AttemptError extends Error {
  constructor(readonly reason: ReasonClass, message: string) {
    super(message);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup that answers only with addresses webhooks may reach. */
function guardedLookup(allowLoopback: boolean) {
  return (hostname: string, options: { family?: number; all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, []);
      const refused = addresses.find((a) => !addressAllowed(classifyAddress(a.address), allowLoopback));
      if (refused || addresses.length === 0) {
        const e = new AttemptError('blocked_address', `${hostname} resolves to ${refused?.address ?? 'nothing'} (${refused ? classifyAddress(refused.address) : 'no address'}), which webhooks may not reach`);
        return callback(e as NodeJS.ErrnoException, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

function reasonOf(err: unknown): ReasonClass {
  if (err instanceof AttemptError) return err.reason;
  const code = String((err as { code?: unknown }).code ?? '');
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA') return 'dns';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return 'tls';
  return 'other';
}

/** Refuses a socket connected to an address webhooks may not reach (the pinned address). */
function checkPeer(socket: Socket, allowLoopback: boolean): void {
  const peer = socket.remoteAddress;
  if (peer !== undefined && !addressAllowed(classifyAddress(peer), allowLoopback)) {
    socket.destroy(new AttemptError('blocked_address', `connected to ${peer} (${classifyAddress(peer)}), which webhooks may not reach`));
  }
}

export function sendAttempt(attempt: OutgoingAttempt): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined = undefined;
    const finish = (result: Omit<AttemptResult, 'responseTimeMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, responseTimeMs: elapsed() });
    };
    const fail = (err: unknown, statusCode?: number) => finish({ statusCode, failure: { reason: reasonOf(err), message: String((err as Error).message ?? err).slice(0, 300) } });

    let url: URL;
    try {
      url = new URL(attempt.url);
    } catch {
      return fail(new AttemptError('other', 'the webhook URL is not valid'));
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !addressAllowed(classifyAddress(host), attempt.allowLoopback)) {
      return fail(new AttemptError('blocked_address', `${host} is a ${classifyAddress(host)} address, which webhooks may not reach`));
    }
    const secure = url.protocol === 'https:';
    const req = (secure ? https : http).request(url, {
      method: 'POST',
      agent: secure ? httpsAgent : httpAgent,
      headers: { ...attempt.headers, 'Content-Length': String(attempt.body.length) },
      lookup: guardedLookup(attempt.allowLoopback) as unknown as typeof dnsLookup,
    });
    timer = setTimeout(() => req.destroy(new AttemptError('timeout', `no answer within ${attempt.timeoutMs} ms`)), attempt.timeoutMs);
    req.on('socket', (socket: Socket) => {
      if (socket.remoteAddress !== undefined) checkPeer(socket, attempt.allowLoopback);
      else socket.once('connect', () => checkPeer(socket, attempt.allowLoopback));
    });
    req.on('error', (err) => fail(err));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS);
        const statusCode = res.statusCode ?? 0;
        finish({ statusCode, failure: failureOf(statusCode), excerpt });
      };
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= EXCERPT_CHARS * 4) chunks.push(chunk);
        if (size > MAX_ANSWER_BYTES) {
          res.destroy();
          done();
        }
      });
      res.on('end', done);
      res.on('error', (err) => fail(err, res.statusCode));
    });
    req.end(attempt.body);
  });
}

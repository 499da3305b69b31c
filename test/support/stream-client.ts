// A plain `ws` client of the event stream for tests: it keeps every message, lets a test wait for the ones
// it expects, and reports how the server closed the connection.
import { WebSocket, type ClientOptions } from 'ws';
import { eventRecord } from '../../events/event-record.ts';
import { eventId } from '../../events/event-id.ts';
import type { KafkaProducer } from '../../platform/kafka/index.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { jsonCodec } from './codec.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Message = Record<string, any>;

export class StreamClient {
  readonly messages: Message[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  #taken = 0;
  #waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      this.messages.push(isBinary ? { binary: data } : (JSON.parse(String(data)) as Message));
      this.#notify();
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => {
      resolve({ code, reason: String(reason) });
      this.#notify();
    }));
    ws.on('error', () => undefined);
  }

  /**
   * Opens a connection to the stream of `baseUrl` (http:// becomes ws://), with `token` as the query parameter
   * when given; `path` picks the position stream (/v1/positions/stream) instead of the event stream.
   */
  static async connect(baseUrl: string, token?: string, options: ClientOptions = {}, path = '/v1/events/stream'): Promise<StreamClient> {
    const url = `${baseUrl.replace(/^http/, 'ws')}${path}${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;
    const client = new StreamClient(new WebSocket(url, { perMessageDeflate: false, ...options }));
    await new Promise<void>((resolve, reject) => {
      client.ws.once('open', () => resolve());
      client.ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
      client.ws.once('error', reject);
    });
    return client;
  }

  /** Connects and waits until the server says the credential was accepted. */
  static async authenticated(baseUrl: string, token: string, options: ClientOptions = {}, path?: string): Promise<StreamClient> {
    const client = await StreamClient.connect(baseUrl, token, options, path);
    await client.next((m) => m.type === 'authenticated');
    return client;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Subscribes and waits for the acknowledgement (`subscribed`); with a handle, also for `resumed`. */
  async subscribe(filters: Message = {}, resume?: string): Promise<Message> {
    this.send({ type: 'subscribe', filters, ...(resume === undefined ? {} : { resume }) });
    const ack = await this.next((m) => m.type === 'subscribed' || m.type === 'error');
    if (ack.type === 'error') throw new Error(`subscribe refused: ${ack.code}: ${ack.message}`);
    if (resume !== undefined) await this.next((m) => m.type === 'resumed');
    return ack;
  }

  /** The next message not yet taken that `match` accepts (those before it stay available). */
  async next(match: (m: Message) => boolean = () => true, timeoutMs = 10_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (let i = this.#taken; i < this.messages.length; i++) {
        const m = this.messages[i] as Message;
        if (!m.__taken && match(m)) {
          Object.defineProperty(m, '__taken', { value: true, enumerable: false });
          if (i === this.#taken) this.#taken++;
          return m;
        }
      }
      if (Date.now() > deadline) throw new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.messages.slice(-5))}`);
      await this.#wait(deadline - Date.now());
    }
  }

  /** Event messages received so far. */
  events(): Message[] {
    return this.messages.filter((m) => m.type === 'event');
  }

  /** Waits until `count` event messages have arrived, then `quietMs` more, so an extra one would show. */
  async eventsUntil(count: number, timeoutMs = 15_000, quietMs = 300): Promise<Message[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.events().length < count && Date.now() < deadline) await this.#wait(deadline - Date.now());
    await new Promise((r) => setTimeout(r, quietMs));
    return this.events();
  }

  /** The handle of the last message that carried one. */
  lastHandle(): string | undefined {
    return this.messages.filter((m) => typeof m.resume === 'string').at(-1)?.resume;
  }

  close(): void {
    this.ws.close();
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, Math.min(ms, 200)));
      this.#waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #notify(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}

/** A stream test event: consistent with the type table, told apart by `n`, with `overrides` on top. */
export function streamEvent(run: string, n: number, overrides: Partial<SecurityEvent> = {}): SecurityEvent {
  return {
    id: eventId(`${run}:${n}`),
    type: 'zone_entry',
    timestamp: new Date(Date.UTC(2026, 10, 21, 7, 0, 0, n)).toISOString(),
    category: 'maritime',
    severity: 'high',
    source_module: 'maritime.zones',
    source_device: 'test',
    title: `event ${n}`,
    description: '',
    location: { lat: 55.69, lng: 12.6, zone: 'Harbour mouth' },
    metadata: { n },
    requires_action: true,
    assigned_to: '',
    incident_id: null,
    ...overrides,
  };
}

/** Puts events on security.events as the relay does (keyed by id, through the codec). */
export async function publish(producer: KafkaProducer, topic: string, events: SecurityEvent[]): Promise<void> {
  await producer.send(events.map((e) => eventRecord(jsonCodec, topic, e, 'created', 0)));
}

// TCP client source: connects to an AIS receiver or aggregator, pipes what it sends into the source's
// channel (which pauses the socket while Kafka is behind), and reconnects with exponential backoff when
// the connection fails, closes, or stays silent longer than the idle timeout.
import net from 'node:net';
import type { Endpoint } from '../settings.ts';
import type { Logger } from '../../platform/log.ts';
import type { AisChannel } from '../ais-channel.ts';
import { ingestMetrics } from '../metrics.ts';
import { reconnectDelayMs, type Backoff } from './backoff.ts';

export interface TcpSourceOptions {
  endpoint: Endpoint;
  channel: AisChannel;
  backoff: Backoff;
  /** 0 disables; a connection paused by back-pressure is never considered idle. */
  idleTimeoutMs: number;
  log: Logger;
}

export class TcpSource {
  readonly #opts: TcpSourceOptions;
  readonly #log: Logger;
  #socket: net.Socket | undefined;
  #timer: NodeJS.Timeout | undefined;
  #attempt = 0;
  #stopped = false;
  /** Resolves when the current connection (if any) has closed. */
  #closed: Promise<void> = Promise.resolve();

  constructor(opts: TcpSourceOptions) {
    this.#opts = opts;
    this.#log = opts.log.child({ source: opts.endpoint.name });
  }

  get connected(): boolean {
    return this.#socket !== undefined && !this.#socket.connecting && !this.#socket.destroyed;
  }

  start(): void {
    this.#connect();
  }

  /** Stops reading and reconnecting; what was read is already in the queue. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#socket?.destroy();
    await this.#closed;
  }

  #connect(): void {
    if (this.#stopped) return;
    const { endpoint, channel, idleTimeoutMs } = this.#opts;
    const socket = net.connect({ host: endpoint.host, port: endpoint.port });
    this.#socket = socket;
    let receivedData = false;
    let resolveClosed!: () => void;
    this.#closed = new Promise((resolve) => (resolveClosed = resolve));

    socket.once('connect', () => {
      ingestMetrics.connects.inc({ source: endpoint.name, outcome: 'connected' });
      ingestMetrics.connected.set({ source: endpoint.name }, 1);
      this.#log.info({ host: endpoint.host, port: endpoint.port }, 'AIS TCP source connected');
      socket.setKeepAlive(true, 30_000);
      if (idleTimeoutMs > 0) socket.setTimeout(idleTimeoutMs);
    });
    socket.once('data', () => {
      receivedData = true;
      this.#attempt = 0;
    });
    socket.on('timeout', () => {
      if (channel.waiting) return;
      this.#log.warn({ idle_ms: idleTimeoutMs }, 'AIS TCP source silent; reconnecting');
      socket.destroy();
    });
    socket.on('error', (err) => {
      if (!receivedData) ingestMetrics.connects.inc({ source: endpoint.name, outcome: 'failed' });
      this.#log.warn({ err: err.message }, 'AIS TCP source error');
    });
    socket.once('close', () => {
      socket.unpipe(channel);
      channel.endOfConnection();
      ingestMetrics.connected.set({ source: endpoint.name }, 0);
      this.#socket = undefined;
      resolveClosed();
      this.#scheduleReconnect();
    });
    socket.pipe(channel, { end: false });
  }

  #scheduleReconnect(): void {
    if (this.#stopped) return;
    this.#attempt++;
    const delay = reconnectDelayMs(this.#attempt, this.#opts.backoff);
    this.#log.info({ attempt: this.#attempt, delay_ms: delay }, 'AIS TCP source reconnecting');
    this.#timer = setTimeout(() => this.#connect(), delay);
  }
}

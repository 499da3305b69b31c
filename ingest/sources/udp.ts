// UDP listener source: each datagram holds one or more complete NMEA lines. UDP cannot be paused, so
// while the producer is behind, datagrams are dropped and counted (pss_ingest_udp_dropped_total); the
// sender would lose them to a full socket buffer anyway, and memory stays bounded.
import dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { Endpoint } from '../settings.ts';
import type { Logger } from '../../platform/log.ts';
import type { AisChannel } from '../ais-channel.ts';
import { ingestMetrics } from '../metrics.ts';
import type { ProducerQueue } from '../producer-queue.ts';

export interface UdpSourceOptions {
  endpoint: Endpoint;
  channel: AisChannel;
  queue: ProducerQueue;
  log: Logger;
}

export class UdpSource {
  readonly #opts: UdpSourceOptions;
  #socket: dgram.Socket | undefined;

  constructor(opts: UdpSourceOptions) {
    this.#opts = opts;
  }

  /** The bound port (useful with port 0). */
  get port(): number {
    return this.#socket?.address().port ?? 0;
  }

  async start(): Promise<void> {
    const { endpoint, channel, queue, log } = this.#opts;
    const socket = dgram.createSocket({ type: isIPv6(endpoint.host) ? 'udp6' : 'udp4', reuseAddr: true });
    this.#socket = socket;
    socket.on('message', (message) => {
      if (!queue.writable) {
        ingestMetrics.dropped.inc({ source: endpoint.name });
        return;
      }
      channel.ingestComplete(message.toString('latin1'));
    });
    socket.on('error', (err) => log.warn({ err: err.message, source: endpoint.name }, 'AIS UDP source error'));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(endpoint.port, endpoint.host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    log.info({ source: endpoint.name, host: endpoint.host, port: this.port }, 'AIS UDP source listening');
  }

  async stop(): Promise<void> {
    const socket = this.#socket;
    this.#socket = undefined;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}

// A TCP proxy that a test can freeze or reset, to show what a broken connection does to its client.
// Frozen, every open connection and every new one stops carrying data in both directions without being
// closed, as when the peer's state is gone (a failover, a dropped NAT entry): what is sent is lost and
// no answer ever comes. Thawed, new connections carry data again; the frozen ones stay silent until
// their client closes them. Reset, every open connection gets an RST (the client reads ECONNRESET, as
// when a load balancer or a restarting server cuts it), and for a while every new one is reset as soon as
// it is accepted. (kafka-proxy.ts does the Kafka-specific cut and restore.)
import net from 'node:net';

export interface TcpProxy {
  host: string;
  port: number;
  freeze(): void;
  thaw(): void;
  /** Resets every open connection, in both directions, and every new one for the next `refuseMs`. */
  reset(refuseMs?: number): void;
  /**
   * Arms one reset (as `reset(refuseMs)`): once a client sends `marker` (text of a statement) and the
   * server has answered it (ReadyForQuery), so that the client holds a connection in the middle of its
   * work, perhaps inside a transaction. What that client sends after the answer never reaches the server.
   * Resolves when the reset happened.
   */
  resetAfter(marker: string, refuseMs?: number): Promise<void>;
  /** Local ports of the proxy's open connections to the target: what the target sees as their client ports. */
  upstreamPorts(): number[];
  close(): Promise<void>;
}

interface Trigger {
  marker: Buffer;
  refuseMs: number;
  fired: () => void;
}

interface Link {
  client: net.Socket;
  upstream?: net.Socket;
  frozen: boolean;
  /** The last bytes the client sent, so a marker split between two reads is still seen. */
  tail: Buffer;
  /** The trigger whose marker this client sent; it fires with the server's next ReadyForQuery. */
  answering?: Trigger;
}

/** PostgreSQL's ReadyForQuery message: 'Z', length 5 (the status byte follows). */
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const links = new Set<Link>();
  let frozen = false;
  let refuseUntil = 0;
  let trigger: Trigger | undefined;

  const reset = (refuseMs = 0) => {
    refuseUntil = Date.now() + refuseMs;
    for (const link of links) {
      link.client.resetAndDestroy();
      link.upstream?.resetAndDestroy();
    }
  };

  const server = net.createServer((client) => {
    const link: Link = { client, frozen, tail: Buffer.alloc(0) };
    links.add(link);
    const end = () => {
      client.destroy();
      link.upstream?.destroy();
      links.delete(link);
    };
    client.on('error', end).on('close', end);
    if (Date.now() < refuseUntil) {
      client.resetAndDestroy();
      return;
    }
    // A connection made while frozen is a black hole: nothing reaches the target.
    if (link.frozen) return;
    const upstream = net.connect(target);
    link.upstream = upstream;
    upstream.on('error', end).on('close', end);
    client.on('data', (chunk: Buffer) => {
      if (link.frozen) return;
      const seen = Buffer.concat([link.tail, chunk]);
      if (trigger !== undefined && seen.includes(trigger.marker)) link.answering = trigger;
      link.tail = seen.subarray(Math.max(0, seen.length - 1_024));
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (link.frozen) return;
      client.write(chunk);
      const armed = link.answering;
      if (armed === undefined || !chunk.includes(READY_FOR_QUERY)) return;
      link.answering = undefined;
      if (trigger !== armed) return;
      trigger = undefined;
      // Nothing more of this client reaches the server: its next statement, sent on reading the answer
      // before the timer below fires (a loaded machine), would otherwise run and commit with its answer
      // lost, and the reset would not fall between the two statements as promised.
      link.frozen = true;
      // After the answer is on its way: the client goes on holding the connection when the reset comes.
      setTimeout(() => {
        reset(armed.refuseMs);
        armed.fired();
      }, 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    host: '127.0.0.1',
    port: (server.address() as net.AddressInfo).port,
    freeze() {
      frozen = true;
      for (const link of links) link.frozen = true;
    },
    thaw() {
      frozen = false;
    },
    reset,
    resetAfter(marker, refuseMs = 0) {
      return new Promise((fired) => (trigger = { marker: Buffer.from(marker), refuseMs, fired }));
    },
    upstreamPorts() {
      return [...links].flatMap((l) => (l.upstream?.localPort === undefined ? [] : [l.upstream.localPort]));
    },
    close() {
      for (const link of links) {
        link.client.destroy();
        link.upstream?.destroy();
      }
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The same URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const u = new URL(url);
  u.hostname = proxy.host;
  u.port = String(proxy.port);
  return u.toString();
}

/** The host and port a URL points at (default port 5432, as for Postgres). */
export function targetOf(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 5432) };
}

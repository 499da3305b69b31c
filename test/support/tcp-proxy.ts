// A TCP proxy that a test can freeze, to show what a half-open connection does to its client. Frozen,
// every open connection and every new one stops carrying data in both directions without being
// closed, as when the peer's state is gone (a failover, a dropped NAT entry): what is sent is lost and
// no answer ever comes. Thawed, new connections carry data again; the frozen ones stay silent until
// their client closes them. (kafka-proxy.ts does the Kafka-specific cut and restore.)
import net from 'node:net';

export interface TcpProxy {
  host: string;
  port: number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

interface Link {
  client: net.Socket;
  upstream?: net.Socket;
  frozen: boolean;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const links = new Set<Link>();
  let frozen = false;

  const server = net.createServer((client) => {
    const link: Link = { client, frozen };
    links.add(link);
    const end = () => {
      client.destroy();
      link.upstream?.destroy();
      links.delete(link);
    };
    client.on('error', end).on('close', end);
    // A connection made while frozen is a black hole: nothing reaches the target.
    if (link.frozen) return;
    const upstream = net.connect(target);
    link.upstream = upstream;
    upstream.on('error', end).on('close', end);
    client.on('data', (chunk) => void (link.frozen || upstream.write(chunk)));
    upstream.on('data', (chunk) => void (link.frozen || client.write(chunk)));
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

// The AIS aggregator end-to-end benchmarks feed the service from: a TCP server on loopback that the
// ingest role's TCP source (PSS_AIS_TCP_SOURCES) connects to, as it would to a receiver or an aggregator
// such as AISHub. Lines written while no connection is open are counted as lost, not queued.
import net from 'node:net';

export interface AisFeed {
  port: number;
  /** Resolves once the service's TCP source is connected. */
  connected(timeoutMs?: number): Promise<void>;
  /** Writes NMEA lines (CRLF-terminated) to the connected source; returns false when none is connected. */
  write(lines: string[]): boolean;
  /** Bytes written but still queued in this process (the service is reading slower than the bench writes). */
  queuedBytes(): number;
  lostLines: number;
  close(): Promise<void>;
}

export async function startAisFeed(): Promise<AisFeed> {
  let socket: net.Socket | undefined;
  const server = net.createServer((s) => {
    s.setNoDelay(true);
    s.on('error', () => undefined);
    s.on('close', () => {
      if (socket === s) socket = undefined;
    });
    socket = s;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const feed: AisFeed = {
    port: (server.address() as net.AddressInfo).port,
    lostLines: 0,
    connected: async (timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!socket) {
        if (Date.now() > deadline) throw new Error('the service did not connect to the AIS feed');
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    write: (lines) => {
      if (!socket) {
        feed.lostLines += lines.length;
        return false;
      }
      socket.write(`${lines.join('\r\n')}\r\n`);
      return true;
    },
    queuedBytes: () => socket?.writableLength ?? 0,
    close: () => new Promise<void>((resolve) => {
      socket?.destroy();
      server.close(() => resolve());
    }),
  };
  return feed;
}

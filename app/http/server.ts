import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { PLATFORM_SETTINGS } from '../../platform/config.ts';
import type { UpgradeHandler } from '../feature.ts';

const DEFAULT_REQUEST_TIMEOUT_MS = PLATFORM_SETTINGS.httpBodyTimeoutMs.parse(PLATFORM_SETTINGS.httpBodyTimeoutMs.default);

export interface HttpServer {
  server: http.Server;
  url: string;
  close(): Promise<void>;
}

/**
 * Listens, hands upgrade requests to the handler registered for their path (others get 404), and closes
 * gracefully: stops accepting, lets in-flight requests finish, then drops idle sockets.
 *
 * A closing server also ends kept-alive connections: every response from then on says
 * `Connection: close`, and a connection is dropped as soon as its response is done. Without that a client
 * sending request after request on one connection kept `server.close()` waiting past the shutdown deadline
 * (issue 21, item 8).
 *
 * `requestTimeoutMs` bounds how long receiving one request (headers and body) may take; Node answers a
 * slower one 408 and closes the connection. Node checks every `connectionsCheckingInterval` (30 s by
 * default), so the check runs at least every second for the bound to hold.
 */
export async function listen(app: Express, host: string, port: number, upgrades: UpgradeHandler[] = [], requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): Promise<HttpServer> {
  let closing = false;
  const server = http.createServer(
    { requestTimeout: requestTimeoutMs, headersTimeout: Math.min(60_000, requestTimeoutMs), connectionsCheckingInterval: Math.min(1_000, requestTimeoutMs) },
    (req, res) => {
      if (closing) res.setHeader('connection', 'close');
      // A response begun before the close went out with keep-alive: its connection goes once it is idle.
      res.once('finish', () => closing && setImmediate(() => server.closeIdleConnections()));
      app(req, res);
    },
  );
  server.keepAliveTimeout = 5_000;
  server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://upgrade.invalid').pathname;
    const handler = upgrades.find((u) => u.path === path);
    if (handler) return handler.handle(req, socket, head);
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

// What a WebSocket upgrade request says about its client, the same for every stream (events, positions):
// the credential (the `token` query parameter, else a Bearer header) and where it comes from.
import type { IncomingMessage } from 'node:http';

/** Where a connection comes from, for IP allowlists and the refused-credential throttle. */
export interface Peer {
  address: string | undefined;
  forwardedFor: string | undefined;
}

export function upgradeClient(req: IncomingMessage): { token: string | null; peer: Peer } {
  const url = new URL(req.url ?? '/', 'http://upgrade.invalid');
  const bearer = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '')?.[1];
  const forwarded = req.headers['x-forwarded-for'];
  return {
    token: url.searchParams.get('token') ?? bearer ?? null,
    peer: { address: req.socket.remoteAddress, forwardedFor: Array.isArray(forwarded) ? forwarded.join(',') : forwarded },
  };
}

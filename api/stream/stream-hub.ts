// GET {ws_url}/v1/events/stream: the stream hub of delivery/stream/, given this instance's settings and the
// API's credential check. The hub itself knows nothing of HTTP routes or of how credentials are stored.
import type { Clock } from '../../platform/clock.ts';
import type { ServiceContext } from '../../platform/context.ts';
import { AppError } from '../../platform/errors.ts';
import { StreamHub } from '../../delivery/stream/hub.ts';
import { createCredentialVerifier } from '../auth/authenticate.ts';
import { hasScope } from '../auth/principal.ts';

export const STREAM_PATH = '/v1/events/stream';

export function createStreamHub(ctx: ServiceContext, clock?: Clock): StreamHub {
  const verify = createCredentialVerifier(ctx);
  return new StreamHub({
    kafka: ctx.kafka,
    topic: ctx.topics.securityEvents,
    codec: ctx.codec,
    pool: ctx.pool,
    log: ctx.log.child({ component: 'event-stream' }),
    leaseSeconds: ctx.config.streamConnectionLeaseSeconds,
    replayRecords: ctx.config.streamReplayRecords,
    dedupeRecords: ctx.config.streamDedupeRecords,
    publicUrl: ctx.config.publicUrl,
    ...(clock ? { clock } : {}),
    // The same check as every /v1 request (revocation effective at once, IP allowlists, the refused-credential
    // throttle), plus the scope the stream needs (spec "Scopes": events:read).
    authenticate: async (token, peer) => {
      const principal = await verify(token, peer.address, peer.forwardedFor);
      if (!hasScope(principal, 'events:read')) throw new AppError('forbidden', 'The event stream requires the events:read scope');
      return { credentialId: principal.credentialId, expiresAt: principal.expiresAt };
    },
  });
}

// GET {ws_url}/v1/positions/stream (our extension; docs/console.md "Position stream"): the position hub of
// delivery/positions/, given this instance's settings and the API's credential check (scope maritime:read).
import type { Clock } from '../../platform/clock.ts';
import type { ServiceContext } from '../../platform/context.ts';
import { AppError } from '../../platform/errors.ts';
import { PositionHub } from '../../delivery/positions/hub.ts';
import { createCredentialVerifier } from '../auth/authenticate.ts';
import { hasScope } from '../auth/principal.ts';

export const POSITION_STREAM_PATH = '/v1/positions/stream';

export function createPositionHub(ctx: ServiceContext, options: { clock?: Clock; intervalMs?: number } = {}): PositionHub {
  const verify = createCredentialVerifier(ctx);
  return new PositionHub({
    kafka: ctx.kafka,
    topic: ctx.topics.aisPositions,
    codec: ctx.codec,
    pool: ctx.pool,
    log: ctx.log.child({ component: 'position-stream' }),
    leaseSeconds: ctx.config.streamConnectionLeaseSeconds,
    warmupRecords: ctx.config.streamPositionWarmupRecords,
    maxAgeMs: ctx.config.streamPositionMaxAgeMinutes * 60_000,
    publicUrl: ctx.config.publicUrl,
    ...options,
    authenticate: async (token, peer) => {
      const principal = await verify(token, peer.address, peer.forwardedFor);
      if (!hasScope(principal, 'maritime:read')) throw new AppError('forbidden', 'The position stream requires the maritime:read scope');
      return { credentialId: principal.credentialId, expiresAt: principal.expiresAt };
    },
  });
}

// The ingest feeds as components of the health model, `ais_source:<feed>` and `gate_lane:<gate>/<lane>`
// (docs/operations.md "Feed silence"): down while silent past its limit (ingest/feed-watch.ts). The same pass records the outage
// in Postgres when it begins and closes it when the feed is back, for the zone processors' AIS-gap rule.
import type { ServiceContext } from '../platform/context.ts';
import { closeFeedOutages, openFeedOutage } from '../platform/health/feed-outages.ts';
import type { ComponentHealth, HealthSource } from '../platform/health/model.ts';
import { startedIngestRuntime } from './runtime.ts';

export function feedHealthSource(ctx: ServiceContext): HealthSource {
  return async () => {
    const rt = startedIngestRuntime(ctx);
    if (rt === undefined) return {};
    const now = rt.now();
    const out: Record<string, ComponentHealth> = {};
    for (const s of rt.feeds.statuses(now)) {
      if (s.silent) {
        await openFeedOutage(ctx.pool, s.feed, s.lastAt, s.lastReportedAt);
        const limit = `limit ${seconds(s.limitMs)} s${s.learned ? ', learned from its rate' : ''}`;
        out[`ais_source:${s.feed}`] = { status: 'down', reason: `no report for ${seconds(now - s.lastAt)} s (${limit}); last at ${new Date(s.lastAt).toISOString()}` };
        continue;
      }
      const resumedAt = rt.feeds.resumedAt(s.feed);
      if (resumedAt !== undefined) {
        await closeFeedOutages(ctx.pool, s.feed, resumedAt, rt.feeds.resumedReportedAt(s.feed));
        rt.feeds.closed(s.feed, resumedAt);
      }
      out[`ais_source:${s.feed}`] = { status: 'ok', reason: '' };
    }
    for (const s of rt.lanes?.statuses(now) ?? []) {
      out[`gate_lane:${s.feed}`] = s.silent
        ? { status: 'down', reason: `no reading for ${seconds(now - s.lastAt)} s (limit ${seconds(s.limitMs)} s); last at ${new Date(s.lastAt).toISOString()}` }
        : { status: 'ok', reason: '' };
    }
    return out;
  };
}

const seconds = (ms: number): number => Math.round(ms / 100) / 10;

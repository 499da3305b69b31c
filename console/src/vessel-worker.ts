// Runs inside MapLibre's worker (loaded by map.ts with importScriptInWorkers): answers the vessels source's
// requests for `vessels://<channel>/<shard>/<seq>` with GeoJSON built here, off the page's main thread (vessel-pack.ts
// says why), from the frames the page posts on that BroadcastChannel (one per page, so two console tabs never
// mix). On a channel's first request it subscribes and asks the page for everything again (`want`), as the
// frames before were posted to no one. A request for a frame not yet arrived waits for it, at most two
// seconds, then takes the newest there is.
import { SHARDS, unpack } from './vessel-pack.ts';
import { UNKNOWN_COLOUR, type VesselFrame } from './vessel-feed.ts';

type Protocol = (params: { url: string }) => Promise<{ data: unknown }>;
const scope = self as unknown as { addProtocol(name: string, load: Protocol): void };
const PREFIX = 'vessels://';

interface Page {
  looks: Map<number, { colour: string; name: string }>;
  /** The newest frame's number, and each shard's vessels as of it. */
  seq: number;
  shards: Float64Array[];
  arrived: (() => void)[];
}

const pages = new Map<string, Page>();

function page(name: string): Page {
  const known = pages.get(name);
  if (known) return known;
  const p: Page = { looks: new Map(), seq: 0, shards: Array.from({ length: SHARDS }, () => new Float64Array(0)), arrived: [] };
  const channel = new BroadcastChannel(name);
  channel.onmessage = (e: MessageEvent<VesselFrame>) => {
    for (const [mmsi, colour, name] of e.data.looks) p.looks.set(mmsi, { colour, name });
    e.data.shards.forEach((packed, s) => packed && (p.shards[s] = packed));
    p.seq = e.data.seq;
    const waiting = p.arrived;
    p.arrived = [];
    waiting.forEach((wake) => wake());
  };
  channel.postMessage({ want: 'all' });
  pages.set(name, p);
  return p;
}

async function until(p: Page, seq: number): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (p.seq < seq && Date.now() < deadline) {
    await new Promise<void>((wake) => {
      p.arrived.push(wake);
      setTimeout(wake, Math.max(0, deadline - Date.now()));
    });
  }
}

scope.addProtocol('vessels', async ({ url }) => {
  const [name = '', shard = '0', seq = '0'] = url.slice(PREFIX.length).split('/');
  const p = page(name);
  await until(p, Number(seq));
  return { data: unpack(p.shards[Number(shard)] ?? new Float64Array(0), p.looks, UNKNOWN_COLOUR) };
});

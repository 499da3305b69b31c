// Console benchmark (issue 26 "Done means"): one API instance in this process on a fresh database and topic
// prefix, 10,000 vessels each reporting once a second for a minute into ais.positions, watched by
//   - the console in headless Chromium (SwiftShader WebGL): the first view with zones and every vessel (goal
//     under 2 s), main-thread tasks over 100 ms (Long Tasks API; goal none) and the JS heap after a forced
//     GC at the start and the end of the minute (goal: flat);
//   - 20 position-stream clients without filters (`ws`, in a child process): positions received per second each and the delay
//     from a round's send to its arrival (p50, p99).
// Run: npm run bench console   (or node --import tsx bench/console.ts). Needs Chromium (infra/chromium.sh).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createApiKey } from '../api/auth/api-keys.ts';
import { loadConfig } from '../app/config.ts';
import { authFeature, consoleFeature, maritimeFeature, positionStreamFeature } from '../app/features.ts';
import { startService } from '../app/service.ts';
import { KafkaAdmin, KafkaProducer } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { topicSpecs } from '../platform/topics.ts';
import type { VesselPosition } from '../schemas/ais.ts';
import type { Scope } from '../schemas/auth.ts';
import { TopicCodec } from '../platform/codec/index.ts';
import { freshBenchDatabase } from './support/bench-database.ts';
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';

/** As the browser tests start it (test/support/browser.ts): software WebGL, no sandbox (root). */
const CHROMIUM_ARGS = ['--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--no-sandbox'];
const chromiumPath = () => execFileSync('bash', ['infra/chromium.sh', 'path'], { encoding: 'utf8' }).trim();
/** Plain JSON values through the one codec, as the test stack runs. */
const jsonCodec = new TopicCodec();

const VESSELS = Number(process.env.PSS_BENCH_VESSELS ?? 10_000);
const SECONDS = Number(process.env.PSS_BENCH_SECONDS ?? 60);
const CLIENTS = 20;
const log = createLogger(process.env.PSS_BENCH_LOG_LEVEL ?? 'silent');
/** PSS_BENCH_PROFILE=1: a CPU profile of the page's main thread during the minute, its heaviest functions printed. */
const PROFILE = process.env.PSS_BENCH_PROFILE === '1';
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

/** Vessel i at second t: spread over the harbour view, each sailing a small circle. */
function report(i: number, t: number): VesselPosition {
  const now = new Date().toISOString();
  const angle = (t / 60) * 2 * Math.PI + i;
  return {
    kind: 'position', msg_type: 1, mmsi: 200_000_000 + i, source: 'bench', reported_at: now, received_at: now, raw: ['bench'],
    lat: 55.62 + ((i * 7919) % 1000) / 1000 * 0.14 + 0.002 * Math.sin(angle),
    lon: 12.45 + ((i * 104729) % 1000) / 1000 * 0.30 + 0.003 * Math.cos(angle),
    sog: 6, cog: Math.round(((angle * 180) / Math.PI + 90) % 360), heading: Math.round(((angle * 180) / Math.PI + 90) % 360),
  };
}

type CpuProfile = { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]; samples?: number[]; timeDeltas?: number[] };

/** The 12 functions with the most self time, as "name (file:line) ms". */
function topFunctions(profile: CpuProfile): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map<string, number>();
  (profile.samples ?? []).forEach((id, i) => {
    const f = byId.get(id);
    const key = f ? `${f.functionName || '(anonymous)'} (${f.url.split('/').pop()}:${f.lineNumber})` : '?';
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000);
  });
  return [...self].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, ms]) => `${k} ${Math.round(ms)} ms`).join('; ');
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number) : NaN;
}

async function main(): Promise<void> {
  const databaseUrl = await freshBenchDatabase('pss_bench_console');
  const prefix = `bench-console-${Date.now()}.`;
  const config = loadConfig({ PSS_DATABASE_URL: databaseUrl, PSS_KAFKA_BROKERS: process.env.PSS_KAFKA_BROKERS ?? '127.0.0.1:9092', PSS_TOPIC_PREFIX: prefix, PSS_LOG_LEVEL: 'silent', PSS_HTTP_PORT: '0', PSS_RATE_LIMIT_BURST: '100000', PSS_HEALTH_REPORT_INTERVAL_MS: '0' });
  const service = await startService(config, ['api'], log, [authFeature, maritimeFeature, positionStreamFeature(), consoleFeature]);
  const url = service.url as string;
  const producer = new KafkaProducer({ brokers: config.kafkaBrokers, clientId: 'bench-console', log });
  const topic = service.context.topics.aisPositions;
  const { pool } = service.context;
  const key = async (scopes: Scope[]) => (await createApiKey(pool, config.environment, { name: 'bench', scopes }, 'bench')).key;
  const writer = await key(['maritime:write', 'maritime:read']);
  for (let z = 0; z < 12; z++) {
    const lon = 12.46 + (z % 4) * 0.07;
    const lat = 55.63 + Math.floor(z / 4) * 0.04;
    const geometry = z % 3 === 0 ? { type: 'Circle', center: [lon, lat], radius_meters: 600 }
      : z % 3 === 1 ? { type: 'Corridor', centerline: [[lon, lat], [lon + 0.03, lat + 0.01]], width_meters: 300 }
        : { type: 'Polygon', coordinates: [[[lon, lat], [lon + 0.02, lat], [lon + 0.02, lat + 0.01], [lon, lat + 0.01], [lon, lat]]] };
    const res = await fetch(`${url}/v1/maritime/zones`, { method: 'POST', headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `Bench zone ${z}`, type: 'restricted', alert_level: ['low', 'medium', 'high', 'critical'][z % 4], geometry }) });
    if (res.status !== 201) throw new Error(`zone: HTTP ${res.status} ${await res.text()}`);
  }
  // The port's monitoring area round every vessel: the console's first view frames the zones, so this is what
  // puts all 10,000 vessels in it (the first view's goal counts every vessel on the map).
  const harbour = { type: 'Polygon', coordinates: [[[12.44, 55.612], [12.76, 55.612], [12.76, 55.768], [12.44, 55.768], [12.44, 55.612]]] };
  const area = await fetch(`${url}/v1/maritime/zones`, { method: 'POST', headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Bench harbour', type: 'monitoring', alert_level: 'low', geometry: harbour }) });
  if (area.status !== 201) throw new Error(`zone: HTTP ${area.status} ${await area.text()}`);

  let second = 0;
  const sentAt: number[] = [];
  const round = async () => {
    const t = second++;
    sentAt[t] = Date.now();
    const records = [];
    for (let i = 0; i < VESSELS; i++) records.push({ topic, key: String(200_000_000 + i), value: jsonCodec.encode('aisPositions', report(i, t)) });
    await producer.send(records);
  };
  await round();
  await new Promise((r) => setTimeout(r, 1500));

  // 20 consoles' worth of position-stream clients, in a process of their own.
  const tokens: string[] = [];
  for (let c = 0; c < CLIENTS; c++) tokens.push(await key(['maritime:read']));
  const clients = fork(fileURLToPath(new URL('./support/position-clients.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] });
  clients.send({ url, tokens });
  await once(clients, 'message');
  const clientReport = async (): Promise<{ seconds: number; received: number[]; messages: number[]; delays: number[] }> => {
    clients.send('report');
    return (await once(clients, 'message'))[0];
  };

  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: CHROMIUM_ARGS });
  // bypassCSP: the measuring scripts below are strings, which the console's CSP (no eval) would refuse.
  const page = await browser.newPage({ viewport: { width: 1366, height: 768 }, bypassCSP: true });
  const token = await key(['maritime:read']);
  // Page scripts as text: this file is type-checked for Node, not the DOM.
  await page.addInitScript({ content: `
    sessionStorage.setItem('pss.console.session', JSON.stringify({ accessToken: ${JSON.stringify(token)}, refreshToken: 'none', expiresAt: Date.now() + 3600000, scopes: ['maritime:read'] }));
    window.__long = [];
    new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__long.push(e.duration))).observe({ type: 'longtask', buffered: true });` });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const heap = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    const { metrics } = await cdp.send('Performance.getMetrics');
    return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1024 / 1024;
  };

  const timer = setInterval(() => void round().catch((err) => console.error('bench: send failed', err)), 1000);
  const opened = Date.now();
  await page.goto(`${url}/console/`);
  const pageSaid: string[] = [];
  page.on('console', (m) => pageSaid.push(m.text()));
  page.on('pageerror', (e) => pageSaid.push(e.message));
  await page.waitForFunction(`Number(document.querySelector('#map')?.getAttribute('data-vessels') ?? 0) >= ${VESSELS} && document.querySelector('#map')?.hasAttribute('data-zones')`, undefined, { timeout: 180_000, polling: 50 }).catch(async (err) => {
    await page.screenshot({ path: 'test-results/console-bench.png' }).catch(() => undefined);
    throw new Error(`the console did not show ${VESSELS} vessels and the zones within 180 s: it shows ${await page.locator('#map').getAttribute('data-vessels')} vessels; the page said ${JSON.stringify(pageSaid.slice(-5))} (${(err as Error).message})`);
  });
  const firstView = Date.now() - opened;
  const steps = await page.evaluate('JSON.stringify(performance.getEntriesByType("mark").map((m) => [m.name, Math.round(m.startTime)]))');
  await page.waitForTimeout(5000);
  await page.evaluate('window.__long.length = 0');
  const heapStart = await heap();
  const loadStart = load();
  clients.send('mark');
  if (PROFILE) await cdp.send('Profiler.enable').then(() => cdp.send('Profiler.start'));
  await page.waitForTimeout(SECONDS * 1000);
  const profile = PROFILE ? (await cdp.send('Profiler.stop')).profile : undefined;
  const stream = await clientReport();
  const long = (await page.evaluate('window.__long')) as number[];
  const heapEnd = await heap();
  const shown = Number(await page.locator('#map').getAttribute('data-vessels'));
  clearInterval(timer);
  await page.screenshot({ path: 'test-results/console-bench.png' }).catch(() => undefined);

  const rates = stream.received.map((n) => n / stream.seconds);
  const messageRates = stream.messages.map((n) => n / stream.seconds);
  const sorted = stream.delays.sort((a, b) => a - b);
  console.log(`console: ${VESSELS} vessels, one report each per second, ${SECONDS} s measured; load at start ${loadStart}, at end ${load()}`);
  console.log(`  first view (navigation -> zones and all ${VESSELS} vessels on the map): ${firstView} ms (goal < 2000); page marks (ms from navigation): ${steps}`);
  console.log(`  main-thread long tasks: ${long.length} over 50 ms, ${long.filter((d) => d > 100).length} over 100 ms (goal 0), longest ${Math.round(Math.max(0, ...long))} ms`);
  console.log(`  JS heap after GC: ${heapStart.toFixed(1)} MiB at start, ${heapEnd.toFixed(1)} MiB after ${SECONDS} s (goal flat); vessels shown ${shown}`);
  console.log(`  position stream, ${CLIENTS} clients without filters: ${Math.min(...rates).toFixed(0)}-${Math.max(...rates).toFixed(0)} positions/s each in ${Math.min(...messageRates).toFixed(2)}-${Math.max(...messageRates).toFixed(2)} messages/s (sent ${VESSELS}/s; ${second} rounds sent in all); send -> arrival of the newest report p50 ${percentile(sorted, 0.5)} ms, p99 ${percentile(sorted, 0.99)} ms`);

  if (profile) console.log(`  main thread, self time by function over the ${SECONDS} s (PSS_BENCH_PROFILE): ${topFunctions(profile)}`);

  clients.kill();
  await browser.close();
  await producer.close();
  await service.stop();
  const admin = new KafkaAdmin({ brokers: config.kafkaBrokers, clientId: 'bench-console', log });
  await admin.deleteTopics(topicSpecs(prefix).map((t) => t.name)).catch(() => undefined);
  await admin.close();
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});

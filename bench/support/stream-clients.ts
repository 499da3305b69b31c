// The WebSocket clients of bench/event-stream.ts, in their own process (forked with an IPC channel): they
// connect and subscribe with a mix of filters, then time every event from the moment the bench produced it
// (metadata.bench_sent_at) to its arrival here. The bench starts and ends measurement phases over IPC.
import { WebSocket } from 'ws';

interface Setup {
  url: string;
  keys: string[];
  clients: number;
  zones: string[];
  modules: string[];
}

type Command = { kind: 'phase' } | { kind: 'report' } | { kind: 'exit' };

/** Latency histogram in 0.1 ms buckets up to 30 s. */
const BUCKETS = 300_000;
let histogram = new Uint32Array(BUCKETS);
let received = 0;
let phaseStart = Date.now();
let closed = 0;
let cpuAtStart = process.cpuUsage();
const MARK = Buffer.from('"bench_sent_at":');

/** The filters of client `i`: what operators' dashboards might ask for (the `event-stream` rows of docs/benchmarks.md). */
function filtersOf(i: number, zones: string[], modules: string[]): Record<string, unknown> {
  const categories = ['gate', 'perimeter', 'maritime', 'drone', 'system', 'decision'];
  switch (i % 10) {
    case 0:
      return { min_severity: 'high' };
    case 1:
    case 2:
    case 3:
      return { categories: [categories[i % categories.length]] };
    case 4:
    case 5:
      return { categories: [categories[(i >> 1) % categories.length]], min_severity: 'medium' };
    case 6:
    case 7:
      return { zones: [zones[i % zones.length]] };
    default:
      return { source_modules: [modules[i % modules.length]], min_severity: 'high' };
  }
}

function onEvent(data: Buffer): void {
  const at = data.indexOf(MARK);
  if (at < 0) return;
  let sent = 0;
  for (let i = at + MARK.length; i < data.length; i++) {
    const c = data[i] as number;
    if (c < 48 || c > 57) break;
    sent = sent * 10 + (c - 48);
  }
  const bucket = Math.min(BUCKETS - 1, Math.max(0, Math.round((Date.now() - sent) * 10)));
  histogram[bucket] = (histogram[bucket] ?? 0) + 1;
  received++;
}

function connect(setup: Setup, i: number): Promise<void> {
  const key = setup.keys[Math.floor(i / 10)] as string;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${setup.url.replace(/^http/, 'ws')}/v1/events/stream?token=${key}`, { perMessageDeflate: false, skipUTF8Validation: true });
    let subscribed = false;
    ws.on('message', (data: Buffer) => {
      if (subscribed) return onEvent(data);
      const message = JSON.parse(String(data)) as { type: string };
      if (message.type === 'authenticated') ws.send(JSON.stringify({ type: 'subscribe', filters: filtersOf(i, setup.zones, setup.modules) }));
      else if (message.type === 'subscribed') {
        subscribed = true;
        resolve();
      } else if (message.type === 'error') reject(new Error(`client ${i}: ${JSON.stringify(message)}`));
    });
    ws.on('close', () => closed++);
    ws.on('error', reject);
  });
}

function percentile(q: number): number {
  const target = Math.ceil(q * received);
  let seen = 0;
  for (let b = 0; b < BUCKETS; b++) {
    seen += histogram[b] as number;
    if (seen >= target && target > 0) return b / 10;
  }
  return NaN;
}

function report() {
  let max = 0;
  for (let b = BUCKETS - 1; b >= 0; b--) if ((histogram[b] as number) > 0) {
    max = b / 10;
    break;
  }
  const cpu = process.cpuUsage(cpuAtStart);
  const seconds = (Date.now() - phaseStart) / 1000;
  return { received, seconds, p50: percentile(0.5), p99: percentile(0.99), max, closed, cpuPercent: Math.round((cpu.user + cpu.system) / 1e4 / seconds) };
}

process.once('message', async (setup: Setup) => {
  for (let i = 0; i < setup.clients; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, setup.clients - i) }, (_, j) => connect(setup, i + j)));
  }
  process.on('message', (command: Command) => {
    if (command.kind === 'phase') {
      histogram = new Uint32Array(BUCKETS);
      received = 0;
      phaseStart = Date.now();
      cpuAtStart = process.cpuUsage();
      process.send?.({ kind: 'phase' });
    } else if (command.kind === 'report') {
      process.send?.({ kind: 'report', ...report() });
    } else {
      process.exit(0);
    }
  });
  process.send?.({ kind: 'ready' });
});

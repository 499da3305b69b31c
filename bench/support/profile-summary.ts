// Where the time goes: sums the self time of a V8 CPU profile (node --cpu-prof) by pipeline stage and
// lists the busiest functions. Run: node --import tsx bench/support/profile-summary.ts FILE.cpuprofile
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const STAGES: [string, (f: ProfileNode['callFrame']) => boolean][] = [
  ['idle (waiting for Kafka / socket)', (f) => f.functionName === '(idle)'],
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['AIS decode (ingest/ais)', (f) => f.url.includes('/ingest/ais/')],
  ['schema validation (ajv)', (f) => f.url.includes('/ajv') || (f.url === '' && /^validate\d*$/.test(f.functionName))],
  ['JSON.stringify (inlined into the codec)', (f) => f.functionName === 'stringify' || f.url.endsWith('/platform/codec/index.ts')],
  ['Kafka client (@platformatic/kafka)', (f) => f.url.includes('@platformatic/kafka') || f.url.includes('/platform/kafka/')],
  ['ingest pipeline (records, queue, channel)', (f) => f.url.includes('/ingest/')],
  ['node core (net, streams, buffers)', (f) => f.url.startsWith('node:')],
  ['metrics (prom-client)', (f) => f.url.includes('prom-client')],
  ['V8 / native (program)', (f) => f.functionName === '(program)' || f.url === ''],
  ['other', () => true],
];

const profile = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const stages = new Map<string, number>();
const functions = new Map<string, number>();
for (const [id, micros] of self) {
  const frame = (byId.get(id) as ProfileNode).callFrame;
  const stage = (STAGES.find(([, test]) => test(frame)) as [string, unknown])[0];
  stages.set(stage, (stages.get(stage) ?? 0) + micros);
  const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(node_modules\/)?/, '')}:${frame.lineNumber + 1}`;
  functions.set(name, (functions.get(name) ?? 0) + micros);
}
const pct = (v: number) => `${((100 * v) / total).toFixed(1).padStart(5)} %`;
console.log(`total ${(total / 1e6).toFixed(2)} s of samples`);
for (const [stage, v] of [...stages].sort((a, b) => b[1] - a[1])) console.log(`  ${pct(v)}  ${stage}`);
console.log('busiest functions (self time):');
for (const [name, v] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${pct(v)}  ${name}`);

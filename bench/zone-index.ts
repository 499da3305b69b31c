// Zone index benchmark: build time for 1,000 random zones of the four geometry types around
// Copenhagen / Øresund, and locate() throughput for 10,000 vessels at random positions.
// Run: node --import tsx bench/zone-index.ts
import { ZoneIndex } from '../processors/maritime/zones/zone-index.ts';
import { RandomPort } from './support/random-port.ts';

const ZONES = 1_000;
const VESSELS = 10_000;
const REPORTS_PER_VESSEL = 50;
const port = new RandomPort(42);

function main(): void {
  const zones = Array.from({ length: ZONES }, (_, i) => port.zone(i));

  let t = performance.now();
  let cpu = process.cpuUsage();
  const index = ZoneIndex.build(zones);
  const buildMs = performance.now() - t;
  const buildCpuMs = process.cpuUsage(cpu).user / 1000;
  const kinds = { inside: 0, buffer: 0, boundary: 0 };
  for (const z of index.zones.values()) for (const c of z.cells) kinds[c.kind]++;

  // Vessels: random start, then reports every ~10 s at 0-10 m/s with gentle turns.
  const positions = port.tracks(VESSELS, REPORTS_PER_VESSEL);
  const count = positions.length / 2;
  for (let i = 0; i < 20_000; i++) index.locate(positions[2 * i] as number, positions[2 * i + 1] as number); // warm-up

  let inside = 0;
  let inBuffer = 0;
  let candidates = 0;
  t = performance.now();
  cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const r = index.locate(positions[2 * i] as number, positions[2 * i + 1] as number);
    inside += r.inside.length;
    inBuffer += r.inBuffer.length;
  }
  const locateMs = performance.now() - t;
  const locateCpuMs = process.cpuUsage(cpu).user / 1000;
  for (let i = 0; i < count; i += 10) candidates += index.candidates(positions[2 * i] as number, positions[2 * i + 1] as number).length;

  const out = {
    zones: index.zones.size,
    rejected: index.rejected.length,
    build_ms: Math.round(buildMs),
    build_cpu_ms: Math.round(buildCpuMs),
    cells: index.cellCount,
    cell_kinds: kinds,
    positions: count,
    locate_per_second: Math.round(count / (locateMs / 1000)),
    locate_per_cpu_second: Math.round(count / (locateCpuMs / 1000)),
    locate_us: Number(((locateMs * 1000) / count).toFixed(2)),
    candidates_per_position: Number((candidates / (count / 10)).toFixed(2)),
    inside_hits_per_position: Number((inside / count).toFixed(3)),
    buffer_hits_per_position: Number((inBuffer / count).toFixed(3)),
  };
  console.log(JSON.stringify(out, null, 2));
}

main();

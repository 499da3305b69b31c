// A CPU profile of one timed phase of a benchmark, not of its set-up: with PSS_BENCH_PROFILE=FILE set,
// the phase is profiled into FILE (summarise it with bench/support/profile-summary.ts).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/** Starts profiling when PSS_BENCH_PROFILE names a file; the returned function stops and writes it. */
export async function profilePhase(file = process.env.PSS_BENCH_PROFILE): Promise<() => Promise<void>> {
  if (!file) return async () => undefined;
  const inspector = new Session();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
  return async () => {
    const { profile } = await inspector.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    inspector.disconnect();
  };
}

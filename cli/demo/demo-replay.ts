// The demo's AIS feed: the real Copenhagen recording through the ingest path (decoder, validation, Kafka)
// in a loop until the demo stops, every line stamped on the wall clock (looped-recording.ts).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { AisChannel } from '../../ingest/ais-channel.ts';
import { ingestRuntime, type RuntimeContext } from '../../ingest/runtime.ts';
import { LoopedRecording } from './looped-recording.ts';

export const RECORDING = fileURLToPath(new URL('../../test/fixtures/ais/real-nmea-dma-copenhagen-oresund.txt', import.meta.url));
export const RECORDING_SOURCE = 'dma-copenhagen-replay';
/** The recording spans about four minutes (10:45-10:49 UTC on its day): one loop plays it at its own pace. */
export const DEMO_LOOP_MS = 240_000;
/** How often the feed hands on the lines that came due: about one line a tick, as a receiver sends them. */
const TICK_MS = 250;

/** The lines the ingest will see, one each (its line splitter drops empty ones, so they are dropped here too). */
export function recordingLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/).filter((line) => line.length > 0);
}

/** Feeds the recording until `signal` aborts; resolves when the feed has ended. */
export async function replayLooped(ctx: RuntimeContext, signal: AbortSignal): Promise<void> {
  const rt = ingestRuntime(ctx);
  const recording = new LoopedRecording(recordingLines(await readFile(RECORDING, 'latin1')), { startMs: Date.now(), loopMs: DEMO_LOOP_MS });
  // The channel asks for each line's time as it decodes it, in the order written.
  const stamps: number[] = [];
  const channel = new AisChannel({
    source: RECORDING_SOURCE, kind: 'replay', queue: rt.queue, records: rt.records, strictTagBlocks: rt.config.aisStrictTagBlocks, fragmentTimeoutMs: rt.config.aisFragmentTimeoutMs,
    lineTime: () => stamps.shift() ?? Date.now(),
  });
  while (!signal.aborted) {
    const due = recording.take(Date.now());
    if (due.length > 0) {
      stamps.push(...due.map((d) => d.stampMs));
      channel.write(due.map((d) => d.line).join('\n') + '\n');
    }
    await sleep(TICK_MS, undefined, { signal }).catch(() => undefined);
  }
  channel.end();
}

// File replay source (`pss replay FILE`): feeds a recorded NMEA log through a channel, as fast as the
// producer takes it, or paced by the recorded receive times (`speed`), or for a recording without them by
// the synthetic clock that stamps its lines (`paceBy`).
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLineSplitter } from '../ais/index.ts';
import type { AisChannel } from '../ais-channel.ts';
import { ReplayClock, recordedTimeMs, type SyntheticClock } from './replay-timing.ts';

export interface ReplayOptions {
  /** Omitted: as fast as possible. */
  speed?: number;
  /** With `speed`: pace line i by `paceBy.at(i)` where it has no recorded time (a recording without them). */
  paceBy?: SyntheticClock;
  /** See ReplayClock; default one hour. */
  maxGapMs?: number;
  signal?: AbortSignal;
  now?: () => number;
}

/** Resolves when the whole file is in the channel (and the channel has ended). */
export async function replayFile(path: string, channel: AisChannel, opts: ReplayOptions = {}): Promise<void> {
  const input = createReadStream(path, { highWaterMark: 64 * 1024 });
  if (opts.speed === undefined) {
    await pipeline(input, channel, opts.signal ? { signal: opts.signal } : {});
    return;
  }
  const clock = new ReplayClock({ speed: opts.speed, maxGapMs: opts.maxGapMs ?? 3_600_000 });
  const now = opts.now ?? Date.now;
  const splitter = createLineSplitter();
  let pending: string[] = [];
  const write = async () => {
    if (pending.length === 0) return;
    const ok = channel.write(pending.join('\n') + '\n');
    pending = [];
    if (!ok) await once(channel, 'drain');
  };
  let index = 0;
  for await (const chunk of input) {
    for (const line of splitter.push((chunk as Buffer).toString('latin1'))) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      const recorded = recordedTimeMs(line) ?? opts.paceBy?.at(index);
      index++;
      const delay = recorded === undefined ? 0 : clock.delayMs(recorded, now());
      if (delay > 0) {
        await write();
        await sleep(delay, undefined, opts.signal ? { signal: opts.signal } : {});
      }
      pending.push(line);
    }
    await write();
  }
  pending.push(...splitter.flush());
  await write();
  channel.end();
  await once(channel, 'finish');
}

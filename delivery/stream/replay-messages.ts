// The messages a resuming client gets before the live stream continues: the gap message when it missed
// more than is replayed, the missed events with the handle that holds after each, and `resumed`.
import type { StreamFilters } from '../../schemas/stream.ts';
import { gapMessage } from './gap-message.ts';
import { resumedMessage } from './protocol.ts';
import type { Selection } from './replay-selection.ts';
import { encodeHandle, laterOf, type ResumePoint } from './resume-handle.ts';
import { eventMessage } from './stream-record.ts';

export interface ReplayMessage {
  data: string;
  resume?: string;
  event?: boolean;
}

export interface ReplayContext {
  /** The handle the client presented. */
  from: ResumePoint;
  /** The hub's position when the client subscribed: the live stream goes on from there. */
  to: ResumePoint;
  filters: StreamFilters;
  tag: number;
  baseUrl: string;
  now: number;
}

/**
 * A replayed event's handle covers, per partition, the replayed events of that partition sent so far, from
 * past the gap (`selection.start`); never below what the client presented. After the last, `resumed` carries
 * the handle of the hub's position, where the live events queued behind the replay begin.
 */
export function replayMessages(selection: Selection, ctx: ReplayContext): ReplayMessage[] {
  const out: ReplayMessage[] = [];
  let cursor: ResumePoint = laterOf({ offsets: selection.start, time: ctx.from.time }, ctx.from);
  if (selection.gap) {
    const until = selection.replay[0] ? Date.parse(selection.replay[0].event.timestamp) : ctx.now;
    const resume = encodeHandle(cursor, ctx.tag);
    out.push({ data: gapMessage(selection.gap, ctx.filters, ctx.baseUrl, ctx.from.time, until), resume });
  }
  for (const record of selection.replay) {
    const offsets = [...cursor.offsets];
    offsets[record.partition] = Math.max(offsets[record.partition] ?? 0, record.offset + 1);
    cursor = { offsets, time: Math.max(cursor.time, record.time) };
    const resume = encodeHandle(cursor, ctx.tag);
    out.push({ data: eventMessage(record, resume), resume, event: true });
  }
  const resume = encodeHandle(laterOf(ctx.to, ctx.from), ctx.tag);
  out.push({ data: resumedMessage(selection.replay.length, resume), resume });
  return out;
}

// Builders for the decoder's results, so every decoded message shares one envelope.
import type { AisDecodeResult, AisReject, AisRejectReason, AisReport, AisSkip, AisSkipReason } from '../../schemas/ais.ts';
import type { Payload } from './sixbit.ts';

/** What a message's decoder needs besides the payload: where and when it came from. */
export interface Envelope {
  readonly source: string;
  readonly station: string | undefined;
  readonly reportedMs: number;
  readonly reported_at: string;
  readonly received_at: string;
  readonly raw: string[];
}

export type Results = AisDecodeResult[];

/** The fields every decoded report starts with: its kind and type, the MMSI and repeat indicator, and the envelope. */
export function newReport<R extends AisReport>(kind: R['kind'], msgType: R['msg_type'], p: Payload, env: Envelope): R {
  const report = {
    kind,
    msg_type: msgType,
    mmsi: p.uint(8, 30),
    repeat: p.uint(6, 2),
    source: env.source,
    reported_at: env.reported_at,
    received_at: env.received_at,
    raw: env.raw,
  } as R;
  if (env.station !== undefined) report.station = env.station;
  return report;
}

export function reject(out: Results, raw: string[], source: string, at: string, reason: AisRejectReason, detail: string, station?: string): void {
  const result: AisReject = { kind: 'reject', raw, source, reason, detail, at };
  if (station !== undefined) result.station = station;
  out.push(result);
}

export function rejectMessage(out: Results, env: Envelope, reason: AisRejectReason, detail: string): void {
  reject(out, env.raw, env.source, env.received_at, reason, detail, env.station);
}

export function skip(out: Results, raw: string[], source: string, at: string, reason: AisSkipReason, msgType?: number, mmsi?: number): void {
  const result: AisSkip = { kind: 'skip', raw, source, reason, at };
  if (msgType !== undefined) result.msg_type = msgType;
  if (mmsi !== undefined) result.mmsi = mmsi;
  out.push(result);
}

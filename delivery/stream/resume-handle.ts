// The stream's resume handle (docs/events-and-delivery.md "Resume"): an opaque, URL-safe token that says,
// for every partition of security.events, the next offset the client has not been offered. Everything
// below it was delivered to the client or did not match its filters. Offsets are the topic's, so any API
// instance can resume a client from another instance's handle by reading the range from Kafka.
import { createHash } from 'node:crypto';

export interface ResumePoint {
  /** Per partition: the first offset not yet offered to the client. */
  offsets: number[];
  /** Append time (ms) of the newest record below the offsets, as the hub knew it: where a gap starts in time. */
  time: number;
}

const VERSION = 1;

/** 16 bits of the topic name, so a handle from another deployment (topic prefix) is refused, not misread. */
export function topicTag(topic: string): number {
  return createHash('sha256').update(topic).digest().readUInt16BE(0);
}

export function encodeHandle(point: ResumePoint, tag: number): string {
  const bytes: number[] = [VERSION, tag >> 8, tag & 0xff, point.offsets.length];
  for (const offset of point.offsets) writeVarint(bytes, offset);
  writeVarint(bytes, point.time);
  return Buffer.from(bytes).toString('base64url');
}

export type DecodedHandle = { ok: true; point: ResumePoint } | { ok: false; reason: string };

/** Checks the handle's version, topic and partition count; never throws. */
export function decodeHandle(handle: string, tag: number, partitions: number): DecodedHandle {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(handle)) return { ok: false, reason: 'not a resume handle of this service' };
  const bytes = Buffer.from(handle, 'base64url');
  if (bytes[0] !== VERSION || bytes.length < 4) return { ok: false, reason: 'not a resume handle of this service' };
  if (bytes.readUInt16BE(1) !== tag) return { ok: false, reason: 'the resume handle belongs to another deployment\'s event topic' };
  if (bytes[3] !== partitions) return { ok: false, reason: `the resume handle has ${bytes[3]} partitions; the event topic has ${partitions}` };
  const reader = { bytes, at: 4 };
  const offsets: number[] = [];
  for (let p = 0; p < partitions; p++) {
    const offset = readVarint(reader);
    if (offset === undefined) return { ok: false, reason: 'the resume handle is truncated' };
    offsets.push(offset);
  }
  const time = readVarint(reader);
  if (time === undefined || reader.at !== bytes.length) return { ok: false, reason: 'the resume handle is truncated or has extra bytes' };
  return { ok: true, point: { offsets, time } };
}

/** Elementwise maximum: a client that resumed ahead of this instance keeps its own offsets until the hub passes them. */
export function laterOf(a: ResumePoint, b: ResumePoint): ResumePoint {
  return { offsets: a.offsets.map((o, p) => Math.max(o, b.offsets[p] ?? 0)), time: Math.max(a.time, b.time) };
}

/** Whether every offset of `a` is at or past `b`'s. */
export function reached(a: readonly number[], b: readonly number[]): boolean {
  return b.every((o, p) => (a[p] ?? 0) >= o);
}

// Unsigned LEB128 with arithmetic rather than bit operators, which stop at 32 bits; offsets stay below 2^53.
function writeVarint(out: number[], value: number): void {
  let v = Math.max(0, Math.floor(value));
  while (v >= 0x80) {
    out.push((v % 0x80) + 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

function readVarint(reader: { bytes: Buffer; at: number }): number | undefined {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 8; i++) {
    const byte = reader.bytes[reader.at++];
    if (byte === undefined) return undefined;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 0x80;
  }
  return undefined;
}

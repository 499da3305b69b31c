// The audit trail's hash chain (pure). Every entry of every transaction is one link: its hash covers its
// own fields and the previous entry's hash, so changing, deleting or inserting a row anywhere breaks the
// chain from there on. The database refuses UPDATE and DELETE (migration 0014); the chain catches what
// someone able to switch that off (a superuser) did anyway. What it cannot show is rows cut from the
// end: compare the head (`pss audit verify` prints it) with one recorded elsewhere.
import { createHash } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

export interface AuditEntry {
  transactionId: string;
  action: string;
  /** ISO 8601, millisecond precision (what timestamptz keeps). */
  at: string;
  actor: string;
  details?: Record<string, unknown>;
  rule?: string;
}

export interface ChainedEntry extends AuditEntry {
  seq: number;
  prevHash: string;
  hash: string;
}

/**
 * JSON with object keys sorted (UTF-16 code unit order), so jsonb's own key order cannot change a hash.
 * Built by concatenation: every audit entry of every transaction goes through it.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  for (const key of Object.keys(object).sort()) {
    const v = object[key];
    if (v === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

export function entryHash(seq: number, prevHash: string, e: AuditEntry): string {
  const content = canonicalJson({ seq, prev: prevHash, tx: e.transactionId, action: e.action, at: new Date(e.at).toISOString(), actor: e.actor, details: e.details ?? null, rule: e.rule ?? null });
  return createHash('sha256').update(content).digest('hex');
}

/** Links new entries after the chain's head. */
export function chain(head: { seq: number; hash: string }, entries: AuditEntry[]): ChainedEntry[] {
  let { seq, hash } = head;
  return entries.map((e) => {
    seq += 1;
    const linked = { ...e, seq, prevHash: hash, hash: entryHash(seq, hash, e) };
    hash = linked.hash;
    return linked;
  });
}

export interface ChainBreak {
  seq: number;
  transactionId: string;
  problem: string;
}

/** Walks stored entries in seq order from `prev` (the genesis for a full check), reporting every break. */
export function verifyChain(entries: ChainedEntry[], prev: { seq: number; hash: string } = { seq: 0, hash: GENESIS_HASH }): { breaks: ChainBreak[]; head: { seq: number; hash: string } } {
  const breaks: ChainBreak[] = [];
  let expectedSeq = prev.seq + 1;
  let prevHash = prev.hash;
  for (const e of entries) {
    if (e.seq !== expectedSeq) breaks.push({ seq: e.seq, transactionId: e.transactionId, problem: `entries ${expectedSeq} to ${e.seq - 1} are missing` });
    if (e.prevHash !== prevHash) breaks.push({ seq: e.seq, transactionId: e.transactionId, problem: 'does not link to the entry before it (prev_hash differs)' });
    if (entryHash(e.seq, e.prevHash, e) !== e.hash) breaks.push({ seq: e.seq, transactionId: e.transactionId, problem: 'content does not match its hash (the row was changed)' });
    expectedSeq = e.seq + 1;
    prevHash = e.hash;
  }
  return { breaks, head: { seq: expectedSeq - 1, hash: prevHash } };
}

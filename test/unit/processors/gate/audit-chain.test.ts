import { describe, expect, it } from 'vitest';
import { canonicalJson, chain, entryHash, GENESIS_HASH, verifyChain, type AuditEntry } from '../../../../processors/gate/audit-chain.ts';

const entry = (n: number): AuditEntry => ({ transactionId: `gtx_${n}`, action: 'system_decision', at: `2026-11-23T10:00:0${n}.000Z`, actor: 'system', details: { b: 1, a: [n] }, rule: 'r' });

describe('audit hash chain', () => {
  const linked = chain({ seq: 0, hash: GENESIS_HASH }, [entry(1), entry(2), entry(3)]);

  it('links each entry to the one before, and verifies an intact chain', () => {
    expect(linked.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(linked[1]!.prevHash).toBe(linked[0]!.hash);
    expect(verifyChain(linked).breaks).toEqual([]);
    expect(verifyChain(linked).head).toEqual({ seq: 3, hash: linked[2]!.hash });
  });

  it('does not depend on the key order of details (jsonb reorders keys)', () => {
    const reordered = linked.map((e) => ({ ...e, details: { a: e.details!.a, b: e.details!.b } }));
    expect(verifyChain(reordered).breaks).toEqual([]);
  });

  it('detects a changed, a deleted and a re-hashed entry', () => {
    const changed = linked.map((e, i) => (i === 1 ? { ...e, actor: 'mallory' } : e));
    expect(verifyChain(changed).breaks).toEqual([{ seq: 2, transactionId: 'gtx_2', problem: expect.stringContaining('changed') }]);
    const deleted = [linked[0]!, linked[2]!];
    expect(verifyChain(deleted).breaks.map((b) => b.seq)).toEqual([3, 3]);
    // Recomputing the changed row's own hash still breaks the link of the next one.
    const rehashed = chain({ seq: 1, hash: linked[0]!.hash }, [{ ...entry(2), actor: 'mallory' }]);
    expect(verifyChain([linked[0]!, rehashed[0]!, linked[2]!]).breaks).toEqual([{ seq: 3, transactionId: 'gtx_3', problem: expect.stringContaining('does not link') }]);
  });

  it('keeps the hashes of chains already stored: canonical JSON and entry hashes are pinned', () => {
    const details = { status: 'held', risk_score: 72.5, hold_reasons: ['seal_broken', 'ü"\\'], nested: { b: [1, null, { z: true, a: 'x' }], a: undefined }, decision: 'manual_review' };
    const e: AuditEntry = { transactionId: 'gtx_1', action: 'system_decision', at: '2026-11-25T10:00:00.123Z', actor: 'system:gate-processor', details, rule: 'seal broken: hold' };
    expect(entryHash(7, 'ab'.repeat(32), e)).toBe('e37daf5bbc013529c5a1171756f90d76f5d1a980fec4a39ddd1dfbd9516ec033');
    expect(entryHash(1, GENESIS_HASH, { transactionId: 't', action: 'override', at: '2026-11-25T10:00:00Z', actor: 'op-1' })).toBe('9379c0b2421b9bdc7c73c2a0443b252a62446b38abfeeee8802d6a56f7931e12');
    expect(canonicalJson({ b: [1, undefined, 'x'], a: { d: null, c: 'é' }, ä: 1, Z: 2 })).toBe('{"Z":2,"a":{"c":"é","d":null},"b":[1,null,"x"],"ä":1}');
  });
});

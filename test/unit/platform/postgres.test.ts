import { describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import { conflictBackoffMs, createPool, isConnectionLoss, isPostgresTimeout, isTransactionConflict, recentFailure } from '../../../platform/postgres.ts';

describe('isPostgresTimeout', () => {
  it('recognises statement timeouts, connections that do not answer and connection attempts that run out of time', () => {
    expect(isPostgresTimeout(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))).toBe(true);
    expect(isPostgresTimeout(new Error('Query read timeout'))).toBe(true);
    expect(isPostgresTimeout(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isPostgresTimeout(new Error('Connection terminated due to connection timeout'))).toBe(true);
  });

  it('leaves other failures alone', () => {
    expect(isPostgresTimeout(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isPostgresTimeout(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isPostgresTimeout(undefined)).toBe(false);
  });
});

describe('isTransactionConflict and conflictBackoffMs', () => {
  it('recognises deadlocks and serialization failures, nothing else', () => {
    expect(isTransactionConflict(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe(true);
    expect(isTransactionConflict(Object.assign(new Error('could not serialize access'), { code: '40001' }))).toBe(true);
    expect(isTransactionConflict(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isTransactionConflict(null)).toBe(false);
  });

  it('waits 10-50 ms before the first rerun, twice that before the next, and stops growing at 16 times', () => {
    expect([conflictBackoffMs(0, 0), conflictBackoffMs(0, 1)]).toEqual([10, 50]);
    expect([conflictBackoffMs(1, 0), conflictBackoffMs(1, 1)]).toEqual([20, 100]);
    expect(conflictBackoffMs(4, 1)).toBe(800);
    expect(conflictBackoffMs(9, 1)).toBe(800);
  });
});

describe('isConnectionLoss', () => {
  it('recognises a reset, a refusal, a server that ended the session and a client pg gave up on', () => {
    expect(isConnectionLoss(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isConnectionLoss(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isConnectionLoss(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isConnectionLoss(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
  });

  it('leaves failures of the query alone', () => {
    expect(isConnectionLoss(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isConnectionLoss(new Error('Query read timeout'))).toBe(false);
    expect(isConnectionLoss(undefined)).toBe(false);
  });
});

describe('recentFailure', () => {
  it('reports a timed-out query for two query timeouts after it, then forgets it', () => {
    // No connection is opened: the pool is only told that a client was released after a timeout.
    const pool = createPool('postgres://nobody@127.0.0.1:1/none', 1, undefined, { connectMs: 100, statementMs: 1_000 });
    expect(recentFailure(pool)).toBeUndefined();
    pool.emit('release', new Error('duplicate key'));
    expect(recentFailure(pool)).toBeUndefined();
    const at = Date.now();
    pool.emit('release', new Error('Query read timeout'));
    expect(recentFailure(pool, at + 1_500)).toMatch(/^a query timed out \d+\.\d s ago: Query read timeout$/);
    expect(recentFailure(pool, at + 5_000)).toBeUndefined();
  });

  it('reports a lost connection of the pool for ten seconds after it, beside a timeout', () => {
    const pool = createPool('postgres://nobody@127.0.0.1:1/none', 1, undefined, { connectMs: 100, statementMs: 30_000 });
    // A stand-in for a client the pool has just connected: the pool gives it its error listener.
    const client = new EventEmitter();
    pool.emit('connect', client);
    const at = Date.now();
    client.emit('error', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    expect(recentFailure(pool, at + 2_000)).toMatch(/^a connection was lost \d+\.\d s ago: read ECONNRESET$/);
    pool.emit('release', new Error('Query read timeout'));
    expect(recentFailure(pool, at + 2_000)).toMatch(/^a query timed out .*; a connection was lost .*ECONNRESET$/);
    expect(recentFailure(pool, at + 11_000)).toMatch(/^a query timed out [^;]*$/);
  });
});

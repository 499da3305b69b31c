import { describe, expect, it } from 'vitest';
import { createPool, isPostgresTimeout, recentTimeout } from '../../../platform/postgres.ts';

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

describe('recentTimeout', () => {
  it('reports a timed-out query for two query timeouts after it, then forgets it', () => {
    // No connection is opened: the pool is only told that a client was released after a timeout.
    const pool = createPool('postgres://nobody@127.0.0.1:1/none', 1, undefined, { connectMs: 100, statementMs: 1_000 });
    expect(recentTimeout(pool)).toBeUndefined();
    pool.emit('release', new Error('duplicate key'));
    expect(recentTimeout(pool)).toBeUndefined();
    const at = Date.now();
    pool.emit('release', new Error('Query read timeout'));
    expect(recentTimeout(pool, at + 1_500)).toMatch(/^a query timed out \d+\.\d s ago: Query read timeout$/);
    expect(recentTimeout(pool, at + 5_000)).toBeUndefined();
  });
});

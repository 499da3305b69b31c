import { describe, expect, it } from 'vitest';
import { WORK_BOUNDED_WAITING } from '../../../support/work-bounded.ts';
import { PREFIXES, hashPassword, idOf, matches, mint, verifyPassword } from '../../../../api/auth/secrets.ts';

describe('issued secrets', () => {
  it('have the prefix, a public id and 256 random bits, and only their hash is kept', () => {
    const s = mint(PREFIXES.test);
    expect(s.value).toMatch(/^svc_test_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(idOf(s.value, PREFIXES.test)).toBe(s.id);
    expect(matches(s.value, s.hash)).toBe(true);
    expect(matches(`${s.value.slice(0, -1)}${s.value.endsWith('A') ? 'B' : 'A'}`, s.hash)).toBe(false);
    expect(mint(PREFIXES.test).value).not.toBe(s.value);
  });

  it('are recognized only under their own prefix', () => {
    const access = mint(PREFIXES.access).value;
    expect(idOf(access, PREFIXES.access)).not.toBeNull();
    expect(idOf(access, PREFIXES.refresh)).toBeNull();
    expect(idOf(access.replace('svc_oauth_', 'svc_live_'), PREFIXES.production)).not.toBeNull();
    expect(idOf('svc_live_short', PREFIXES.production)).toBeNull();
  });
});

describe('operator passwords', () => {
  // Three scrypt hashes and two checks (N = 32768) on the thread pool: fixed work, but a wait.
  it('are hashed with scrypt and a salt, and verified', WORK_BOUNDED_WAITING, async () => {
    const hash = await hashPassword('harbour master 2024');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(hash).not.toContain('harbour');
    expect(await hashPassword('harbour master 2024')).not.toBe(hash);
    expect(await verifyPassword('harbour master 2024', hash)).toBe(true);
    expect(await verifyPassword('harbour master 2025', hash)).toBe(false);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { cidrList, clientAddressResolver, contains, normalizeAddress, parseCidr } from '../../../../api/http/client-ip.ts';

describe('parseCidr', () => {
  it('reads IPv4 and IPv6 ranges and bare addresses', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('203.0.113.9')).toEqual({ address: '203.0.113.9', prefix: 32, family: 'ipv4' });
    expect(parseCidr('2001:db8::/32')).toEqual({ address: '2001:db8::', prefix: 32, family: 'ipv6' });
    expect(parseCidr('::1')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' });
  });

  it('rejects what is not an address or range', () => {
    for (const bad of ['10.0.0.0/33', '2001:db8::/129', 'example.org', '10.0.0/8', '10.0.0.0/8/8', '10.0.0.0/-1', '10.0.0.0/', '']) {
      expect(parseCidr(bad), bad).toBeNull();
    }
  });
});

describe('allowlist membership', () => {
  const list = cidrList(['192.168.1.5/24', '2001:db8:abcd::/48'].map((c) => parseCidr(c)!));
  it('matches v4 (host bits ignored), v6, and v4 seen through a dual-stack socket', () => {
    expect(contains(list, '192.168.1.200')).toBe(true);
    expect(contains(list, '::ffff:192.168.1.7')).toBe(true);
    expect(contains(list, '192.168.2.1')).toBe(false);
    expect(contains(list, '2001:db8:abcd:ffff::1')).toBe(true);
    expect(contains(list, '2001:db8:abce::1')).toBe(false);
    expect(contains(list, 'garbage')).toBe(false);
  });

  it('normalizes IPv4-mapped IPv6 addresses only', () => {
    expect(normalizeAddress('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(normalizeAddress('2001:db8::1')).toBe('2001:db8::1');
  });
});

describe('clientAddressResolver', () => {
  it('ignores X-Forwarded-For when no proxy is trusted', () => {
    expect(clientAddressResolver([])('127.0.0.1', '203.0.113.1')).toBe('127.0.0.1');
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(clientAddressResolver(['10.0.0.1'])('198.51.100.1', '203.0.113.1')).toBe('198.51.100.1');
  });

  it('takes the right-most untrusted hop behind trusted proxies', () => {
    const resolve = clientAddressResolver(['10.0.0.0/8', '::1']);
    expect(resolve('10.0.0.1', '203.0.113.1')).toBe('203.0.113.1');
    expect(resolve('10.0.0.1', '1.1.1.1, 203.0.113.1, 10.0.0.2')).toBe('203.0.113.1');
    expect(resolve('::1', '2001:db8::5')).toBe('2001:db8::5');
    expect(resolve('10.0.0.1', 'not-an-ip')).toBe('10.0.0.1');
    expect(resolve('10.0.0.1', undefined)).toBe('10.0.0.1');
  });

  it('refuses a trusted proxy setting that is not an address', () => {
    expect(() => clientAddressResolver(['proxy.local'])).toThrow(/PSS_TRUSTED_PROXY/);
  });
});

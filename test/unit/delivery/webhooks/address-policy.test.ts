import { describe, expect, it } from 'vitest';
import { addressAllowed, classifyAddress, internalHostName } from '../../../../delivery/webhooks/address-policy.ts';
import { urlProblems } from '../../../../delivery/webhooks/webhook-rules.ts';

/** Addresses an attacker would try to reach internal services through a webhook, with the class each must get. */
const BYPASS_ATTEMPTS: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['2130706433', 'loopback'], // decimal
  ['0x7f000001', 'loopback'], // hex
  ['0177.0.0.1', 'loopback'], // octal
  ['0177.0000.0000.0001', 'loopback'],
  ['127.1', 'loopback'], // short
  ['127.0.1', 'loopback'],
  ['0x7f.1', 'loopback'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'], // IPv4-mapped
  ['::ffff:7f00:1', 'loopback'],
  ['[::ffff:127.0.0.1]', 'loopback'],
  ['::127.0.0.1', 'loopback'], // IPv4-compatible
  ['64:ff9b::7f00:1', 'loopback'], // NAT64
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['2002:7f00:1::', 'loopback'], // 6to4
  ['0.0.0.0', 'unspecified'],
  ['0', 'unspecified'],
  ['::', 'unspecified'],
  ['10.0.0.1', 'private'],
  ['012.0.0.1', 'private'], // octal 10
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['3232235777', 'private'], // 192.168.1.1 in decimal
  ['::ffff:192.168.1.1', 'private'],
  ['64:ff9b::10.1.2.3', 'private'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['169.254.169.254', 'metadata'],
  ['0xa9fea9fe', 'metadata'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['fd00:ec2::254', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['169.254.1.1', 'link_local'],
  ['fe80::1', 'link_local'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.254', 'cgnat'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['224.0.0.1', 'multicast'],
  ['ff02::1', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['2001::1', 'reserved'], // Teredo
  ['fe80::1%eth0', 'not_an_address'],
  ['1.2.3.4.5', 'not_an_address'],
  ['256.1.1.1', 'not_an_address'],
];

const PUBLIC = ['93.184.216.34', '8.8.8.8', '1.1.1.1', '100.63.255.255', '198.20.0.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'];

describe('classifyAddress', () => {
  it('has at least 30 bypass attempts in its table', () => {
    expect(BYPASS_ATTEMPTS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(BYPASS_ATTEMPTS)('classifies %s as %s, which webhooks may not reach', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
    expect(addressAllowed(classifyAddress(address), false)).toBe(false);
  });

  it.each(PUBLIC)('lets public %s through', (address) => {
    expect(classifyAddress(address)).toBe('public');
    expect(addressAllowed('public', false)).toBe(true);
  });

  it('allows loopback, and only loopback, when the development setting says so', () => {
    expect(addressAllowed(classifyAddress('127.0.0.1'), true)).toBe(true);
    expect(addressAllowed(classifyAddress('::ffff:127.0.0.1'), true)).toBe(true);
    expect(addressAllowed(classifyAddress('10.0.0.1'), true)).toBe(false);
    expect(addressAllowed(classifyAddress('169.254.169.254'), true)).toBe(false);
  });

  it('knows internal names', () => {
    expect(internalHostName('localhost')).toBe(true);
    expect(internalHostName('LOCALHOST.')).toBe(true);
    expect(internalHostName('api.localhost')).toBe(true);
    expect(internalHostName('metadata.google.internal')).toBe(true);
    expect(internalHostName('hooks.example.com')).toBe(false);
  });
});

describe('urlProblems', () => {
  const refused = (url: string, allowLoopback = false) => expect(urlProblems(url, allowLoopback), url).toHaveLength(1);
  const accepted = (url: string, allowLoopback = false) => expect(urlProblems(url, allowLoopback), url).toEqual([]);

  it('refuses literal internal hosts however they are spelled', () => {
    for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '0177.0.0.1', '127.1', '[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '10.1.2.3', '169.254.169.254', '[fd00:ec2::254]', '100.64.1.1', '198.18.0.1', '[64:ff9b::a9fe:a9fe]', 'localhost', 'metadata.google.internal']) {
      refused(`https://${host}/hook`);
    }
  });

  it('wants https, plain http only to loopback with the development setting', () => {
    accepted('https://hooks.example.com/in');
    refused('http://hooks.example.com/in');
    refused('http://hooks.example.com/in', true);
    accepted('http://127.0.0.1:8080/in', true);
    accepted('http://localhost:8080/in', true);
    refused('http://127.0.0.1:8080/in');
    refused('ftp://hooks.example.com/in');
    refused('https://user:pw@hooks.example.com/in');
    refused('not a url');
  });
});

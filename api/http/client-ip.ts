import { BlockList, isIP } from 'node:net';

/**
 * The caller's address for IP allowlists. X-Forwarded-For is believed only when the socket peer is a
 * configured trusted proxy (PSS_TRUSTED_PROXY); the list is walked from the right, skipping trusted
 * proxies, and the first untrusted hop is the client (the same rule as proxy-addr).
 */

export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Parses "a.b.c.d/n", "v6::/n" or a bare address (a single host). Returns null when invalid. */
export function parseCidr(text: string): Cidr | null {
  const [address = '', prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

export function formatCidr(cidr: Cidr): string {
  return `${cidr.address}/${cidr.prefix}`;
}

/** An IPv4 address seen through a dual-stack socket ("::ffff:10.0.0.1") is the IPv4 address. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped?.[1] ?? address;
}

export function cidrList(cidrs: Cidr[]): BlockList {
  const list = new BlockList();
  for (const c of cidrs) list.addSubnet(c.address, c.prefix, c.family);
  return list;
}

export function contains(list: BlockList, address: string): boolean {
  const normalized = normalizeAddress(address);
  const version = isIP(normalized);
  if (version === 0) return false;
  return list.check(normalized, version === 4 ? 'ipv4' : 'ipv6');
}

/** Builds the resolver once from the trusted proxy setting (addresses or CIDRs). */
export function clientAddressResolver(trustedProxies: string[]): (socketAddress: string | undefined, forwardedFor: string | undefined) => string {
  const cidrs = trustedProxies.map((t) => {
    const c = parseCidr(t);
    if (!c) throw new Error(`PSS_TRUSTED_PROXY: "${t}" is not an IP address or CIDR range`);
    return c;
  });
  const trusted = cidrList(cidrs);
  return (socketAddress, forwardedFor) => {
    let client = normalizeAddress(socketAddress ?? '');
    if (cidrs.length === 0 || !contains(trusted, client) || !forwardedFor) return client;
    const hops = forwardedFor.split(',').map((h) => normalizeAddress(h.trim())).filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i] as string;
      if (isIP(hop) === 0) return client;
      client = hop;
      if (!contains(trusted, hop)) return client;
    }
    return client;
  };
}

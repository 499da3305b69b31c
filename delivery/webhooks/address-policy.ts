// Which network addresses a webhook may reach (issue 14, SSRF). Pure: the dispatcher applies it to the
// address it actually connects to, the API to a URL's literal host. Everything that is not a public
// unicast address is refused; loopback only when the development setting allows it.

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'benchmarking'
  | 'metadata'
  | 'multicast'
  | 'reserved'
  | 'unspecified'
  | 'not_an_address';

interface Range4 {
  base: number;
  bits: number;
  cls: AddressClass;
}

const range4 = (cidr: string, cls: AddressClass): Range4 => {
  const [ip, bits] = cidr.split('/') as [string, string];
  return { base: parseIPv4Strict(ip) as number, bits: Number(bits), cls };
};

/** IANA special-purpose IPv4 registry, the most specific first. */
const IPV4_RANGES: Range4[] = [
  range4('169.254.169.254/32', 'metadata'),
  range4('100.100.100.200/32', 'metadata'), // Alibaba Cloud
  range4('0.0.0.0/32', 'unspecified'),
  range4('0.0.0.0/8', 'reserved'),
  range4('10.0.0.0/8', 'private'),
  range4('100.64.0.0/10', 'cgnat'),
  range4('127.0.0.0/8', 'loopback'),
  range4('169.254.0.0/16', 'link_local'),
  range4('172.16.0.0/12', 'private'),
  range4('192.0.0.0/24', 'reserved'),
  range4('192.0.2.0/24', 'reserved'),
  range4('192.88.99.0/24', 'reserved'),
  range4('192.168.0.0/16', 'private'),
  range4('198.18.0.0/15', 'benchmarking'),
  range4('198.51.100.0/24', 'reserved'),
  range4('203.0.113.0/24', 'reserved'),
  range4('224.0.0.0/4', 'multicast'),
  range4('240.0.0.0/4', 'reserved'),
];

/**
 * An IPv4 address in the dotted-quad form only (what DNS answers). Browsers' and inet_aton's other
 * spellings (decimal, octal, hex, fewer parts) are read by parseIPv4Loose.
 */
function parseIPv4Strict(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

/** inet_aton's forms: 1 to 4 parts, each decimal, octal (leading 0) or hex (0x); the last part fills the rest. */
export function parseIPv4Loose(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length < 1 || parts.length > 4) return undefined;
  const values: number[] = [];
  for (const p of parts) {
    let v: number;
    if (/^0x[0-9a-f]*$/i.test(p)) v = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]*$/.test(p)) v = parseInt(p, 8);
    else if (/^[1-9]\d*$/.test(p)) v = Number(p);
    else return undefined;
    values.push(v);
  }
  const last = values.pop() as number;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return undefined;
  return values.reduce((n, v, i) => n + v * 256 ** (3 - i), 0) + last;
}

function classify4(n: number): AddressClass {
  for (const r of IPV4_RANGES) {
    const size = 2 ** (32 - r.bits);
    if (n >= r.base && n < r.base + size) return r.cls;
  }
  return 'public';
}

/** Eight 16-bit groups, or undefined. Accepts `::` and a dotted IPv4 tail; a zone id (%eth0) is refused. */
function parseIPv6(text: string): number[] | undefined {
  if (text.includes('%')) return undefined;
  let hex = text;
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIPv4Strict(dotted[2] as string);
    if (v4 === undefined) return undefined;
    hex = `${dotted[1]}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const halves = hex.split('::');
  if (halves.length > 2) return undefined;
  const group = (s: string) => (s === '' ? [] : s.split(':'));
  const left = group(halves[0] as string);
  const right = halves.length === 2 ? group(halves[1] as string) : [];
  if (![...left, ...right].every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  const given = left.length + right.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  const zeros = new Array<number>(8 - given).fill(0);
  return [...left, ...zeros.map(String), ...right].map((g) => parseInt(g, 16));
}

const v4Of = (g: number[], at: number) => (g[at] as number) * 65536 + (g[at + 1] as number);
const startsWith = (g: number[], prefix: number[]) => prefix.every((p, i) => g[i] === p);

function classify6(g: number[]): AddressClass {
  const [a = 0] = g;
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  // Forms that carry an IPv4 address are judged by it: IPv4-mapped (::ffff:0:0/96), IPv4-compatible
  // (::/96, deprecated), IPv4-translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002::/16).
  if (startsWith(g, [0, 0, 0, 0, 0, 0xffff])) return classify4(v4Of(g, 6));
  if (startsWith(g, [0, 0, 0, 0, 0, 0])) return classify4(v4Of(g, 6));
  if (startsWith(g, [0, 0, 0, 0, 0xffff, 0])) return classify4(v4Of(g, 6));
  if (startsWith(g, [0x64, 0xff9b, 0, 0, 0, 0])) return classify4(v4Of(g, 6));
  if (startsWith(g, [0x64, 0xff9b, 1])) return 'reserved';
  if (a === 0x2002) return classify4(v4Of(g, 1));
  if (startsWith(g, [0x2001, 0])) return 'reserved'; // Teredo: the client address is obfuscated inside
  if (startsWith(g, [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254])) return 'metadata'; // AWS IMDS over IPv6
  if ((a & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((a & 0xffc0) === 0xfe80) return 'link_local';
  if ((a & 0xffc0) === 0xfec0) return 'private'; // site-local, deprecated
  if ((a & 0xff00) === 0xff00) return 'multicast';
  if (startsWith(g, [0x2001, 0xdb8])) return 'reserved'; // documentation
  if (startsWith(g, [0x100, 0, 0, 0])) return 'reserved'; // discard-only
  if (startsWith(g, [0x2001, 2, 0])) return 'benchmarking';
  if ((a & 0xe000) !== 0x2000) return 'reserved'; // outside global unicast 2000::/3
  return 'public';
}

/**
 * The class of an address as DNS returns it or as written in a URL host: dotted IPv4, IPv6 (with or
 * without brackets), and the decimal, octal, hex and short IPv4 spellings.
 */
export function classifyAddress(text: string): AddressClass {
  const host = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (host.includes(':')) {
    const groups = parseIPv6(host);
    return groups === undefined ? 'not_an_address' : classify6(groups);
  }
  const v4 = parseIPv4Loose(host);
  return v4 === undefined ? 'not_an_address' : classify4(v4);
}

/** Whether a webhook may connect to this address; loopback only in development (docs/events-and-delivery.md "SSRF protection"). */
export function addressAllowed(cls: AddressClass, allowLoopback: boolean): boolean {
  return cls === 'public' || (allowLoopback && cls === 'loopback');
}

/** Names that are internal by definition, refused before any lookup. */
export function internalHostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.internal') || h.endsWith('.local') || h === 'metadata' || h === 'instance-data';
}

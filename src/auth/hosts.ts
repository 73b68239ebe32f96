/**
 * Host names in OAuth client metadata (docs/oauth.md): whether a URL's host
 * is a well-formed host name (redirect URIs, which go into the consent
 * page's CSP), and whether it is on the public internet (client ID metadata
 * documents, which the server fetches).
 *
 * Pure functions over a WHATWG URL's `hostname`, which is lower case,
 * punycoded, with IPv4 in dotted decimal (`2130706433` is `127.0.0.1`) and
 * IPv6 in brackets.
 */

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Whether `hostname` is a DNS name of letter-digit-hyphen labels, an IPv4 address or a bracketed IPv6 address. */
export function isHostName(hostname: string): boolean {
  if (IPV4.test(hostname)) return true;
  if (hostname.startsWith("[")) return ipv6Groups(hostname) !== undefined;
  const name = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  return name.length > 0 && name.length <= 253 && name.split(".").every((l) => LABEL.test(l));
}

/** IPv4 ranges that are not the public internet (RFC 6890): [first octets, prefix length]. */
const PRIVATE_V4: readonly [number[], number][] = [
  [[0], 8], // this network
  [[10], 8],
  [[100, 64], 10], // carrier-grade NAT
  [[127], 8], // loopback
  [[169, 254], 16], // link-local
  [[172, 16], 12],
  [[192, 0, 0], 24],
  [[192, 0, 2], 24], // documentation
  [[192, 88, 99], 24],
  [[192, 168], 16],
  [[198, 18], 15], // benchmarking
  [[198, 51, 100], 24],
  [[203, 0, 113], 24],
  [[224], 3], // multicast, reserved and broadcast: 224.0.0.0 and up
];

function publicV4(octets: readonly number[]): boolean {
  if (octets.some((o) => o > 255)) return false;
  const value = octets.reduce((v, o) => v * 256 + o, 0);
  return !PRIVATE_V4.some(([start, bits]) => {
    const base = [0, 1, 2, 3].reduce((v, i) => v * 256 + (start[i] ?? 0), 0);
    const size = 2 ** (32 - bits);
    return value >= base && value < base + size;
  });
}

/** The eight 16-bit groups of a bracketed IPv6 address, or undefined when it is not one. */
function ipv6Groups(hostname: string): number[] | undefined {
  const m = /^\[([0-9a-f:.]+)\]$/.exec(hostname);
  if (!m?.[1]) return undefined;
  let text = m[1];
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (s: string | undefined) => (s ? s.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? Number.parseInt(g, 16) : Number.NaN)) : []);
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 1) return undefined;
  const groups = [...head, ...Array<number>(halves.length === 1 ? 0 : fill).fill(0), ...tail];
  return groups.some(Number.isNaN) ? undefined : groups;
}

/** Global unicast (2000::/3) outside documentation, Teredo and 6to4 (which can wrap a private IPv4). */
function publicV6(g: readonly number[]): boolean {
  const [a = 0, b = 0] = g;
  if (a < 0x2000 || a > 0x3fff) return false;
  if (a === 0x2001 && (b === 0x0db8 || b === 0)) return false;
  return a !== 0x2002;
}

/** Suffixes of names that resolve to this machine or a private network, or are never public (RFC 6761, RFC 8375, wildcard DNS to any address). */
const PRIVATE_SUFFIXES = [
  "localhost",
  "local",
  "internal",
  "intranet",
  "lan",
  "home",
  "corp",
  "private",
  "home.arpa",
  "arpa",
  "test",
  "invalid",
  "example",
  "onion",
  "nip.io",
  "sslip.io",
  "xip.io",
  "localtest.me",
  "lvh.me",
  "localhost.direct",
];

/**
 * Whether `hostname` is on the public internet, as far as the name itself
 * tells: not a loopback, private, link-local or otherwise reserved address,
 * and not a name that resolves to one (`localhost`, `*.local`, a single
 * label, a wildcard-DNS name such as `127.0.0.1.nip.io`). A public name
 * that the DNS points at a private address is for the platform to refuse
 * (docs/oauth.md).
 */
export function isPublicHost(hostname: string): boolean {
  const v4 = IPV4.exec(hostname);
  if (v4) return publicV4(v4.slice(1).map(Number));
  if (hostname.startsWith("[")) {
    const groups = ipv6Groups(hostname);
    return groups !== undefined && publicV6(groups);
  }
  if (!isHostName(hostname)) return false;
  const name = hostname.replace(/\.$/, "");
  if (!name.includes(".")) return false;
  return !PRIVATE_SUFFIXES.some((s) => name === s || name.endsWith(`.${s}`));
}

/**
 * What kind of address a host name or a peer is: loopback (this machine),
 * local or private (not reachable from the internet), or public. The one
 * reading for every such check: the client's (http:// only on loopback; is
 * the service the emulator on this machine), and the emulator's (its listen
 * host, the peers its test controls answer, the links given to
 * POST /v1/media/imports).
 *
 * Loopback, defined once (loopbackIp): 127.0.0.0/8, ::1, and 127.0.0.0/8
 * written as an IPv4-mapped IPv6 address (::ffff:127.0.0.1: how a dual-stack
 * socket reports an IPv4 peer; the packet came from IPv4 loopback). Other
 * IPv6 forms that carry 127.0.0.1 are not loopback: ::127.0.0.1
 * (IPv4-compatible, deprecated), 64:ff9b::7f00:1 (NAT64), 2002:7f00:1:: (6to4)
 * are addresses of other hosts, which any remote peer may use as its source.
 * Two questions ask it:
 * - isLoopbackPeer: a socket's remote address (an IP address, never a name);
 * - isLoopbackHost: a URL's host or a listen host, where a name may stand:
 *   `localhost` and `*.localhost` (RFC 6761) count, brackets and a trailing
 *   dot are taken off.
 *
 * Names are compared as a resolver reads them: case-insensitive, and a
 * trailing dot (`localhost.`, `youtube.com.`: the fully qualified form)
 * names the same host. For the private-host check (where an import link may
 * lead) an IPv6 address that carries an IPv4 one (mapped, compatible, NAT64)
 * is read as that IPv4 address: there the cautious reading is the wider one.
 *
 * No node:net here: the client's start-up loads this module, and a base URL
 * on localhost or 127.0.0.1 is answered from a set before anything is parsed.
 */

const DEC_OCTET = /^(?:0|[1-9]\d{0,2})$/;

/** The 4 octets of a dotted-quad IPv4 address (no leading zeros, each at most 255), or null. */
function ipv4Octets(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => DEC_OCTET.test(p))) return null;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/** The 8 groups of an IPv6 address (brackets and any zone removed by the caller), or null when it is not one. */
export function ipv6Groups(text: string): number[] | null {
  if (!text.includes(':')) return null;
  let s = text;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    // A dotted quad in the last 32 bits (::ffff:127.0.0.1): two groups.
    const v4 = ipv4Octets(tail);
    if (!v4) return null;
    s = `${s.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const groups = part.split(':');
    return groups.every((g) => HEX_GROUP.test(g)) ? groups.map((g) => parseInt(g, 16)) : null;
  };
  const front = parse(halves[0]!);
  const back = halves.length === 2 ? parse(halves[1]!) : [];
  if (!front || !back) return null;
  const count = front.length + back.length;
  if (halves.length === 1) return count === 8 ? front : null;
  // "::" stands for one group of zeros at least.
  return count <= 7 ? [...front, ...new Array<number>(8 - count).fill(0), ...back] : null;
}

/** The 4 or 16 bytes of an IP address (IPv4 dotted quad, or IPv6 without brackets; a zone is left aside), or null. */
export function ipBytes(text: string): number[] | null {
  const v4 = ipv4Octets(text);
  if (v4) return v4;
  const groups = ipv6Groups(text.replace(/%.*$/, ''));
  return groups ? groups.flatMap((g) => [g >> 8, g & 0xff]) : null;
}

/** Whether an IP address (IPv4 dotted quad or IPv6, without brackets) is loopback: the one definition (file comment). */
export function loopbackIp(address: string): boolean {
  const v4 = ipv4Octets(address);
  if (v4) return v4[0] === 127;
  const g = ipv6Groups(address);
  if (!g) return false;
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 7) && g[7] === 1) return true; // ::1
  return zeros(0, 5) && g[5] === 0xffff && g[6]! >> 8 === 127; // ::ffff:127.0.0.0/104
}

/** A socket's remote address (an IP address as Node reports it) is this machine's loopback; an unknown peer (its connection gone) is not. */
export function isLoopbackPeer(address: string | undefined): boolean {
  return address !== undefined && loopbackIp(address.toLowerCase());
}

// The usual loopback hosts, answered before anything is parsed.
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** A URL's host (or a listen host) names this machine's loopback: `localhost`, `*.localhost`, or a loopback address. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(h)) return true;
  const bare = h.replace(/^\[(.*)\]$/, '$1').replace(/\.+$/, '');
  return bare === 'localhost' || bare.endsWith('.localhost') || loopbackIp(bare);
}

/** The IPv4 address an IPv6 address carries (mapped, compatible or NAT64), or null. */
function embeddedIpv4(groups: number[]): string | null {
  const zeros = (from: number, to: number): boolean => groups.slice(from, to).every((g) => g === 0);
  const mapped = zeros(0, 5) && groups[5] === 0xffff;
  // ::a.b.c.d, but not :: and ::1 (unspecified and loopback in their own right).
  const compatible = zeros(0, 6) && (groups[6] !== 0 || groups[7]! > 1);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6);
  if (!mapped && !compatible && !nat64) return null;
  const [hi, lo] = [groups[6]!, groups[7]!];
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/**
 * A host name or address as the private-host check compares it: lower case, without brackets or
 * trailing dots; an IPv6 address that carries an IPv4 one becomes that IPv4 address.
 */
export function normaliseHost(host: string): string {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.+$/, '');
  const groups = ipv6Groups(h);
  return (groups && embeddedIpv4(groups)) ?? h;
}

/** Whether a host (of an import link) is local or private: a service on the internet cannot reach it. */
export function isPrivateHost(host: string): boolean {
  const h = normaliseHost(host);
  if (h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal')) return true;
  const v4 = ipv4Octets(h);
  if (v4) {
    const [a, b] = v4 as [number, number];
    return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
  }
  const groups = ipv6Groups(h);
  if (!groups) return false;
  const unspecifiedOrLoopback = groups.slice(0, 7).every((g) => g === 0) && groups[7]! <= 1;
  const uniqueLocal = (groups[0]! & 0xfe00) === 0xfc00; // fc00::/7
  const linkLocal = (groups[0]! & 0xffc0) === 0xfe80; // fe80::/10
  return unspecifiedOrLoopback || uniqueLocal || linkLocal;
}

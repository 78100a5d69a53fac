/**
 * What kind of address a host name or a peer is: loopback (this machine),
 * local or private (not reachable from the internet), or public. One
 * reading for every check of the emulator: the listen host and the peers of
 * the test controls, and the links given to POST /v1/media/imports.
 *
 * Names are compared as a resolver reads them: case-insensitive, and a
 * trailing dot (`localhost.`, `youtube.com.`: the fully qualified form)
 * names the same host. An IPv6 address that carries an IPv4 one (mapped
 * `::ffff:127.0.0.1`, compatible `::127.0.0.1`, NAT64 `64:ff9b::127.0.0.1`)
 * is read as that IPv4 address.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** The 8 groups of an IPv6 address (text as Node and the URL parser write it, brackets removed), or null. */
function ipv6Groups(text: string): number[] | null {
  if (!isIPv6(text)) return null;
  let s = text;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.includes('::') ? s.split('::') as [string, string] : [s, undefined];
  const part = (x: string | undefined): number[] => (x ? x.split(':').map((g) => parseInt(g, 16)) : []);
  const front = part(head);
  const back = part(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
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
 * A host name or address as it is compared: lower case, without brackets or trailing dots;
 * an IPv6 address that carries an IPv4 one becomes that IPv4 address.
 */
export function normaliseHost(host: string): string {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.+$/, '');
  const groups = ipv6Groups(h);
  return (groups && embeddedIpv4(groups)) ?? h;
}

function ipv4Octets(h: string): number[] | null {
  return isIPv4(h) ? h.split('.').map(Number) : null;
}

/**
 * Whether an address (a peer's, as the socket reports it, or a listen host) is this machine's
 * loopback: 127.0.0.0/8 or ::1, in any of their IPv6 forms. `localhost` counts; an unknown
 * peer (undefined: its connection is gone) does not.
 */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const h = normaliseHost(address);
  if (h === 'localhost') return true;
  const v4 = ipv4Octets(h);
  if (v4) return v4[0] === 127;
  const groups = ipv6Groups(h);
  return groups !== null && groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1;
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

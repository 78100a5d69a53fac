/**
 * A second host for tests that need a peer other than loopback: a network
 * namespace of the test's own, joined to this machine by a veth pair on a
 * /30 of the benchmarking range (198.18.0.0/15). Traffic between the two
 * never leaves the machine. Needs root and iproute2 (as CI has); without
 * them it throws, so a test that needs it fails rather than skips.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';

export interface TestHost {
  /** This machine's address on the link: where the test host reaches a server listening on 0.0.0.0. */
  hostAddress: string;
  /** The test host's own address: what a server here sees as the peer. */
  peerAddress: string;
  /** Its network namespace's name, for `ip netns exec NAME ...`. */
  namespace: string;
  /** curl run inside the test host (asynchronously: the server may be in this process): the HTTP status and body of a GET. */
  get(url: string, headers?: Record<string, string>): Promise<{ status: number; body: string }>;
  remove(): void;
}

const ip = (...args: string[]): string => execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export function createTestHost(): TestHost {
  const id = `${process.pid % 100_000}`;
  const ns = `vp-${id}`;
  const outside = `vph${id}`;
  const inside = `vpn${id}`;
  // One /30 per process: 198.18.x.y, x.y from the pid, so parallel test files never share one.
  const n = (process.pid % 16_000) * 4;
  const base = `198.${18 + (n >> 16)}.${(n >> 8) & 255}`;
  const hostAddress = `${base}.${(n & 255) + 1}`;
  const peerAddress = `${base}.${(n & 255) + 2}`;
  try {
    ip('netns', 'add', ns);
    ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
    ip('link', 'set', inside, 'netns', ns);
    ip('addr', 'add', `${hostAddress}/30`, 'dev', outside);
    ip('link', 'set', outside, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${peerAddress}/30`, 'dev', inside);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', inside, 'up');
  } catch (err) {
    remove();
    throw new Error(`could not make a test host (a network namespace needs root and iproute2): ${(err as Error).message}`);
  }
  function remove(): void {
    try { ip('netns', 'del', ns); } catch { /* not made */ }
    try { ip('link', 'del', outside); } catch { /* gone with the namespace */ }
  }
  return {
    hostAddress,
    peerAddress,
    namespace: ns,
    async get(url, headers = {}) {
      const h = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
      const { stdout: out } = await promisify(execFile)('ip', ['netns', 'exec', ns, 'curl', '-sS', '--max-time', '10', ...h, '-w', '\n%{http_code}', url], { encoding: 'utf8' });
      const cut = out.lastIndexOf('\n');
      return { status: Number(out.slice(cut + 1)), body: out.slice(0, cut) };
    },
    remove,
  };
}

/** Two network namespaces of the test's own joined by a veth pair, on IPv6: a server's and a peer's. */
export interface Ipv6Pair {
  /** The server namespace's address on the link (where the peer reaches a server listening on ::). */
  serverAddress: string;
  /** The peer's own address on the link. */
  peerAddress: string;
  /** Runs a program inside the server namespace (its loopback is up): the server under test. */
  spawnInServer(command: string, args: string[]): ChildProcess;
  /** curl in the peer namespace, its source address `from` (one of `sources`, or the peer's own): status and body. */
  get(url: string, opts?: { from?: string; headers?: Record<string, string> }): Promise<{ status: number; body: string }>;
  /** curl in the server namespace itself (a loopback peer when the URL names 127.0.0.1 or ::1). */
  getInServer(url: string): Promise<{ status: number; body: string }>;
  remove(): void;
}

async function curlIn(ns: string, url: string, extra: string[]): Promise<{ status: number; body: string }> {
  const { stdout: out } = await promisify(execFile)('ip', ['netns', 'exec', ns, 'curl', '-sS', '-g', '--max-time', '10', ...extra, '-w', '\n%{http_code}', url], { encoding: 'utf8' });
  const cut = out.lastIndexOf('\n');
  return { status: Number(out.slice(cut + 1)), body: out.slice(0, cut) };
}

/**
 * An IPv6 link between two namespaces (so that no route of this machine's is touched), the peer
 * holding `sources` besides its own address: addresses such as 64:ff9b::7f00:1 (NAT64) that embed
 * 127.0.0.1 without being loopback, each routed back to the peer inside the server namespace.
 * Needs root and iproute2; throws without them.
 */
export function createIpv6Pair(sources: string[] = []): Ipv6Pair {
  const id = `${process.pid % 100_000}`;
  const srv = `vp6s-${id}`;
  const peer = `vp6p-${id}`;
  const prefix = `fd76:7069:${(process.pid % 65_536).toString(16)}:1`;
  const serverAddress = `${prefix}::1`;
  const peerAddress = `${prefix}::2`;
  try {
    ip('netns', 'add', srv);
    ip('netns', 'add', peer);
    ip('-n', srv, 'link', 'add', 'vp6s', 'type', 'veth', 'peer', 'name', 'vp6p', 'netns', peer);
    ip('-n', srv, 'link', 'set', 'lo', 'up');
    ip('-n', srv, 'addr', 'add', `${serverAddress}/64`, 'dev', 'vp6s', 'nodad');
    ip('-n', srv, 'link', 'set', 'vp6s', 'up');
    ip('-n', peer, 'addr', 'add', `${peerAddress}/64`, 'dev', 'vp6p', 'nodad');
    ip('-n', peer, 'link', 'set', 'vp6p', 'up');
    for (const a of sources) {
      ip('-n', peer, 'addr', 'add', `${a}/128`, 'dev', 'vp6p', 'nodad');
      ip('-n', srv, '-6', 'route', 'add', `${a}/128`, 'via', peerAddress, 'dev', 'vp6s');
    }
  } catch (err) {
    remove();
    throw new Error(`could not make an IPv6 pair of network namespaces (needs root and iproute2): ${(err as Error).message}`);
  }
  function remove(): void {
    for (const ns of [srv, peer]) {
      try { ip('netns', 'del', ns); } catch { /* not made */ }
    }
  }
  return {
    serverAddress,
    peerAddress,
    spawnInServer: (command, args) => spawn('ip', ['netns', 'exec', srv, command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }),
    get: (url, opts = {}) =>
      curlIn(peer, url, [...(opts.from ? ['--interface', opts.from] : []), ...Object.entries(opts.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`])]),
    getInServer: (url) => curlIn(srv, url, []),
    remove,
  };
}

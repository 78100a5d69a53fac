/**
 * A second host for tests that need a peer other than loopback: a network
 * namespace of the test's own, joined to this machine by a veth pair on a
 * /30 of the benchmarking range (198.18.0.0/15). Traffic between the two
 * never leaves the machine. Needs root and iproute2 (as CI has); without
 * them it throws, so a test that needs it fails rather than skips.
 */
import { execFile, execFileSync } from 'node:child_process';
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

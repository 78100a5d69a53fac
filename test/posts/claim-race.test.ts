/**
 * Claiming a command (src/posts/post/live-run.ts) against a run that ran whole
 * between this run's look for cut-off runs and its claim: a run stopped (SIGSTOP)
 * or starved of CPU right there, while the same command ran beside it and ended
 * not knowing whether it had made its upload or post. The claim looks again once
 * held, and continues that run under its key: the service replays what it made
 * (test/reliability/kill-loop.test.ts met this on a loaded machine: one post,
 * two videos). The journal's run memory is the real one, on a directory of its own.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMemory } from '../../src/journal/runs.js';
import type { RunMemory } from '../../src/journal/journal-types.js';
import { claimCommand } from '../../src/posts/post/live-run.js';
import type { Session } from '../../src/session/session.js';
import { realClock } from '../../src/cli/run/context.js';

const ctx = { profile: 'default', base_url: 'http://127.0.0.1:9/v1', key: 'abcdef012345' };
const what = { post: 'clip.mp4 to linkedin' };

function memories() {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-claim-race-'));
  const open = () => runMemory({ dir, now: () => Date.now(), ctx, what });
  return { first: open(), beside: open() };
}

function session(said: string[]): Session {
  return { clock: realClock, signal: new AbortController().signal, log: { info: (m: string) => said.push(m) } } as unknown as Session;
}

/** A run of the command in `memory`, whole: it claims, notes its key before its first write, and ends with the outcome unknown (its note kept, no process holding it). */
async function cutOffRun(memory: RunMemory, key: string, started: number): Promise<void> {
  expect(await memory.claim(key, false)).toEqual([]);
  expect(await memory.open({ key, started })).toBe(true);
  memory.end(key, 'unknown');
}

/** `memory`, counting its claims. */
function countingClaims(memory: RunMemory): { memory: RunMemory; claims: () => number } {
  let claims = 0;
  return { memory: { ...memory, claim: (key, sameKey) => (claims++, memory.claim(key, sameKey)) }, claims: () => claims };
}

/** `memory` whose first claim lets `between` run first, as if this run stopped right before claiming. */
function stoppedBeforeClaim(memory: RunMemory, between: () => Promise<void>): RunMemory {
  let first = true;
  return {
    ...memory,
    claim: async (key, sameKey) => {
      if (first) {
        first = false;
        await between();
      }
      return memory.claim(key, sameKey);
    },
  };
}

describe('claiming a command another run of it went through meanwhile', () => {
  it('a run cut off between the look and the claim (it ended not knowing): its key is taken, as when its note was there first', async () => {
    const { first, beside } = memories();
    const said: string[] = [];
    // The same command beside it, whole, ending at its deadline not knowing.
    const racing = stoppedBeforeClaim(first, () => cutOffRun(beside, 'vp-beside', Date.now()));
    const claimed = await claimCommand(session(said), racing, { key: 'vp-first', given: false }, async () => undefined, { publishAtFlag: false, startedAt: Date.now() - 1000 });
    expect(claimed.earlier).toMatchObject({ key: 'vp-beside', ended: true });
    expect(claimed.waited).toBeUndefined();
    // Held under that key now: another run of the command finds it live.
    expect((await beside.running()).map((r) => r.key)).toEqual(['vp-beside']);
    first.end('vp-beside', 'known');
  });

  it('nothing ran meanwhile: its own key, claimed once', async () => {
    const { first, beside } = memories();
    const counted = countingClaims(first);
    const claimed = await claimCommand(session([]), counted.memory, { key: 'vp-first', given: false }, async () => undefined, { publishAtFlag: false, startedAt: Date.now() });
    expect(claimed).toEqual({});
    expect(counted.claims()).toBe(1);
    expect((await beside.running()).map((r) => r.key)).toEqual(['vp-first']);
    first.end('vp-first', 'known');
  });

  it('two cut-off runs of the command: the newer is taken, once (the older, free again once this run holds the newer, is not taken instead)', async () => {
    const { first, beside } = memories();
    const now = Date.now();
    await cutOffRun(beside, 'vp-older', now - 60_000);
    await cutOffRun(beside, 'vp-newer', now - 1000);
    const counted = countingClaims(first);
    const claimed = await claimCommand(session([]), counted.memory, { key: 'vp-first', given: false }, async () => undefined, { publishAtFlag: false, startedAt: now });
    expect(claimed.earlier).toMatchObject({ key: 'vp-newer' });
    expect(counted.claims()).toBe(1);
    first.end('vp-newer', 'known');
  });

  it('a newer cut-off run between the look and the claim, where an older was found: the newer is taken', async () => {
    const { first, beside } = memories();
    const now = Date.now();
    await cutOffRun(beside, 'vp-older', now - 60_000);
    const racing = stoppedBeforeClaim(first, () => cutOffRun(beside, 'vp-beside', now));
    const claimed = await claimCommand(session([]), racing, { key: 'vp-first', given: false }, async () => undefined, { publishAtFlag: false, startedAt: now });
    expect(claimed.earlier).toMatchObject({ key: 'vp-beside' });
    first.end('vp-beside', 'known');
  });

  it('with --idempotency-key the key is the one given: the service replays what the other run made under it', async () => {
    const { first, beside } = memories();
    const racing = stoppedBeforeClaim(first, () => cutOffRun(beside, 'vp-other', Date.now()));
    const claimed = await claimCommand(session([]), racing, { key: 'my-key', given: true }, async () => undefined, { publishAtFlag: false, startedAt: Date.now() });
    expect(claimed).toEqual({});
    expect((await beside.running('my-key')).map((r) => r.key)).toEqual(['my-key']);
    first.end('my-key', 'known');
  });
});

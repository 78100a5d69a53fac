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
    const racing = stoppedBeforeClaim(first, async () => {
      // The same command beside it, whole: it claims, notes its key before its first write, and ends at its deadline
      // with the outcome unknown (its note kept, no process holding it).
      expect(await beside.claim('vp-beside', false)).toEqual([]);
      expect(await beside.open({ key: 'vp-beside', started: Date.now() })).toBe(true);
      beside.end('vp-beside', 'unknown');
    });
    const claimed = await claimCommand(session(said), racing, { key: 'vp-first', given: false }, async () => undefined, { publishAtFlag: false, startedAt: Date.now() - 1000 });
    expect(claimed.earlier).toMatchObject({ key: 'vp-beside', ended: true });
    expect(claimed.waited).toBeUndefined();
    // Held under that key now: another run of the command finds it live.
    expect((await beside.running()).map((r) => r.key)).toEqual(['vp-beside']);
    first.end('vp-beside', 'known');
  });

  it('nothing ran meanwhile: its own key, claimed once', async () => {
    const { first, beside } = memories();
    let claims = 0;
    const counted: RunMemory = { ...first, claim: (key, sameKey) => (claims++, first.claim(key, sameKey)) };
    const claimed = await claimCommand(session([]), counted, { key: 'vp-first', given: false }, async () => undefined, { publishAtFlag: false, startedAt: Date.now() });
    expect(claimed).toEqual({});
    expect(claims).toBe(1);
    expect((await beside.running()).map((r) => r.key)).toEqual(['vp-first']);
    first.end('vp-first', 'known');
  });

  it('two cut-off runs of the command: the newer is taken, once (the older, free again once this run holds the newer, is not taken instead)', async () => {
    const { first, beside } = memories();
    const now = Date.now();
    for (const [key, started] of [['vp-older', now - 60_000], ['vp-newer', now - 1000]] as const) {
      await beside.claim(key, false);
      await beside.open({ key, started });
      beside.end(key, 'unknown');
    }
    let claims = 0;
    const counted: RunMemory = { ...first, claim: (key, sameKey) => (claims++, first.claim(key, sameKey)) };
    const claimed = await claimCommand(session([]), counted, { key: 'vp-first', given: false }, async () => undefined, { publishAtFlag: false, startedAt: now });
    expect(claimed.earlier).toMatchObject({ key: 'vp-newer' });
    expect(claims).toBe(1);
    first.end('vp-newer', 'known');
  });

  it('a newer cut-off run between the look and the claim, where an older was found: the newer is taken', async () => {
    const { first, beside } = memories();
    const now = Date.now();
    await beside.claim('vp-older', false);
    await beside.open({ key: 'vp-older', started: now - 60_000 });
    beside.end('vp-older', 'unknown');
    const racing = stoppedBeforeClaim(first, async () => {
      await beside.claim('vp-beside', false);
      await beside.open({ key: 'vp-beside', started: now });
      beside.end('vp-beside', 'unknown');
    });
    const claimed = await claimCommand(session([]), racing, { key: 'vp-first', given: false }, async () => undefined, { publishAtFlag: false, startedAt: now });
    expect(claimed.earlier).toMatchObject({ key: 'vp-beside' });
    first.end('vp-beside', 'known');
  });

  it('with --idempotency-key the key is the one given: the service replays what the other run made under it', async () => {
    const { first, beside } = memories();
    const racing = stoppedBeforeClaim(first, async () => {
      await beside.claim('vp-other', false);
      await beside.open({ key: 'vp-other', started: Date.now() });
      beside.end('vp-other', 'unknown');
    });
    const claimed = await claimCommand(session([]), racing, { key: 'my-key', given: true }, async () => undefined, { publishAtFlag: false, startedAt: Date.now() });
    expect(claimed).toEqual({});
    expect((await beside.running('my-key')).map((r) => r.key)).toEqual(['my-key']);
    first.end('my-key', 'known');
  });
});

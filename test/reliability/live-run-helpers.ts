/** What the live-run tests share (live-run.test.ts, live-run-together.test.ts): the command, the counts, the directories. */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestEmulator } from '../support/emulator.js';
import { spawnWatched } from '../support/spawned.js';

export const post = (caption: string, ...more: string[]) => ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', caption, '--no-input', ...more];

/** The posts the service made: POST /v1/posts answered 201 and not a replay. */
export const postsMadeOn = async (on: TestEmulator) => (await on.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts' && q.status === 201 && !q.replayed).length;
export const postId = (stdout: string) => /^id\t(post_\w+)$/m.exec(stdout)?.[1];

/** The cache directories dirs() made, in order. */
const caches: string[] = [];

/**
 * A config, state and cache directory of their own, shared by a test's runs. The cache directory starts with
 * the V8 code cache of the bundles (bin/compile-cache.js: the v8-*.bin files) that runs in an earlier one of
 * this file left, nothing else: a run loads the bin as a user's second run does, instead of each compiling it
 * and saving the cache anew (a tenth of a second of CPU a run); the service's caches start empty.
 */
export function dirs(): Record<string, string> {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-live-'));
  const cache = join(base, 'cache');
  mkdirSync(cache, { mode: 0o700 });
  for (const earlier of caches.toReversed()) {
    const code = existsSync(earlier) ? readdirSync(earlier).filter((name) => /^v8-.*\.bin$/.test(name)) : [];
    for (const name of code) copyFileSync(join(earlier, name), join(cache, name));
    if (code.length > 0) break;
  }
  caches.push(cache);
  return { VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), VIDPUB_CACHE_DIR: cache, TZ: 'UTC', NO_COLOR: '1' };
}

export const vidpubOn = (on: TestEmulator, args: string[], env: Record<string, string>) => spawnWatched(args, { ...on.env(), ...env });

/** What the live-run tests share (live-run.test.ts, live-run-together.test.ts): the command, the counts, the directories. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestEmulator } from '../support/emulator.js';
import { spawnWatched } from '../support/spawned.js';

export const post = (caption: string, ...more: string[]) => ['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', caption, '--no-input', ...more];

/** The posts the service made: POST /v1/posts answered 201 and not a replay. */
export const postsMadeOn = async (on: TestEmulator) => (await on.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts' && q.status === 201 && !q.replayed).length;
export const postId = (stdout: string) => /^id\t(post_\w+)$/m.exec(stdout)?.[1];

/** A config, state and cache directory of their own, shared by a test's runs. */
export function dirs(): Record<string, string> {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-live-'));
  return { VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state'), VIDPUB_CACHE_DIR: join(base, 'cache'), TZ: 'UTC', NO_COLOR: '1' };
}

export const vidpubOn = (on: TestEmulator, args: string[], env: Record<string, string>) => spawnWatched(args, { ...on.env(), ...env });

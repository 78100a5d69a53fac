/**
 * publish holds its time to the service's range (src/core/post-rules.ts)
 * just before sending, not only when --at is read: a time that passed while
 * the person read the summary is exit 2 in --at's words, and nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { realClock, type Clock } from '../../src/cli/run/context.js';
import { runCli } from '../support/cli.js';
import { scriptedPrompter } from '../support/prompter.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

describe('publish: the time checked again before sending', () => {
  it('--at +1m, confirmed two minutes later: exit 2, the draft stays a draft', async () => {
    const draft = (await emu.api.post<Post>('/posts', { media_id: 'med_demo_sample', caption: 'later', destinations: [{ destination_id: 'dst_demo_youtube' }] })).body;
    let late = 0;
    const clock: Clock = { now: () => realClock.now() + late, sleep: (ms, signal) => realClock.sleep(ms, signal) };
    const { prompter } = scriptedPrompter([]);
    // The person reads the summary for two minutes, then says yes.
    prompter.confirm = async () => {
      late = 2 * 60_000;
      return true;
    };
    const r = await runCli(['publish', draft.id, '--at', '+1m'], { env: { ...emu.env(), TZ: 'UTC', NO_COLOR: '1' }, tty: true, prompter, clock });
    expect(r.stderr).toMatch(/Error: the time \S+ for --at is in the past\nGive a later time, or "now" to post now\./);
    expect(r.code).toBe(2);
    expect((await emu.requests()).filter((q) => q.method === 'POST' && q.path.endsWith('/publish'))).toEqual([]);
    expect((await emu.api.get<Post>(`/posts/${draft.id}`)).body.status).toBe('draft');
  });
});

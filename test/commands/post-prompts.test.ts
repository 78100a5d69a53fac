/**
 * `vidpub post` on a terminal: what it asks, in which order, and what it does
 * with the answers (an injected prompter plays the person).
 */
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/api/types.js';
import type { Prompter } from '../../src/cli/context.js';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { scriptedPrompter, type Asked } from '../support/prompter.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });


/** Runs on a terminal, noting how much of stderr had been written when each question was asked. */
async function runTty(args: string[], answers: unknown[]) {
  let stderr = '';
  const { prompter: inner, asked } = scriptedPrompter(answers);
  const seenAt: string[] = [];
  const wrap =
    <K extends keyof Prompter>(k: K): Prompter[K] =>
    ((o: never) => {
      seenAt.push(stderr);
      return (inner[k] as (o: never) => unknown)(o);
    }) as Prompter[K];
  const prompter: Prompter = { password: wrap('password'), select: wrap('select'), confirm: wrap('confirm'), input: wrap('input') };
  const r = await runCli(args, {
    tty: true,
    prompter,
    clock: scaledClock(50),
    env: { ...emu.env(), TZ: 'America/New_York', NO_COLOR: '1' },
    onStderr: (s) => {
      stderr += s;
    },
  });
  return { ...r, asked, seenAt };
}

const uploads = async () => (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/media/uploads').length;

describe('vidpub post on a terminal', () => {
  it('shows the creator details, asks the privacy (no default), shows a summary, confirms, and posts the chosen privacy', async () => {
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', '@vidpub.demo,youtube', '--caption', 'Hi there'], ['FOLLOWER_OF_CREATOR', true]);
    expect(r.code).toBe(0);
    expect(r.asked.map((a: Asked) => a.kind)).toEqual(['select', 'confirm']);
    const [privacy, confirm] = r.asked;
    expect(privacy!.message).toBe('@vidpub.demo: Who can view this video');
    expect(privacy!.default).toBeUndefined();
    expect(privacy!.choices!.map((c) => c.value)).toEqual(['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY']);
    // the creator details were on screen before the question
    expect(r.seenAt[0]).toMatch(/Posting to tiktok as vidpub Demo \(@vidpub.demo\)\n {2}avatar: https:\/\/avatars.example.com\/vidpub.demo.png/);
    // the summary before the confirmation: video, caption, when (offset and UTC), each destination with its options
    expect(r.seenAt[1]).toMatch(/About to post\nVideo: +test\/fixtures\/clip.mp4 \(\d+\.\d kB, 2s\)\nCaption: +Hi there\nWhen: +now, \S+-0[45]:00 \(\S+Z\)\nTo/);
    expect(r.seenAt[1]).toMatch(/@vidpub.demo \(tiktok\) · vidpub Demo\n {4}privacy: FOLLOWER_OF_CREATOR\n/);
    expect(r.seenAt[1]).toMatch(/@vidpubdemo \(youtube\) · vidpub Demo Channel\n {4}visibility: private \(default\)/);
    expect(confirm).toMatchObject({ kind: 'confirm', message: 'Post it now?', default: true });
    // nothing was uploaded before the confirmation
    expect(r.seenAt[1]).not.toMatch(/Uploading/);

    const id = /^Post:? +(post_\w+)$/m.exec(r.stdout)![1]!;
    const post = (await emu.api.get<Post>(`/posts/${id}`)).body;
    expect(post.destinations.find((d) => d.destination_id === 'dst_demo_tiktok')!.options.privacy).toBe('FOLLOWER_OF_CREATOR');
    expect(r.stdout).toMatch(/DESTINATION +STATUS +DETAILS/);
  });

  it('declining the confirmation sends nothing (exit 130)', async () => {
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--at', '+2h'], [false]);
    expect(r.asked[0]).toMatchObject({ kind: 'confirm', message: 'Schedule it?' });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/Error: Cancelled: nothing was uploaded or posted\./);
    expect(await uploads()).toBe(0);
  });

  it('asks for the caption when none is given, and --yes skips the confirmation', async () => {
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--yes', '--json'], ['Typed caption']);
    expect(r.code).toBe(0);
    expect(r.asked.map((a) => `${a.kind}:${a.message}`)).toEqual(['input:Caption']);
    expect((JSON.parse(r.stdout) as Post).caption).toBe('Typed caption');
  });

  it('--yes still asks for the privacy of a creator-disclosure destination', async () => {
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', '@vidpub.demo', '--caption', 'x', '--yes', '--json'], ['SELF_ONLY']);
    expect(r.code).toBe(0);
    expect(r.asked).toHaveLength(1);
    expect((JSON.parse(r.stdout) as Post).destinations[0]!.options.privacy).toBe('SELF_ONLY');
  });

  it('Ctrl-C at a question stops before anything is sent (exit 130)', async () => {
    const cancel = Object.assign(new Error('User force closed the prompt with SIGINT'), { name: 'ExitPromptError' });
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', '@vidpub.demo', '--caption', 'x'], [cancel]);
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/Error: Cancelled: nothing was uploaded or posted\./);
    expect(await uploads()).toBe(0);
  });

  it('shows each destination live while waiting, then leaves only the final record', async () => {
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--yes'], []);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Waiting for post post_\w+ \(Ctrl-C stops waiting; the post goes on\)/);
    // redrawn in place: cursor up and clear line
    expect(r.stderr).toContain('\u001b[2K');
    expect(r.stdout).toMatch(/@vidpub-demo \(linkedin\) +published +http/);
  });
});

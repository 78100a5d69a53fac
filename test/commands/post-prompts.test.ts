/**
 * `vidpub post` on a terminal: what it asks, in which order, and what it does
 * with the answers (an injected prompter plays the person).
 */
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import type { Prompter } from '../../src/cli/run/context.js';
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
  const checkbox = (<T,>(o: { message: string; choices: { name: string; value: T }[] }) => {
    seenAt.push(stderr);
    asked.push({ kind: 'checkbox' as Asked['kind'], message: o.message, choices: o.choices });
    const a = answers.shift();
    return a instanceof Error ? Promise.reject(a) : Promise.resolve(a as T[]);
  }) as NonNullable<Prompter['checkbox']>;
  const prompter: Prompter = { password: wrap('password'), select: wrap('select'), confirm: wrap('confirm'), input: wrap('input'), checkbox };
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
    expect(privacy!.message).toBe('privacy for @vidpub.demo (tiktok): Who can view this video');
    expect(privacy!.default).toBeUndefined();
    // first an entry that is no value, where the cursor starts: Enter alone never posts publicly
    expect(privacy!.choices!.slice(1).map((c) => c.value)).toEqual(['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY']);
    // readable labels beside the values
    expect(privacy!.choices!.map((c) => c.name)).toEqual([
      '(choose one: there is no default)',
      'Everyone (PUBLIC_TO_EVERYONE)',
      'Friends (followers you follow back) (MUTUAL_FOLLOW_FRIENDS)',
      'Followers (FOLLOWER_OF_CREATOR)',
      'Only me (SELF_ONLY)',
    ]);
    // after the answer: the flag that skips the question next time
    expect(r.seenAt[1]).toContain('  Next time, skip this question with: --option @vidpub.demo:privacy=FOLLOWER_OF_CREATOR\n');
    // the creator details were on screen before the question
    expect(r.seenAt[0]).toMatch(/Posting to tiktok as vidpub Demo \(@vidpub.demo\)\n {2}avatar: https:\/\/avatars.example.com\/vidpub.demo.png/);
    // the summary before the confirmation: video, caption, when (offset and UTC), each destination with its options
    expect(r.seenAt[1]).toMatch(/About to post\nVideo: +test\/fixtures\/clip.mp4 \(\d+\.\d kB, 2s\)\nCaption: +Hi there\nWhen: +now, today [\d:]+ E[SD]T \(\S+Z\)\nTo/);
    expect(r.seenAt[1]).toMatch(/@vidpub.demo \(tiktok\) · vidpub Demo\n {4}privacy: FOLLOWER_OF_CREATOR\n/);
    expect(r.seenAt[1]).toMatch(/@vidpubdemo \(youtube\) · vidpub Demo Channel\n {4}visibility: private \(default\)/);
    expect(confirm).toMatchObject({ kind: 'confirm', message: 'Post it now?', default: true });
    // nothing was uploaded before the confirmation
    expect(r.seenAt[1]).not.toMatch(/Uploading/);

    const id = /^Post:? +(post_\w+)$/m.exec(r.stdout)![1]!;
    const post = (await emu.api.get<Post>(`/posts/${id}`)).body;
    expect(post.destinations.find((d) => d.destination_id === 'dst_demo_tiktok')!.options.privacy).toBe('FOLLOWER_OF_CREATOR');
    // The emulator's links are longer than a 100-column table leaves them: never cut, each destination is stacked.
    expect(r.stdout).toMatch(/^Destination: +@vidpub\.demo \(tiktok\)\nStatus: +published\nDetails: +http:\/\/\S+\/dst_demo_tiktok$/m);
  });

  it('declining the confirmation sends nothing (exit 130)', async () => {
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--at', '+2h'], [false]);
    expect(r.asked[0]).toMatchObject({ kind: 'confirm', message: 'Schedule it?' });
    expect(r.code).toBe(130);
    // not an error: said plainly, with the command that posts it without questions
    expect(r.stderr).toMatch(/^Cancelled: nothing was uploaded or posted\.$/m);
    expect(r.stderr).not.toMatch(/Error:/);
    expect(r.stderr).toContain("To post it later without questions: vidpub post test/fixtures/clip.mp4 --to linkedin --caption x --at +2h --yes");
    expect(await uploads()).toBe(0);
  });

  it('declining after --media says the video stays at the service, not that nothing was uploaded', async () => {
    const r = await runTty(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x'], [false]);
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/^Cancelled: nothing was posted \(the video med_demo_sample stays at the service\)\.$/m);
  });

  it('asks for the caption when none is given, and --yes skips the confirmation', async () => {
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--yes', '--json'], ['Typed caption']);
    expect(r.code).toBe(0);
    expect(r.asked.map((a) => `${a.kind}:${a.message}`)).toEqual(['input:Caption (one line; set $EDITOR to write several, or use --caption-file)']);
    expect((JSON.parse(r.stdout) as Post).caption).toBe('Typed caption');
    // as after every other question: the flag that skips it next time
    expect(r.stderr).toContain("Next time, skip this question with: --caption 'Typed caption'\n");
  });

  it('--yes still asks for the privacy of a creator-disclosure destination', async () => {
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', '@vidpub.demo', '--caption', 'x', '--yes', '--json'], ['SELF_ONLY']);
    expect(r.code).toBe(0);
    expect(r.asked).toHaveLength(1);
    expect((JSON.parse(r.stdout) as Post).destinations[0]!.options.privacy).toBe('SELF_ONLY');
  });

  it('Ctrl-C at a question stops before anything is sent (exit 130)', async () => {
    const cancel = Object.assign(new Error('User force closed the prompt with SIGINT'), { name: 'ExitPromptError' });
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', '@vidpub.demo', '--caption', 'Big one'], [cancel]);
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/^Cancelled: nothing was uploaded or posted\.$/m);
    // the hint is the exact command, built from what was typed
    expect(r.stderr).toContain(`Run it again with what was chosen so far: vidpub post test/fixtures/clip.mp4 --to @vidpub.demo --caption 'Big one'`);
    expect(await uploads()).toBe(0);
  });

  it('without --to, offers the active destinations to pick, then says the flag for next time', async () => {
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--caption', 'x', '--yes', '--json'], [['dst_demo_linkedin', 'dst_demo_youtube']]);
    expect(r.code).toBe(0);
    const pick = r.asked[0]!;
    expect(pick).toMatchObject({ kind: 'checkbox', message: 'Post to (space selects, enter accepts)' });
    const names = pick.choices!.map((c) => c.name);
    expect(names).toContain('@vidpub-demo (linkedin) · vidpub Demo Page');
    // only active destinations are offered
    expect(pick.choices!.map((c) => c.value)).not.toContain('dst_demo_instagram');
    expect(r.stderr).toContain('  Next time, skip this question with: --to @vidpub-demo,@vidpubdemo\n');
    expect((JSON.parse(r.stdout) as Post).destinations.map((d) => d.destination_id)).toEqual(['dst_demo_linkedin', 'dst_demo_youtube']);
  });

  it('a draft saved on a terminal ends with the command that publishes it, and the time echo says how far it is', async () => {
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--draft', '--yes'], []);
    expect(r.code).toBe(0);
    const id = /^Post:? +(post_\w+)$/m.exec(r.stdout)![1]!;
    expect(r.stdout).toMatch(/^Draft saved\.$/m);
    expect(r.stdout).toContain(`Publish it with: vidpub publish ${id}  (or at a time: vidpub publish ${id} --at "tomorrow 9:00")`);
    const s = await runTty(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--at', 'in 3h', '--yes'], []);
    expect(s.code).toBe(0);
    expect(s.stdout).toMatch(/^Scheduled\.$/m);
    expect(s.stdout).toMatch(/Scheduled for: +(today|tomorrow) \d\d:\d\d(:\d\d)? E[SD]T, in \d h( \d+ m)? \(\S+Z\)/);
    expect(s.stdout).toMatch(/Send it now with: vidpub publish post_\w+/);
  });

  it('shows each destination live while waiting, then leaves only the final record', async () => {
    const r = await runTty(['post', 'test/fixtures/clip.mp4', '--to', 'linkedin', '--caption', 'x', '--yes'], []);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Waiting for post post_\w+ \(Ctrl-C stops waiting; the post goes on\)/);
    // redrawn in place: cursor up and clear line
    expect(r.stderr).toContain('\u001b[2K');
    expect(r.stdout).toMatch(/^Destination: +@vidpub-demo \(linkedin\)\nStatus: +published\nDetails: +http:\/\/\S+\/dst_demo_linkedin$/m);
  });
});

/**
 * What a new user met at a terminal and in scripts: publish's confirmation,
 * one error style (JSON with --json), --json FIELDS and --jq, the pipe forms,
 * where the key comes from, profiles, version, and text fitted to the width.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { runCli, type RunOptions } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { realClock } from '../../src/cli/run/context.js';
import { useEmulator } from '../support/emulator.js';
import { CE_MIDNIGHT_UTC, CE_ZONE, IN_TIME } from '../support/dates.js';
import { scriptedPrompter } from '../support/prompter.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

function run(args: string[], opts: RunOptions = {}) {
  return runCli(args, { clock: scaledClock(50), ...opts, env: { ...emu.env(), TZ: 'Europe/Berlin', NO_COLOR: '1', ...opts.env } });
}

async function draft(): Promise<Post> {
  const r = await emu.api.post<Post>('/posts', {
    media_id: 'med_demo_sample',
    caption: 'Big one',
    destinations: [{ destination_id: 'dst_demo_linkedin' }, { destination_id: 'dst_demo_tiktok', options: { privacy: 'SELF_ONLY' } }],
  });
  expect(r.body.status).toBe('draft');
  return r.body;
}

const publishes = async () => (await emu.requests()).filter((q) => q.method === 'POST' && /^\/v1\/posts\/[^/]+\/publish$/.test(q.path)).length;

beforeEach(async () => {
  await emu.reset();
});

describe('publish on a terminal', () => {
  it('shows the post (video, caption, destinations with options, when, allowance) and confirms before publishing', async () => {
    const d = await draft();
    const { prompter, asked } = scriptedPrompter([true]);
    let shown = '';
    const r = await run(['publish', d.id, '--at', 'in 2h'], {
      clock: realClock,
      tty: true,
      prompter,
      onStderr: (s) => {
        if (asked.length === 0) shown += s;
      },
    });
    expect(r.code).toBe(0);
    expect(asked).toEqual([{ kind: 'confirm', message: 'Schedule it?', default: true }]);
    expect(shown).toMatch(new RegExp(`^About to publish ${d.id} \\(draft\\)\\nVideo: +sample\\.mp4 \\(video med_demo_sample\\) \\(4\\.2 MB, 15s\\)\\nCaption: +Big one\\n`, 'm'));
    expect(shown).toMatch(new RegExp(String.raw`When: +(today|tomorrow) \d\d:\d\d(:\d\d)? ${CE_ZONE}, in 2 h \(\S+Z\)`));
    // the line wraps at the terminal's width, where depends on the hour
    expect(shown.replace(/\s+/g, ' ')).toMatch(new RegExp(String.raw`Spends: 1 API post of \d+ left today \(of \d+; resets (today|tomorrow) ${CE_MIDNIGHT_UTC}, ${IN_TIME} \(\S+T00:00:00Z\)\)`));
    expect(shown).toMatch(/@vidpub\.demo \(tiktok\)[^\n]*\n {4}privacy: SELF_ONLY/);
    expect(r.stdout).toMatch(/^Scheduled\.$/m);
    expect(r.stdout).toContain(`Send it now with: vidpub publish ${d.id}`);
  });

  it('declining publishes nothing, says so without "Error:", exit 130', async () => {
    const d = await draft();
    const { prompter } = scriptedPrompter([false]);
    const r = await run(['publish', d.id], { tty: true, prompter });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(new RegExp(`^Cancelled: post ${d.id} was not published; it is still draft\\.$`, 'm'));
    expect(r.stderr).not.toMatch(/Error:/);
    expect(r.stderr).toContain(`Publish it without the question: vidpub publish ${d.id} --yes`);
    expect(await publishes()).toBe(0);
  });

  it('--yes skips the question; scripts are never asked', async () => {
    const d = await draft();
    const yes = await run(['publish', d.id, '--yes', '--no-wait'], { tty: true });
    expect(yes.code).toBe(0);
    const d2 = await draft();
    const script = await run(['publish', d2.id, '--no-wait']);
    expect(script.code).toBe(0);
    expect(await publishes()).toBe(2);
  });

  it('a completed post: a sentence with its state and exit 10 (terminal or script)', async () => {
    const d = await draft();
    expect((await run(['publish', d.id])).code).toBe(0);
    const r = await run(['publish', d.id]);
    expect(r.code).toBe(10);
    expect(r.stderr).toContain(`Error: Post ${d.id} cannot be published: it has already been published (completed); only a draft or a scheduled post can be.`);
    expect(r.stderr).toContain(`See each destination with: vidpub status ${d.id}`);
    const tty = await run(['publish', d.id], { tty: true });
    expect(tty.code).toBe(10);
    expect(tty.stderr).toContain('it has already been published (completed)');
  });
});

describe('one error style', () => {
  it('parser errors read like ours, with the suggestion on the same line', async () => {
    const r = await run(['post', 'clip.mp4', '--too', 'youtube']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`Error: unknown option '--too' (Did you mean --to?)\nRun "vidpub post --help" for usage.\n`);
  });

  it('with --json, an error is one JSON object on stderr', async () => {
    const r = await run(['status', 'post_nope', '--json']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    const doc = JSON.parse(r.stderr) as { error: Record<string, unknown> };
    expect(doc.error).toMatchObject({ type: 'not_found', code: 'not_found', exit_code: 5 });
    expect(String(doc.error.message)).toMatch(/^Not found: /);
    expect(Object.keys(doc.error)).toEqual(['type', 'code', 'message', 'exit_code', 'hint']);

    const parser = await run(['post', '--too', 'y', '--json']);
    expect(parser.code).toBe(2);
    expect(JSON.parse(parser.stderr)).toEqual({
      error: { type: 'usage', code: 'usage', message: "unknown option '--too' (Did you mean --to?)", exit_code: 2, hint: 'Run "vidpub post --help" for usage.' },
    });
  });

  it('an empty VIDPUB_API_KEY is refused, not replaced by the stored profile (exit 3)', async () => {
    const r = await run(['me'], { env: { VIDPUB_API_KEY: '' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Error: VIDPUB_API_KEY is set but empty, so there is no key to use (is a CI secret missing?)');
    expect(r.stderr).toContain('unset VIDPUB_API_KEY');
  });
});

describe('hints are commands built from what was typed', () => {
  it('no --to in a script, no video: the command as typed, with what is missing', async () => {
    const noTo = await run(['post', 'test/fixtures/clip.mp4', '--caption', 'Big one', '--at', 'tomorrow 9:00']);
    expect(noTo.code).toBe(2);
    expect(noTo.stderr).toContain(`List the destinations with "vidpub destinations", then run: vidpub post test/fixtures/clip.mp4 --caption 'Big one' --at 'tomorrow 9:00' --to DEST[,DEST...]`);
    const noVideo = await run(['post', '--to', 'youtube', '--caption', 'Big one']);
    expect(noVideo.code).toBe(2);
    expect(noVideo.stderr).toContain(`For example: vidpub post clip.mp4 --to youtube --caption 'Big one'`);
  });
});

describe('the caption at a terminal', () => {
  it('with $EDITOR set, it is written there: several lines, its last line break dropped', async () => {
    const { prompter, asked } = scriptedPrompter([]);
    const editor: NonNullable<typeof prompter.editor> = async (o) => {
      asked.push({ kind: 'input', message: `editor:${o.message}` });
      return 'First line\nsecond line\n';
    };
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--yes', '--json', '--no-wait'], {
      tty: true,
      prompter: { ...prompter, editor },
      env: { EDITOR: 'nano', VISUAL: undefined },
    });
    expect(r.code).toBe(0);
    expect(asked.map((a) => a.message)).toEqual(['editor:Caption (opens nano)']);
    expect((JSON.parse(r.stdout) as Post).caption).toBe('First line\nsecond line');
  });
});

describe('output for scripts', () => {
  it('--json FIELDS keeps those fields; an unknown one lists the known ones', async () => {
    const d = await draft();
    const r = await run(['status', d.id, '--json', 'id,status']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: d.id, status: 'draft' });
    const eq = await run(['status', '--json=id', d.id]);
    expect(JSON.parse(eq.stdout)).toEqual({ id: d.id });
    const bad = await run(['status', d.id, '--json', 'id,colour']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.message).toBe('unknown JSON field "colour"');
    expect(JSON.parse(bad.stderr).error.hint).toMatch(/^Available fields: id, status, caption, /);
  });

  it('--jq filters the JSON document with jq built in', async () => {
    const d = await draft();
    const r = await run(['status', d.id, '--jq', '.destinations[].destination_id']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('dst_demo_linkedin\ndst_demo_tiktok\n');
    const bad = await run(['status', d.id, '--jq', '.[']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.message).toMatch(/^--jq \.\[: jq: error: syntax error/);
  });

  it('post --quiet prints the post id alone', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'q', '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^post_\w+\n$/);
  });

  it('options to a pipe: one option a line, one value a field', async () => {
    const r = await run(['options', 'tiktok']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('privacy\trequired\tenum\tPUBLIC_TO_EVERYONE,MUTUAL_FOLLOW_FRIENDS,FOLLOWER_OF_CREATOR,SELF_ONLY\t\tWho can view this video');
    expect(r.stdout).toContain('allow_comments\toptional\tboolean\ttrue,false\ttrue\tAllow comments\n');
  });

  it('a time without a terminal: the echo says how far it is, in the zone and in UTC', async () => {
    // Today at 10:00 UTC on vidpub's clock, so the distance is the same at any hour the test runs
    // (from 08:00 UTC on, "in 1 d" alone is right too); the service's own clock finds the time ahead either way.
    const tenUtc = new Date();
    tenUtc.setUTCHours(10, 0, 0, 0);
    const offset = tenUtc.getTime() - Date.now();
    const clock = { now: () => Date.now() + offset, sleep: realClock.sleep };
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--at', 'tomorrow 9:00', '--no-wait'], { clock });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/: tomorrow 09:00 CET, in 22 h \(\S+T08:00:00Z\)/);
  });
});

describe('identity', () => {
  it('me says where the key and the base URL come from, and marks the emulator', async () => {
    const r = await run(['me'], { tty: true, columns: 200 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Key: +vp_live_\S*…\w{4} \(read_write\) "Demo read\/write", from the environment \(VIDPUB_API_KEY\)$/m);
    expect(r.stdout).toContain(`Service:    ${emu.baseUrl} (the local emulator, not the real service), from VIDPUB_BASE_URL`);
    const pipe = await run(['me']);
    expect(pipe.stdout).toContain(`Key from\tthe environment (VIDPUB_API_KEY)\nService\t${emu.baseUrl}\nEmulator\tyes\n`);
    const json = await run(['me', '--json']);
    expect(JSON.parse(json.stdout)).not.toHaveProperty('origin');
  });

  it('profiles lists the stored profiles with the key masked; version prints versions and platform', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-profiles-'));
    const env = { VIDPUB_CONFIG_DIR: dir, VIDPUB_BASE_URL: emu.baseUrl, VIDPUB_API_KEY: undefined };
    expect((await runCli(['login', '--with-key', '--profile', 'ci'], { stdin: emu.key() + '\n', env })).code).toBe(0);
    const r = await runCli(['profiles'], { env: { ...env, VIDPUB_PROFILE: 'ci' } });
    expect(r.code).toBe(0);
    const [name, base, workspace, key, when] = r.stdout.trim().split('\t');
    expect({ name, base, workspace }).toEqual({ name: 'ci', base: emu.baseUrl, workspace: 'Demo' });
    expect(key).toMatch(/^vp_live_…\w{4}$/);
    expect(key).not.toContain(emu.key().slice(8, -4));
    expect(Date.parse(when!)).not.toBeNaN();
    const tty = await runCli(['profiles'], { env: { ...env, VIDPUB_PROFILE: 'ci', NO_COLOR: '1' }, tty: true });
    expect(tty.stdout).toMatch(/^PROFILE +BASE URL +WORKSPACE +KEY +LAST LOGIN +STORAGE\n\* ci +http.* file$/m);

    const v = await runCli(['version', '--json']);
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ version: '0.0.0-test' });
    expect(Object.keys(JSON.parse(v.stdout))).toEqual(['version', 'node', 'platform', 'arch']);
  });
});

describe('text fitted to a 60-column terminal', () => {
  const lines = (text: string) => text.replace(/\n$/, '').split('\n');

  it('options, me and --help wrap at word boundaries', async () => {
    for (const args of [['options', 'tiktok'], ['me'], ['post', '--help'], ['publish', '--help']]) {
      const r = await run(args, { tty: true, columns: 60 });
      expect(r.code).toBe(0);
      for (const line of lines(r.stdout)) expect(line.length, `${args.join(' ')}: ${line}`).toBeLessThanOrEqual(60);
      // every word is whole: the text with its line breaks removed has no word glued or cut
      expect(r.stdout).not.toMatch(/servi\n/);
    }
    const help = await run(['post', '--help'], { tty: true, columns: 60 });
    expect(help.stdout).toMatch(/--option <key=value> +a destination option:\n +KEY=VALUE \(every\n +destination that has KEY\)/);
    // a long example is cut at spaces with a shell line continuation
    expect(help.stdout).toContain('  $ vidpub post clip.mp4 \\\n        --to @vidpub.demo,dst_demo_youtube \\\n        --option @vidpub.demo:privacy=SELF_ONLY \\\n        --caption-file caption.txt\n');
    const options = await run(['options', 'tiktok'], { tty: true, columns: 60 });
    expect(options.stdout).toContain('Privacy must be chosen by the person posting: it has no\n    default.');
  });
});

import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../support/cli.js';
import type { Clock } from '../../src/cli/run/context.js';
import { DEFAULT_DEADLINES_MS, manualClock, scaledClock, tickWhileAllAsleep } from '../support/clock.js';
import { mediaIdFrom, postIdFrom } from '../../src/cli/demo/demo-run.js';
import { shellLine } from '../../src/util/shell.js';
import { sampleVideoCandidates } from '../../src/cli/demo/sample.js';

const FAST = ['--processing-ms', '30', '--publish-ms', '30'];
/**
 * The demo's steps on a clock ten times as fast: their waits for the video's processing and the post's publishing
 * (each a first look a second after it starts, the work itself done in 30 ms of the wall) take a tenth of that.
 */
const fast = (): { clock: Clock } => ({ clock: scaledClock(10) });

describe('vidpub demo', () => {
  it('runs every step against its own emulator, without a terminal, and the post ends published', async () => {
    const r = await runCli(['demo', ...FAST], fast());
    expect(r.stderr).not.toMatch(/Error:/);
    expect(r.code).toBe(0);
    for (const n of [1, 2, 3, 4, 5]) expect(r.stderr).toMatch(new RegExp(`Step ${n}/5`));
    expect(r.stderr).toMatch(/\$ vidpub me\n/);
    expect(r.stderr).toMatch(/\$ vidpub destinations\n/);
    expect(r.stderr).toMatch(/\$ vidpub upload vidpub-demo\.mp4\n/);
    // Without a terminal the privacy of the creator-disclosure account is chosen explicitly by flag.
    expect(r.stderr).toMatch(/\$ vidpub post --media \S+ --to dst_demo_tiktok,dst_demo_youtube,dst_demo_linkedin --caption 'Hello from the vidpub demo' --option dst_demo_tiktok:privacy=SELF_ONLY\n/);
    expect(r.stderr).toMatch(/\$ vidpub status post_\S+\n/);
    expect(r.stderr).toMatch(/Done: post \S+ is completed, 3 of 3 destinations published/);
    // The data of each step, then the commands for the real service.
    expect(r.stdout).toMatch(/^dst_demo_youtube\tyoutube\t@vidpubdemo\tactive$/m);
    expect(r.stdout).toMatch(/The same job against the real service/);
    expect(r.stdout).toMatch(/^ {2}vidpub login/m);
    expect(r.stdout).toMatch(/^ {2}vidpub post --media MEDIA_ID --to dst_demo_tiktok,dst_demo_youtube,dst_demo_linkedin --caption 'Hello from the vidpub demo' --option dst_demo_tiktok:privacy=SELF_ONLY$/m);
    expect(r.stdout).toMatch(/^ {2}vidpub status POST_ID$/m);
    expect(r.stdout).toMatch(/--no-input --json$/m);
  });

  it('--json prints one summary document on stdout: the final post, every destination published', async () => {
    const r = await runCli(['demo', ...FAST, '--json'], fast());
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.post.id).toBe(doc.post_id);
    expect(doc.post.media_id).toBe(doc.media_id);
    expect(doc.post.status).toBe('completed');
    expect(doc.post.destinations).toHaveLength(3);
    for (const d of doc.post.destinations) expect(d.status).toBe('published');
    expect(doc.post.destinations.find((d: { destination_id: string }) => d.destination_id === 'dst_demo_tiktok').options.privacy).toBe('SELF_ONLY');
    expect(doc.commands).toContain('vidpub login');
    // The steps' own output went to stderr.
    expect(r.stderr).toMatch(/Step 5\/5/);
  });

  it("its emulator runs on the Context's clock: at the default pace, on a clock moved on while the run only waits, it ends published at that clock's time", async () => {
    const clock = manualClock(Date.parse('2030-01-01T00:00:00Z'));
    // The steps' deadlines and budgets (the default --timeout) aside, every wait is a look at the emulator's work: time moves to it.
    onTestFinished(tickWhileAllAsleep(clock, () => 1, [...DEFAULT_DEADLINES_MS]));
    const r = await runCli(['demo', '--json'], { clock });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.post.status).toBe('completed');
    // The service's time is the clock's (a real-time emulator would have dated the post today), and the run waited
    // the default pace on it: the video's processing and each account's publishing, 1.5 s each, one after another.
    expect(doc.post.created_at).toMatch(/^2030-01-01T00:00:/);
    expect(clock.now() - Date.parse('2030-01-01T00:00:00Z')).toBeGreaterThanOrEqual(1500 + 3 * 1500);
  });

  it('never reads or writes the stored profile or the journal, and ignores the user\'s VIDPUB_* settings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-demo-test-'));
    const state = mkdtempSync(join(tmpdir(), 'vidpub-demo-state-'));
    const cache = mkdtempSync(join(tmpdir(), 'vidpub-demo-cache-'));
    const config = JSON.stringify({ profiles: { default: { api_key: 'vp_live_user_secret', base_url: 'https://api.example.invalid/v1' } } });
    writeFileSync(join(dir, 'config.json'), config, { mode: 0o600 });
    const r = await runCli(['demo', ...FAST, '--quiet'], {
      ...fast(),
      env: {
        VIDPUB_CONFIG_DIR: dir,
        VIDPUB_API_KEY: 'vp_live_not_the_demo_key',
        VIDPUB_BASE_URL: 'https://api.example.invalid/v1',
        VIDPUB_WORKSPACE: 'Elsewhere',
        VIDPUB_STATE_DIR: state,
        VIDPUB_CACHE_DIR: cache,
      },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(config);
    // The demo's posts went to a journal of its own, not to the user's history.
    expect(readdirSync(state)).toEqual([]);
    // and the cache of its throwaway port to a directory removed with it: no file left per run
    expect(readdirSync(cache)).toEqual([]);
  });

  it('asks the privacy on a terminal instead of choosing it, then posts with the answer', async () => {
    const asked: string[] = [];
    const prompter = {
      password: () => Promise.reject(new Error('unexpected password prompt')),
      input: () => Promise.reject(new Error('unexpected input prompt')),
      confirm: async (o: { message: string }) => {
        asked.push(`confirm: ${o.message}`);
        return true;
      },
      select: async <T>(o: { message: string; choices: { value: T }[] }) => {
        asked.push(`select: ${o.message}`);
        const choice = o.choices.find((c) => String(c.value) === 'FOLLOWER_OF_CREATOR') ?? o.choices[0]!;
        return choice.value;
      },
    };
    const r = await runCli(['demo', ...FAST, '--json'], { ...fast(), tty: true, prompter });
    expect(r.code).toBe(0);
    expect(asked.some((a) => /^select: .*privacy|^select: .*view/i.test(a))).toBe(true);
    // eslint-disable-next-line no-control-regex
    const plain = r.stderr.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/\$ vidpub post --media \S+ --to dst_demo_tiktok,dst_demo_youtube,dst_demo_linkedin --caption 'Hello from the vidpub demo'\n/);
    const doc = JSON.parse(r.stdout);
    expect(doc.post.destinations.find((d: { destination_id: string }) => d.destination_id === 'dst_demo_tiktok').options.privacy).toBe('FOLLOWER_OF_CREATOR');
  });

  it('refuses bad timings before starting anything (exit 2)', async () => {
    const r = await runCli(['demo', '--processing-ms', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--processing-ms must be a whole number of milliseconds from 0 to 600000, got "soon"/);
    const r2 = await runCli(['demo', '--publish-ms', '-5']);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/--publish-ms must be a whole number/);
  });

  it('stops with the exit code of a failed step (130 when interrupted)', async () => {
    const controller = new AbortController();
    const r = await runCli(['demo', '--processing-ms', '5000', '--publish-ms', '30'], {
      signal: controller.signal,
      onStderr: (s) => {
        if (/Step 3\/5/.test(s)) controller.abort();
      },
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/Interrupted/);
    expect(r.stderr).not.toMatch(/Step 4\/5/);
  });
});

describe('demo helpers', () => {
  it('reads the ids printed by upload and post, on a terminal and to a pipe', () => {
    expect(mediaIdFrom('med_abc123\n')).toBe('med_abc123');
    expect(mediaIdFrom('')).toBeUndefined();
    expect(postIdFrom('id\tpost_9\nstatus\tcompleted\n')).toBe('post_9');
    expect(postIdFrom('Published.\n\u001b[2mPost:\u001b[22m    post_42\n\u001b[2mStatus:\u001b[22m  completed\n')).toBe('post_42');
    expect(postIdFrom('nothing here')).toBeUndefined();
  });

  it('quotes command lines the way a person types them', () => {
    expect(shellLine(['vidpub', 'post', '--caption', "it's here", '--to', 'a,b'])).toBe(`vidpub post --caption 'it'\\''s here' --to a,b`);
  });

  it('finds the sample video: a real MP4 (ftyp box)', () => {
    const found = sampleVideoCandidates().map((p) => {
      try {
        return readFileSync(p);
      } catch {
        return undefined;
      }
    }).find(Boolean);
    expect(found).toBeDefined();
    expect(found!.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });
});

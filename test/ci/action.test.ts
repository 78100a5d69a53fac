/**
 * action.yml run as the runner runs it (test/support/action.ts), against the emulator: posting,
 * outputs, summary, replays, failures, the status vocabulary (vidpub's), the caption inputs and the
 * shapes of the record. The first post runs the whole action as a runner does, with the built
 * checkout (node bin/vidpub.js) as its vidpub. The others run its post step's script in this
 * process (the harness's `inProcess`) with the build's main as vidpub, through the `vidpub` input
 * (test/support/in-process-vidpub.ts): what they check is what the step makes of vidpub's exit
 * code, record and messages, the same from the build's main in this process as from a node process
 * of its own; a node start or two saved per run.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { actionRunner, readActionYml, type ActionRun, type RunOptions } from '../support/action.js';
import { InProcessVidpub } from '../support/in-process-vidpub.js';
import { scaledClock } from '../support/clock.js';
import { stateOf } from '../../src/journal/post-fold.js';
// @ts-expect-error -- plain JavaScript run by the runner, without types
import { batchArgs, postState, noticeText } from '../../scripts/action/run.mjs';

const action = readActionYml();
const emu = useEmulator();
// The set-up step (dist/ checked against src/) once: nothing here changes either.
const runAction = actionRunner({ setUpOnce: true });
const scripts = mkdtempSync(join(tmpdir(), 'vidpub-action-vidpub-'));
let inProcess: InProcessVidpub;

beforeAll(async () => {
  ensureBuilt();
  // Each command on a clock ten times as fast: a post's waits (the clip's processing, then the post's publishing, each
  // looked at first a second after it starts) take a tenth of that; the emulator's work (30 ms of the wall) is over
  // by then all the same. What these tests check is what the step makes of vidpub's answer, not how vidpub waits.
  inProcess = await InProcessVidpub.start(ROOT, { clock: () => scaledClock(10) });
  inProcess.writeScript(scripts);
});
afterAll(async () => {
  await inProcess.close();
  rmSync(scripts, { recursive: true, force: true });
  // Every command of the in-process vidpub ran here: none went to the bin (a terminal, an emulator...).
  expect(inProcess.ran.realBin).toEqual([]);
});

/** The action with its post step's script in this process and the build's main as vidpub (a `vidpub` input of the inputs wins). */
const runStep = (inputs: Record<string, string>, opts: RunOptions = {}): Promise<ActionRun> =>
  runAction({ vidpub: join(scripts, 'vidpub'), ...inputs }, { ...opts, inProcess: true });

const clip = join(ROOT, 'test', 'fixtures', 'clip.mp4');
const basics = (): Record<string, string> => ({ file: clip, to: 'youtube,linkedin', caption: 'Release 1.2', 'api-key': emu.key(), 'base-url': emu.baseUrl });

/** The posts the emulator made (not replays). */
async function postsMade(): Promise<number> {
  return (await emu.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/posts' && r.status === 201 && !r.replayed).length;
}

describe('action.yml', () => {
  it('is a composite action whose inputs are the documented ones', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual(
      ['api-key', 'at', 'base-url', 'caption', 'draft', 'file', 'idempotency-key', 'manifest', 'media', 'no-caption', 'options', 'report', 'shard', 'timeout', 'to', 'url', 'vidpub', 'wait'],
    );
    expect(Object.keys(action.outputs).sort()).toEqual(['media-id', 'post-id', 'status', 'urls']);
  });

  it('posts, masks the key, sets the outputs and writes the summary table', async () => {
    const r = await runAction(basics());
    expect(r.code, r.log).toBe(0);
    expect(r.log.split('\n')[0]).toBe(`::add-mask::${emu.key()}`);
    expect(r.log.split(emu.key()).length).toBe(2); // the mask line only
    expect(r.outputs['post-id']).toMatch(/^post_\w+$/);
    expect(r.outputs['media-id']).toMatch(/^med_\w+$/);
    expect(r.outputs.status).toBe('completed');
    const urls = JSON.parse(r.outputs.urls!) as string[];
    expect(urls).toHaveLength(2);
    for (const u of urls) expect(u).toMatch(/\/_emulator\/published\/post_\w+\/dst_demo_(youtube|linkedin)$/);
    expect(r.summary).toContain(`### vidpub: post ${r.outputs['post-id']} (completed)`);
    expect(r.summary).toContain('| Destination | Status | URL | Note |');
    expect(r.summary).toMatch(/\| dst_demo_youtube \| published \| <http:\/\/\S+> \|/);
    expect(r.summary).toMatch(/\| dst_demo_linkedin \| published \| <http:\/\/\S+> \|/);
  });

  it('replays the first post when the same run is re-run, and posts anew in another run', async () => {
    const first = await runStep(basics());
    expect(first.code, first.log).toBe(0);
    const again = await runStep(basics(), { github: { GITHUB_RUN_ATTEMPT: '2' } });
    expect(again.code, again.log).toBe(0);
    expect(again.outputs['post-id']).toBe(first.outputs['post-id']);
    expect(await postsMade()).toBe(1);
    const other = await runStep(basics(), { github: { GITHUB_RUN_ID: '4243' } });
    expect(other.code, other.log).toBe(0);
    expect(other.outputs['post-id']).not.toBe(first.outputs['post-id']);
    expect(await postsMade()).toBe(2);
  });

  it('passes draft, wait, options and an idempotency-key of its own through', async () => {
    const r = await runStep({ ...basics(), to: 'tiktok', options: 'privacy=SELF_ONLY', draft: 'true', 'idempotency-key': 'release-1.2' });
    expect(r.code, r.log).toBe(0);
    expect(r.outputs.status).toBe('draft');
    expect(r.outputs.urls).toBe('[]');
    const posted = (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts');
    // vidpub derives each request's key from the one given (release-1.2:post for the post).
    expect(posted.map((q) => q.idempotency_key)).toEqual([expect.stringMatching(/^release-1\.2\b/)]);
  });

  it('fails the step with vidpub\'s exit code and its message as an ::error:: line', async () => {
    const r = await runStep({ ...basics(), to: '@nobody-here' });
    expect(r.code).toBe(2);
    expect(r.log).toMatch(/^::error title=vidpub \(exit 2\)::.*@nobody-here/m);
    expect(r.outputs).toEqual({ 'post-id': '', 'media-id': '', status: '', urls: '' });
  });

  it('fails with exit 3 when the key is refused, the key still masked', async () => {
    const r = await runStep({ ...basics(), 'api-key': 'vp_live_nope_0000000000000000' });
    expect(r.code).toBe(3);
    expect(r.log.split('\n')[0]).toBe('::add-mask::vp_live_nope_0000000000000000');
    expect(r.log).toMatch(/^::error title=vidpub \(exit 3\)::.*key/im);
  });

  it('fails with exit 2 before running vidpub when not exactly one of file, url and media is given', async () => {
    const r = await runStep({ ...basics(), media: 'med_demo_sample' });
    expect(r.code).toBe(2);
    expect(r.log).toContain('::error title=vidpub (exit 2)::give exactly one of the inputs file, url and media (given: file, media)');
    expect(await emu.requests()).toEqual([]);
  });

  it('succeeds on a post with a warning (a WebM to LinkedIn is converted): exit 0, outputs, the warning in the summary', async () => {
    const r = await runStep({ ...basics(), file: join(ROOT, 'test', 'fixtures', 'clip.webm'), to: 'linkedin' });
    expect(r.code, r.log).toBe(0);
    expect(r.log).not.toMatch(/TypeError|::error/);
    expect(r.outputs.status).toBe('completed');
    expect(JSON.parse(r.outputs.urls!)).toHaveLength(1);
    expect(r.summary).toMatch(/\| dst_demo_linkedin \| published \| <http:\/\/\S+> \| The video was converted from video\/webm to MP4\. \\\(video\\_converted\\\) \|/);
  });

  it('says "failed" for a post whose destination failed, as vidpub does, never "completed"; exit 6 with the outputs', async () => {
    await emu.fault({ destination_fail: 'dst_demo_linkedin' });
    const r = await runStep(basics());
    expect(r.code, r.log).toBe(6);
    expect(r.outputs.status).toBe('failed');
    expect(r.outputs['post-id']).toMatch(/^post_\w+$/);
    expect(JSON.parse(r.outputs.urls!)).toEqual([expect.stringMatching(/dst_demo_youtube$/)]);
    expect(r.summary).toContain(`### vidpub: post ${r.outputs['post-id']} (failed)`);
    expect(r.summary).toMatch(/\| dst_demo_linkedin \| failed \| {2}\| linkedin refused the video/);
    expect(r.log).toMatch(/^::error title=vidpub \(exit 6\)::/m);
  });

  it('computes the post\'s word exactly as vidpub\'s history and status do (stateOf)', () => {
    const d = (...statuses: (string | undefined)[]) => statuses.map((status) => ({ status }));
    const cases: [string, { status?: string }[]][] = [
      ['completed', d('published', 'published')],
      ['completed', d('published', 'failed')],
      ['completed', d('cancelled')],
      ['completed', []],
      ['publishing', d('published', 'publishing')],
      ['publishing', d('published', 'failed')],
      ['publishing', d('published', undefined)],
      ['scheduled', d('scheduled')],
      ['draft', d('draft', 'draft')],
      ['draft', d('failed', 'published')],
    ];
    for (const [status, destinations] of cases) {
      expect(postState({ status, destinations }), JSON.stringify({ status, destinations })).toBe(stateOf(status, destinations));
    }
    // Shapes the CLI's types rule out, read without throwing.
    expect(postState({})).toBe('');
    expect(postState({ status: 'completed', destinations: [null, 'x', { status: 'failed' }] })).toBe('failed');
  });

  it('documents the status output in vidpub\'s words, in action.yml and in the guide', () => {
    const words = ['completed', 'failed', 'publishing', 'scheduled', 'draft'];
    const doc = readFileSync(join(ROOT, 'docs', 'scripts-ci-cron.md'), 'utf8');
    const line = /Outputs: [\s\S]*?\n\n/.exec(doc)?.[0] ?? '';
    for (const w of words) {
      expect(action.outputs.status!.description).toContain(w);
      expect(line).toContain(`\`${w}\``);
    }
    for (const text of [action.outputs.status!.description, line]) expect(text).not.toMatch(/partially_published|\bpublished,/);
  });

  it('refuses a missing caption naming the action\'s inputs, before anything is sent (exit 2)', async () => {
    const r = await runStep({ ...basics(), caption: '' });
    expect(r.code).toBe(2);
    expect(r.log).toContain('::error title=vidpub (exit 2)::the input "caption" is empty: give the caption (caption: TEXT),%0Aor "no-caption: true" to post without one');
    expect(r.log).not.toContain('--caption');
    expect(await emu.requests()).toEqual([]);
    const both = await runStep({ ...basics(), 'no-caption': 'true' });
    expect(both.code).toBe(2);
    expect(both.log).toContain('::error title=vidpub (exit 2)::give the input "caption" or "no-caption: true", not both');
    expect(await emu.requests()).toEqual([]);
  });

  it('posts an empty caption with no-caption: true', async () => {
    const r = await runStep({ ...basics(), caption: '', 'no-caption': 'true' });
    expect(r.code, r.log).toBe(0);
    const post = await emu.api.get(`/posts/${r.outputs['post-id']}`);
    expect((post.body as { caption: unknown }).caption).toBe('');
  });

  it('names the options input, not vidpub\'s --option flag, when a required option is missing', async () => {
    const r = await runStep({ ...basics(), to: 'tiktok' });
    expect(r.code).toBe(2);
    const error = r.log.split('\n').find((l) => l.startsWith('::error'));
    expect(error).toContain('options: tiktok:privacy=VALUE');
    expect(error).not.toContain('--option');
  });
});

describe('a batch: the manifest, shard and report inputs', () => {
  it('build vidpub batch MANIFEST --shard I/N --report FILE, refusing the post inputs beside them', () => {
    const env = (inputs: Record<string, string>) => Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v]));
    expect(batchArgs(env({ manifest: 'week.yaml', shard: '2/4', report: 'reports/shard-2.json', timeout: '20m' }))).toEqual({
      args: ['batch', 'week.yaml', '--shard', '2/4', '--report', 'reports/shard-2.json', '--timeout', '20m', '--yes', '--no-input', '--json'],
    });
    expect(batchArgs(env({ manifest: '-odd.csv' }))).toEqual({ args: ['batch', './-odd.csv', '--yes', '--no-input', '--json'] });
    expect(batchArgs(env({ manifest: 'week.yaml', to: 'youtube', caption: 'x' }))).toEqual({
      problem: 'the input "manifest" runs a batch: its items say what to post; leave out to, caption',
    });
  });

  it('runs the batch of the manifest input: every item posted, the items by status in the summary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-action-batch-'));
    const manifest = join(dir, 'week.jsonl');
    // One clip to two destinations: the same video twice to one would be refused as a duplicate (exit 2).
    writeFileSync(manifest, [['one', 'youtube'], ['two', 'linkedin']].map(([c, to]) => JSON.stringify({ file: clip, to, caption: `Clip ${c}` })).join('\n') + '\n');
    const r = await runStep({ manifest, wait: 'false', 'api-key': emu.key(), 'base-url': emu.baseUrl });
    expect(r.code, r.log).toBe(0);
    expect(await postsMade()).toBe(2);
    expect(r.summary).toContain(`### vidpub batch: ${manifest}`);
    expect(r.summary).toMatch(/\| \w+ \| 2 \|/);
    expect(r.outputs['post-id']).toBe('');
  });
});

describe('the record, whatever its shape', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-action-shapes-'));
  /** A stand-in for vidpub (the `vidpub` input): prints `record` on stdout and exits with `code`. */
  function standIn(record: unknown, code: number): string {
    const file = join(dir, `vidpub-${code}-${Math.random().toString(36).slice(2)}`);
    writeFileSync(join(`${file}.json`), typeof record === 'string' ? record : JSON.stringify(record));
    writeFileSync(file, `#!/bin/sh\necho 'a line of progress' >&2\ncat '${file}.json'\nexit ${code}\n`);
    chmodSync(file, 0o755);
    return file;
  }
  const inputs = (vidpub: string) => ({ file: 'clip.mp4', to: 'youtube', caption: 'x', 'api-key': 'vp_live_demo_rw_0000000000000000', vidpub });

  it('reads warnings and failures as objects, strings, lists or nothing, and odd destinations, without failing the step', async () => {
    const record = {
      id: 'post_odd',
      status: 'completed',
      destinations: [
        { destination_id: 'dst_a', status: 'published', url: 'https://example.com/a', warning: 'converted to MP4' },
        { destination_id: 'dst_b', status: 'published_with_notes', warning: { code: 'video_converted' } },
        { destination_id: 'dst_c', status: 'failed', failure: { message: 'refused | <b>bold</b> *now*' }, warning: [{ message: 'one' }, 'two', null] },
        { status: 'published', url: 'javascript:alert(1)', warning: { message: 'line\none' }, failure: null },
        { destination_id: 'dst_e', warning: 42 },
        null,
        'junk',
      ],
    };
    const r = await runStep(inputs(standIn(record, 6)));
    expect(r.code, r.log).toBe(6);
    expect(r.log).not.toMatch(/TypeError|::warning/);
    expect(r.outputs).toEqual({ 'post-id': 'post_odd', 'media-id': '', status: 'failed', urls: JSON.stringify(['https://example.com/a', 'javascript:alert(1)']) });
    const rows = r.summary.split('\n').filter((l) => l.startsWith('| dst') || l.startsWith('|  |'));
    expect(rows).toEqual([
      '| dst_a | published | <https://example.com/a> | converted to MP4 |',
      '| dst_b | published_with_notes |  | video_converted |',
      '| dst_c | failed |  | refused \\| &lt;b\\>bold&lt;/b\\> \\*now\\*; one; two |',
      '|  | published | javascript:alert\\(1\\) | line one |',
      '| dst_e |  |  | 42 |',
    ]);
  });

  it('takes a record without an id or no JSON at all as no post: vidpub\'s exit code, no outputs', async () => {
    const none = await runStep(inputs(standIn({ status: 'completed' }, 0)));
    expect(none.code, none.log).toBe(0);
    expect(none.outputs).toEqual({ 'post-id': '', 'media-id': '', status: '', urls: '' });
    expect(none.summary).toBe('');
    const text = await runStep(inputs(standIn('not json', 1)));
    expect(text.code).toBe(1);
    expect(text.log).toMatch(/^::error title=vidpub \(exit 1\)::a line of progress$/m);
  });

  it('writes notes of every shape as text', () => {
    expect(noticeText({ code: 'c', message: 'm' })).toBe('m (c)');
    expect(noticeText({ message: 'm' })).toBe('m');
    expect(noticeText({ other: 1 })).toBe('{"other":1}');
    expect(noticeText(['a', { code: 'b' }, undefined])).toBe('a; b');
    expect(noticeText(undefined)).toBe('');
  });
});

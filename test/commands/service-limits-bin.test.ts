/**
 * The table of the service's limits (test/support/service-limits.ts) against
 * the client's checks, through `vidpub post`: a value over a
 * limit is exit 2 before any upload (the emulator's request log holds no media
 * request and no write), in the words the emulator says too
 * (test/emulator/service-limits.test.ts); a value at the limit goes through
 * and the emulator holds it as sent.
 *
 * The cases run in-process (runCli: the same main(argv, ctx) over real HTTP,
 * an env of its own); one runs the built bin end to end, a caption of ZWJ
 * emoji at the limit, so that the values' UTF-8 crosses a real command line
 * (execve, Node's decoding of argv) and arrives as sent. A start of the bin
 * per case added its CPU, not a state: what counts a value is main's.
 */
import { copyFileSync, mkdtempSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { shortWaits } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { LIMIT_CASES, limitCaseName, type LimitCase } from '../support/service-limits.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const CLIP = 'test/fixtures/clip.mp4';

beforeAll(() => ensureBuilt(), 120_000);

/** The emulator's URL and key, a config and state directory of its own. */
function vidpubEnv(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-limits-'));
  return { ...emu.env(), NO_COLOR: '1', TZ: 'UTC', VIDPUB_CONFIG_DIR: dir, VIDPUB_STATE_DIR: join(dir, 'state') };
}

/**
 * In-process (its env holds nothing of this process's), the bin's result shape. Its waits are 20 times
 * shorter than asked (its looks at the video processing, a second apart, come 50 ms apart), but its
 * now is the real time, the emulator's: a post scheduled exactly the limit ahead is measured by both
 * from the same now, however long the run takes on a loaded machine (a clock 20 times faster ran
 * ahead of the emulator's and missed the limit there).
 */
async function vidpub(args: string[]) {
  const r = await runCli(args, { env: vidpubEnv(), clock: shortWaits(20) });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** The built bin with no VIDPUB_* of this process. */
function vidpubBin(args: string[]) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VIDPUB_')));
  return runAsync(process.execPath, [BIN, ...args], { env: { ...clean, ...vidpubEnv() }, timeoutMs: 90_000 });
}

/** The clip, grown (sparse) to `size` bytes: a file of that size that still reads as an MP4. */
function clipOfSize(size: number): string {
  const path = join(mkdtempSync(join(tmpdir(), 'vidpub-limits-file-')), 'big.mp4');
  copyFileSync(CLIP, path);
  truncateSync(path, size);
  return path;
}

/** `vidpub post` carrying the case's value (--json for one that fits: the post's record on stdout). */
function postArgs(c: LimitCase): string[] {
  const common = ['--to', 'youtube', '--no-input', ...(c.fits ? ['--json'] : [])];
  switch (c.rule) {
    case 'caption':
      return ['post', CLIP, ...common, '--draft', '--caption', c.value as string];
    case 'option value':
      return ['post', CLIP, ...common, '--draft', '--caption', 'x', '--option', `youtube:title=${c.value as string}`];
    case 'schedule':
      // Whole minutes after the bin's own now: exactly the limit, or a minute over.
      return ['post', CLIP, ...common, '--caption', 'x', '--at', `+${(c.value as number) / 60_000}m`];
    case 'file size':
      return ['post', clipOfSize(c.value as number), ...common, '--draft', '--caption', 'x'];
  }
}

/** What the emulator saw on /v1 and the upload links (anything but its test controls). */
async function seen(): Promise<{ method: string; path: string; status: number }[]> {
  return (await emu.requests()).map(({ method, path, status }) => ({ method, path, status }));
}

// A case that fits uploads and posts: generous on a loaded machine.
describe('the service limits, against the client', { timeout: 120_000 }, () => {
  it('through the built bin: a caption of 2,000 ZWJ family emoji (10,000 code points) crosses the command line whole, posted and held as sent', async () => {
    const c = LIMIT_CASES.find((x) => x.rule === 'caption' && x.fits && x.name.startsWith('2,000 ZWJ family emoji'))!;
    const r = await vidpubBin(postArgs(c));
    expect(r.stderr).not.toMatch(/^Error/m);
    expect(r.status).toBe(0);
    const id = (JSON.parse(r.stdout) as { id: string }).id;
    expect((await emu.api.get(`/posts/${id}`)).body).toMatchObject({ status: 'draft', caption: c.value });
  });

  it.each(LIMIT_CASES.filter((c) => !c.fits).map((c) => [limitCaseName(c), c] as const))('%s: exit 2 before any upload, in the emulator\'s words', async (_name, c) => {
    const r = await vidpub(postArgs(c));
    expect(r.stderr).toMatch(/^Error: .+/m);
    expect(/^Error: .*$/m.exec(r.stderr)?.[0]).toContain(c.words);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    const requests = await seen();
    expect(requests.filter((q) => /media|upload/.test(q.path))).toEqual([]);
    expect(requests.filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it.each(LIMIT_CASES.filter((c) => c.fits && c.rule !== 'file size').map((c) => [limitCaseName(c), c] as const))('%s: posted, and the emulator holds it as sent', async (_name, c) => {
    const r = await vidpub(postArgs(c));
    expect(r.stderr).not.toMatch(/^Error/m);
    expect(r.status).toBe(0);
    const id = (JSON.parse(r.stdout) as { id: string }).id;
    const post = (await emu.api.get(`/posts/${id}`)).body;
    if (c.rule === 'caption') expect(post).toMatchObject({ status: 'draft', caption: c.value });
    if (c.rule === 'option value') expect(post.destinations[0].options.title).toBe(c.value);
    if (c.rule === 'schedule') {
      expect(post.status).toBe('scheduled');
      const ahead = Date.parse(post.publish_at) - Date.parse(post.created_at);
      // The bin's now is a little before the post was made: the time is the limit after it, to the second.
      expect(ahead).toBeLessThanOrEqual(c.value as number);
      expect(ahead).toBeGreaterThan((c.value as number) - 60_000);
    }
  });

  // 1 GB is not uploaded here: the bin's check lets the file through when it asks for the upload.
  // The test stops it there with an answer of its own; the emulator's side is in test/emulator.
  it.each(LIMIT_CASES.filter((c) => c.fits && c.rule === 'file size').map((c) => [limitCaseName(c), c] as const))('%s: the check lets it through to POST /v1/media/uploads', async (_name, c) => {
    const body = JSON.stringify({ error: { type: 'conflict', code: 'stopped_by_test', message: 'Stopped by the test before the upload.' } });
    await emu.fault({ method: 'POST', path: '/v1/media/uploads', action: 'status', status: 409, body, content_type: 'application/json' });
    const r = await vidpub(postArgs(c));
    expect(r.stderr).not.toContain('the service accepts at most 1 GB');
    expect(r.stderr).toContain('Stopped by the test before the upload.');
    expect(r.status).not.toBe(0);
    expect((await seen()).filter((q) => /media|upload/.test(q.path))).toEqual([{ method: 'POST', path: '/v1/media/uploads', status: 409 }]);
  });
});

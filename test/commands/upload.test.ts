import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, truncateSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { manualClock, scaledClock, timeUpWhen } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 30 });
const dir = mkdtempSync(join(tmpdir(), 'vidpub-upload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CLIP = join(__dirname, '..', 'fixtures', 'clip.mp4');
const WEBM = join(__dirname, '..', 'fixtures', 'clip.webm');
/** Polls every 100 ms instead of every second: the emulator is fast, the test should be too. */
const fast = () => scaledClock(10);

function copyOf(name: string, from = CLIP): string {
  const p = join(dir, name);
  copyFileSync(from, p);
  return p;
}

const run = cliRunner(() => ({ clock: fast(), env: emu.env() }));

const puts = async () => (await emu.requests()).filter((r) => r.method === 'PUT');
const creates = async () => (await emu.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/media/uploads');


describe('vidpub upload: the happy path', () => {
  it('creates, PUTs without Authorization, completes, waits until ready, and prints the media id', async () => {
    const r = await run(['upload', CLIP]);
    expect(r.code).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^med_\w+$/);
    expect(r.stderr).toMatch(/Uploading clip\.mp4 \(0\.01 MB\)/);
    expect(r.stderr).toMatch(/Uploading clip\.mp4: 100%/);
    expect(r.stderr).toMatch(new RegExp(`Uploaded clip\\.mp4: video ${id} is ready \\(2 s long\\)\\.`));
    const log = await emu.requests();
    expect(log.map((q) => `${q.method} ${q.path.replace(id, 'ID')}`).slice(0, 3)).toEqual([
      'POST /v1/media/uploads',
      'PUT /_uploads/ID',
      'POST /v1/media/ID/complete',
    ]);
    expect(log.filter((q) => q.method === 'GET').every((q) => q.path === `/v1/media/${id}`)).toBe(true);
    const put = log.find((q) => q.method === 'PUT')!;
    expect(put.status).toBe(200);
    expect(put.authorization).toBe(false);
    expect(log.filter((q) => q.path.startsWith('/v1/')).every((q) => q.authorization)).toBe(true);
  });

  it('prints the ready media record with --json', async () => {
    const r = await run(['upload', CLIP, '--json']);
    expect(r.code).toBe(0);
    const media = JSON.parse(r.stdout);
    expect(media).toMatchObject({ status: 'ready', filename: 'clip.mp4', content_type: 'video/mp4', size_bytes: 13734 });
    expect(media.id).toMatch(/^med_/);
  });

  it('uploads WebM with its content type', async () => {
    const r = await run(['upload', WEBM, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ready', content_type: 'video/webm' });
  });

  it('returns after complete with --no-wait (the video is processing)', async () => {
    const r = await run(['upload', CLIP, '--no-wait', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('processing');
    expect(r.stderr).toMatch(/is processing; the service goes on with it/);
    expect((await emu.requests()).some((q) => q.method === 'GET')).toBe(false);
  });

  it('prints nothing but the id with --quiet', async () => {
    const r = await run(['upload', CLIP, '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^med_\w+\n$/);
    expect(r.stderr).toBe('');
  });

  it('shows a bar with MB/s and ETA, then a spinner, when stderr is a terminal', async () => {
    const r = await run(['upload', CLIP], { tty: { stderr: true } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Uploading clip\.mp4 \[.*\] \d+% \| [\d.]+\/0\.01 MB \| [\d.]+ MB\/s \| ETA/);
    expect(r.stderr).toMatch(/Processing \d+%/);
  });

  it('logs the PUT with --debug, the signed query redacted', async () => {
    const r = await run(['upload', CLIP, '--debug', '--no-wait']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/PUT http:\/\/127\.0\.0\.1:\d+\/_uploads\/med_\w+\?\[redacted\]/);
    expect(r.stderr).not.toMatch(/sig=/);
  });
});

describe('vidpub upload: bad input is refused before any request', () => {
  async function refused(argv: string[], message: RegExp) {
    const r = await run(argv);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
    expect(await emu.requests()).toEqual([]);
  }

  it('a missing file', () => refused(['upload', join(dir, 'missing.mp4')], /Error: .*missing\.mp4: no such file/));

  it('a directory', async () => {
    mkdirSync(join(dir, 'videos.mp4'), { recursive: true });
    await refused(['upload', join(dir, 'videos.mp4')], /Error: .*videos\.mp4 is a directory, not a regular file/);
  });

  it('an empty file', async () => {
    writeFileSync(join(dir, 'empty.mp4'), '');
    await refused(['upload', join(dir, 'empty.mp4')], /Error: .*empty\.mp4 is empty \(0 bytes\)/);
  });

  it('1 GB + 1 byte (a sparse file)', async () => {
    const p = copyOf('huge.mp4');
    truncateSync(p, 1_000_000_001);
    await refused(['upload', p], /Error: .*huge\.mp4 is too large: 1,000,000,001 bytes; the service accepts at most 1 GB/);
  });

  it('a wrong extension', async () => {
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    await refused(['upload', join(dir, 'notes.txt')], /Error: .*unsupported file type "\.txt"; the service accepts MP4, MOV, WebM, AVI or MTS/);
  });

  it('an extension that lies about the content', async () => {
    await refused(['upload', copyOf('really-webm.mp4', WEBM)], /Error: .*really-webm\.mp4 is named \.mp4 but contains WebM data/);
    writeFileSync(join(dir, 'text.mov'), 'not a video at all');
    await refused(['upload', join(dir, 'text.mov')], /Error: .*text\.mov is named \.mov but contains text/);
  });

  it('a bad --timeout', () => refused(['upload', CLIP, '--timeout', 'soon'], /Error: invalid --timeout "soon"/));
});

describe('vidpub upload: faults', () => {
  afterEach(async () => {
    await emu.admin('POST', '/settings', { processing_ms: 30 });
  });

  it('an expired link (403 on the PUT): gets a new upload and sends again', async () => {
    // The PUT waits 300 ms at the emulator; meanwhile its clock moves past the link's expiry.
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'delay', ms: 300, times: 1 });
    let advanced: Promise<void> | undefined;
    const r = await run(['upload', CLIP], {
      onStderr: (s) => {
        if (!advanced && s.includes('Uploading clip.mp4 (')) advanced = emu.advance(2 * 3600);
      },
    });
    await advanced;
    expect(r.stderr).toMatch(/The upload link was refused \(.*expired.*\); starting a new upload/);
    expect(r.code).toBe(0);
    expect((await creates()).length).toBe(2);
    const p = await puts();
    expect(p.map((q) => q.status)).toEqual([403, 200]);
    expect(p.every((q) => !q.authorization)).toBe(true);
  });

  it('a refused link (injected 403): a second POST /media/uploads, then success', async () => {
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'status', status: 403, times: 1 });
    const r = await run(['upload', CLIP]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/The upload link was refused/);
    expect((await creates()).length).toBe(2);
  });

  it('a link refused every time: gives up after two new links', async () => {
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'status', status: 403, times: 10 });
    const r = await run(['upload', CLIP]);
    expect(r.stderr).toMatch(/Error: the upload link was refused/);
    expect(r.code).toBe(1);
    expect((await creates()).length).toBe(3);
  });

  it('a connection dropped mid-PUT: sent again from the start with a fresh stream', async () => {
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'reset_before_handling', times: 1 });
    const r = await run(['upload', CLIP, '--json']);
    expect(r.stderr).toMatch(/Upload interrupted \(the connection was dropped\); sending it again from the start in .* \(attempt 2\)/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('ready');
    expect((await creates()).length).toBe(1);
    expect((await puts()).at(-1)!.status).toBe(200);
  });

  it('a storage 503 on the PUT is retried', async () => {
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'status', status: 503, retry_after: 0, times: 2 });
    const r = await run(['upload', CLIP]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/the storage answered 503.*\(attempt 3\)/);
  });

  it('processing failed: exit 6 with error.message, the media id still on stdout', async () => {
    await emu.fault({ media_fail: 'broken' });
    const r = await run(['upload', copyOf('broken.mp4')]);
    expect(r.stderr).toMatch(/Error: Video med_\w+ \(broken\.mp4\) failed: The video could not be processed/);
    expect(r.code).toBe(6);
    expect(r.stdout).toMatch(/^med_\w+$/m);
  });

  it('processing failed with --json: the failed record on stdout', async () => {
    await emu.fault({ media_fail: 'broken' });
    const r = await run(['upload', copyOf('broken.mp4'), '--json']);
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'failed', error: { message: expect.stringMatching(/could not be processed/) } });
  });

  it('--timeout reached: exit 7 naming the media id and how to carry on', async () => {
    await emu.admin('POST', '/settings', { processing_ms: 60_000 });
    // The 5 s run out on a clock that moves only when told, once the complete is answered and vidpub waits to
    // look at the processing (never during the upload, however slow the machine).
    const clock = manualClock();
    const running = run(['upload', CLIP, '--timeout', '5s'], { clock });
    await timeUpWhen(clock, 5000, async () => (await emu.requests()).some((q) => q.path.endsWith('/complete') && q.status === 200));
    const r = await running;
    const id = /video (med_\w+) is still processing/.exec(r.stderr)?.[1];
    expect(r.stderr).toMatch(/Error: Stopped waiting \(--timeout reached\): video med_\w+ is still processing \(0%\)/);
    expect(id).toBeDefined();
    expect(r.stderr).toContain(`vidpub post --media ${id}`);
    expect(r.code).toBe(7);
  });

  it('a file that changes size during the upload: exit 2', async () => {
    const p = copyOf('growing.mp4');
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'delay', ms: 300, times: 1 });
    const r = await run(['upload', p], {
      onStderr: (s) => {
        if (s.includes('Uploading growing.mp4 (')) appendFileSync(p, Buffer.alloc(1000));
      },
    });
    expect(r.stderr).toMatch(/Error: growing\.mp4 changed size during the upload \(it was 13,734 bytes, now (14,734|larger)\)/);
    expect(r.code).toBe(2);
    expect(readFileSync(p).length).toBe(14_734);
  });
});

describe('vidpub upload: Ctrl-C', () => {
  afterEach(async () => {
    await emu.admin('POST', '/settings', { processing_ms: 30 });
  });

  it('during the upload: stops, names the media id, exit 130', async () => {
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'delay', ms: 5000, times: 1 });
    const ac = new AbortController();
    const r = await run(['upload', CLIP], {
      signal: ac.signal,
      onStderr: (s) => {
        if (s.includes('Uploading clip.mp4 (')) setTimeout(() => ac.abort(), 50);
      },
    });
    expect(r.stderr).toMatch(/Error: Interrupted during the upload of clip\.mp4 \(video med_\w+, \d+% sent\); it was not completed/);
    expect(r.code).toBe(130);
  });

  it('during the wait: stops, says the video is still processing, exit 130', async () => {
    await emu.admin('POST', '/settings', { processing_ms: 60_000 });
    const ac = new AbortController();
    const r = await run(['upload', CLIP], {
      signal: ac.signal,
      onStderr: (s) => {
        if (s.includes('Processing')) ac.abort();
      },
    });
    expect(r.stderr).toMatch(/Error: Interrupted: stopped waiting for video med_\w+, which is still processing/);
    expect(r.stderr).toMatch(/vidpub post --media med_\w+/);
    expect(r.code).toBe(130);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { manualClock, scaledClock, timeUpWhen } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 30 });
const LINK = 'https://cdn.example.com/videos/launch.mp4';

const run = cliRunner(() => ({ clock: scaledClock(10), env: emu.env() }));

const importRequests = async () => (await emu.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/media/imports');

afterEach(async () => {
  await emu.admin('POST', '/settings', { processing_ms: 30 });
});

describe('vidpub import', () => {
  it('imports a link, shows the download, waits until ready, prints the media id', async () => {
    const r = await run(['import', LINK]);
    expect(r.code).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^med_\w+$/);
    expect(r.stderr).toMatch(/Downloading: \d+%/);
    expect(r.stderr).toMatch(new RegExp(`Imported launch\\.mp4: video ${id} is ready`));
    const [req] = await importRequests();
    expect(req).toMatchObject({ status: 201, authorization: true });
  });

  it('names the video with --filename and prints the record with --json', async () => {
    const r = await run(['import', LINK, '--filename', 'Launch day.mp4', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ready', filename: 'Launch day.mp4', source: 'import' });
  });

  it('returns at once with --no-wait (the video is downloading)', async () => {
    const r = await run(['import', LINK, '--no-wait', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('uploading');
    expect(r.stderr).toMatch(/is downloading; the service goes on with it/);
    expect((await emu.requests()).some((q) => q.method === 'GET')).toBe(false);
  });

  it('shows a spinner with the phase and percent on a terminal', async () => {
    const r = await run(['import', LINK], { tty: { stderr: true } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/(Downloading|Processing) \d+%/);
  });
});

describe('vidpub import: bad links are refused before any request', () => {
  async function refused(argv: string[], message: RegExp, hint?: RegExp) {
    const r = await run(argv);
    expect(r.stderr).toMatch(message);
    if (hint) expect(r.stderr).toMatch(hint);
    expect(r.code).toBe(2);
    expect(await emu.requests()).toEqual([]);
  }

  it('an http:// link', () => refused(['import', 'http://cdn.example.com/videos/launch.mp4'], /Error: the import link must use https, not http/));

  it('a link to a page that plays the video', () =>
    refused(['import', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'], /Error: the import link points to a page, not a video file/, /direct link to the video file itself .*not a page that plays it/));

  it('a link to a file of another type', () => refused(['import', 'https://example.com/slides.pdf'], /Error: the import link points to a \.pdf file, not MP4, MOV, WebM, AVI or MTS video/));

  it('a --filename that is a path', () => refused(['import', LINK, '--filename', '../x.mp4'], /Error: --filename must be a file name, not a path/));
});

describe('vidpub import: failures', () => {
  it('processing failed: exit 6 with error.message', async () => {
    await emu.fault({ media_fail: 'launch' });
    const r = await run(['import', LINK]);
    expect(r.stderr).toMatch(/Error: Video med_\w+ \(launch\.mp4\) failed: The video could not be processed/);
    expect(r.code).toBe(6);
  });

  it('a link the service finds to be a page when downloading: exit 6 with its message', async () => {
    const r = await run(['import', 'https://example.com/watch/launch.mp4']);
    expect(r.stderr).toMatch(/Error: Video med_\w+ \(launch\.mp4\) failed: The link opened a web page/);
    expect(r.code).toBe(6);
  });

  it('--timeout reached: exit 7 naming the media id', async () => {
    await emu.admin('POST', '/settings', { processing_ms: 60_000 });
    // The 5 s run out on a clock that moves only when told, once the import is answered and vidpub waits to look
    // at the download.
    const clock = manualClock();
    const running = run(['import', LINK, '--timeout', '5s'], { clock });
    await timeUpWhen(clock, 5000, async () => (await importRequests()).some((q) => q.status === 201 || q.status === 200));
    const r = await running;
    expect(r.stderr).toMatch(/Error: Stopped waiting \(--timeout reached\): video med_\w+ is still downloading \(0%\)/);
    expect(r.stderr).toMatch(/vidpub post --media med_\w+/);
    expect(r.code).toBe(7);
  });

  it('Ctrl-C while downloading: exit 130 naming the media id', async () => {
    await emu.admin('POST', '/settings', { processing_ms: 60_000 });
    const ac = new AbortController();
    const r = await run(['import', LINK], {
      signal: ac.signal,
      onStderr: (s) => {
        if (s.includes('Downloading')) ac.abort();
      },
    });
    expect(r.stderr).toMatch(/Error: Interrupted: stopped waiting for video med_\w+, which is still downloading/);
    expect(r.code).toBe(130);
  });
});

describe('vidpub import: at most 5 imports downloading at once', () => {
  async function fiveInFlight(): Promise<void> {
    await emu.admin('POST', '/settings', { processing_ms: 60_000 });
    for (let i = 1; i <= 5; i++) {
      const r = await run(['import', `https://cdn.example.com/v/${i}.mp4`, '--no-wait']);
      expect(r.code).toBe(0);
    }
  }

  it('the sixth waits Retry-After, saying so, and gives up past --max-wait: exit 4', async () => {
    await fiveInFlight();
    const r = await run(['import', LINK, '--max-wait', '1m'], { clock: scaledClock(200) });
    expect(r.stderr).toMatch(/Rate limited \(imports_in_flight\); retrying in 3[0-2]s/);
    expect(r.stderr).toMatch(/Error: Rate limited \(imports_in_flight\) after waiting 1m/);
    expect(r.code).toBe(4);
    expect((await importRequests()).map((q) => q.status)).toEqual([201, 201, 201, 201, 201, 429, 429, 429]);
  });

  it('the sixth with a --max-wait shorter than Retry-After: exit 4 at once', async () => {
    await fiveInFlight();
    const r = await run(['import', LINK, '--max-wait', '10s']);
    expect(r.stderr).toMatch(/Error: Rate limited \(imports_in_flight\): the service asks to wait 30s, more than --max-wait \(10s\) allows/);
    expect(r.code).toBe(4);
  });

  it('the sixth goes through once a slot is free', async () => {
    await fiveInFlight();
    let freed: Promise<unknown> | undefined;
    const r = await run(['import', LINK, '--no-wait'], {
      clock: scaledClock(200),
      onStderr: (s) => {
        // The five downloads end (the emulator forgets them) while the sixth waits.
        if (!freed && s.includes('imports_in_flight')) freed = emu.reset();
      },
    });
    await freed;
    expect(r.stderr).toMatch(/Rate limited \(imports_in_flight\); retrying in 3[0-2]s/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^med_\w+$/m);
  });
});

import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { KEYS } from '../support/rest.js';

const emu = useEmulator();

const imp = (url: unknown, filename?: string) => emu.api.post('/media/imports', filename === undefined ? { url } : { url, filename });

describe('POST /media/imports validation', () => {
  it('400 invalid_url for links that are not a public HTTPS link straight to a video file', async () => {
    const bad = [
      'not a url',
      'http://cdn.example.com/clip.mp4',
      'ftp://cdn.example.com/clip.mp4',
      'https://cdn.example.com/videos/clip',
      'https://cdn.example.com/page.html',
      'https://www.youtube.com/watch?v=abc123',
      'https://vimeo.com/12345.mp4',
      'https://localhost/clip.mp4',
      'https://192.168.1.20/clip.mp4',
      'https://user:pw@cdn.example.com/clip.mp4',
    ];
    for (const url of bad) {
      const r = await imp(url);
      expect(r.status, url).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_url', param: 'url' });
    }
    const page = await imp('https://cdn.example.com/videos/clip');
    expect(page.body.error.message).toContain('direct link to the video file');
    expect(page.body.error.message).toContain('not a page that plays it');
    const yt = await imp('https://www.youtube.com/watch?v=abc123');
    expect(yt.body.error.message).toContain('page that plays the video');
  });

  it('400 missing_field / invalid_field for a missing url or a bad filename', async () => {
    const missing = await emu.api.post('/media/imports', {});
    expect(missing.body.error).toMatchObject({ code: 'missing_field', param: 'url' });
    const notString = await imp(42);
    expect(notString.body.error).toMatchObject({ code: 'invalid_field', param: 'url' });
    const badName = await emu.api.post('/media/imports', { url: 'https://cdn.example.com/a.mp4', filename: 7 });
    expect(badName.body.error).toMatchObject({ code: 'invalid_field', param: 'filename' });
  });
});

describe('import sequence', () => {
  it('uploading (downloading) -> processing -> ready, returned at once', async () => {
    await emu.api.admin('POST', '/settings', { processing_ms: 1000 });
    const r = await imp('https://cdn.example.com/media/Summer%20Clip.MOV?duration_sec=42');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      status: 'uploading',
      filename: 'Summer Clip.MOV',
      content_type: 'video/quicktime',
      size_bytes: null,
      source: 'import',
      progress: { phase: 'downloading', percent: 0 },
    });
    const id = r.body.id;
    const mid = await waitFor(() => emu.api.get(`/media/${id}`), (m) => m.body.progress?.percent >= 25);
    expect(mid.body).toMatchObject({ status: 'uploading', progress: { phase: 'downloading' } });
    const processing = await waitFor(() => emu.api.get(`/media/${id}`), (m) => m.body.status === 'processing');
    expect(processing.body.progress.phase).toBe('processing');
    expect(processing.body.size_bytes).toBe(10_000_000);
    const ready = await waitFor(() => emu.api.get(`/media/${id}`), (m) => m.body.status === 'ready');
    expect(ready.body.duration_sec).toBe(42);
    expect(ready.body.progress).toBeUndefined();
  });

  it('uses the given filename; default duration 30 s', async () => {
    const r = await imp('https://cdn.example.com/a.webm', 'my video.webm');
    expect(r.body.filename).toBe('my video.webm');
    expect(r.body.content_type).toBe('video/webm');
    const ready = await waitFor(() => emu.api.get(`/media/${r.body.id}`), (m) => m.body.status === 'ready');
    expect(ready.body.duration_sec).toBe(30);
  });

  it('a host that cannot be reached (.invalid) ends failed with a clear message', async () => {
    const r = await imp('https://videos.example.invalid/clip.mp4');
    expect(r.status).toBe(201);
    const failed = await waitFor(() => emu.api.get(`/media/${r.body.id}`), (m) => m.body.status === 'failed');
    expect(failed.body.error.code).toBe('download_failed');
    expect(failed.body.error.message).toContain('videos.example.invalid was not found');
  });

  it('a link that opens a page (player path, Dropbox dl=0) ends failed', async () => {
    for (const url of ['https://cdn.example.com/player/clip.mp4', 'https://www.dropbox.com/s/abc/clip.mp4?dl=0']) {
      const r = await imp(url);
      expect(r.status).toBe(201);
      const failed = await waitFor(() => emu.api.get(`/media/${r.body.id}`), (m) => m.body.status === 'failed');
      expect(failed.body.error).toMatchObject({ code: 'not_a_video_file' });
      expect(failed.body.error.message).toContain('web page');
    }
    const direct = await imp('https://www.dropbox.com/s/abc/clip.mp4?dl=1');
    expect((await waitFor(() => emu.api.get(`/media/${direct.body.id}`), (m) => m.body.status === 'ready')).body.status).toBe('ready');
  });

  it('the media_fail fault makes a matching import fail in processing', async () => {
    await emu.api.fault({ media_fail: 'cdn.example.com/bad' });
    const r = await imp('https://cdn.example.com/bad/clip.mp4');
    const failed = await waitFor(() => emu.api.get(`/media/${r.body.id}`), (m) => m.body.status === 'failed');
    expect(failed.body.error.code).toBe('processing_failed');
    expect(failed.body.size_bytes).toBe(10_000_000);
  });
});

describe('imports in flight', () => {
  it('at most 5 downloading per workspace: the sixth gets 429 imports_in_flight, Retry-After 30; not counted once no longer downloading', async () => {
    await emu.api.freshMinute(); // one minute window for the writes counted below
    // the first download takes 1 s, the others a minute: the cap is reached for a while
    await emu.api.admin('POST', '/settings', { processing_ms: 1000 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      if (i === 1) await emu.api.admin('POST', '/settings', { processing_ms: 60_000 });
      const r = await imp(`https://cdn.example.com/v${i}.mp4`);
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    const sixth = await imp('https://cdn.example.com/v6.mp4');
    expect(sixth.status).toBe(429);
    expect(sixth.body.error).toMatchObject({ type: 'rate_limited', code: 'imports_in_flight' });
    expect(sixth.headers['retry-after']).toBe('30');
    // the 429 gave its write back: 5 writes used
    expect(sixth.headers['x-ratelimit-remaining']).toBe('15');
    expect((await emu.api.admin('GET', '/state')).body.workspaces[0].media.imports_downloading).toBe(5);

    // uploads do not count, nor do other workspaces
    expect((await emu.api.post('/media/uploads', { filename: 'a.mp4', size_bytes: 1, content_type: 'video/mp4' })).status).toBe(201);
    expect((await emu.api.as(KEYS.second_rw).post('/media/imports', { url: 'https://cdn.example.com/other.mp4' })).status).toBe(201);

    await waitFor(() => emu.api.get(`/media/${ids[0]}`), (m) => m.body.status !== 'uploading');
    const seventh = await imp('https://cdn.example.com/v7.mp4');
    expect(seventh.status).toBe(201);
  });

  it('failed downloads stop counting too', async () => {
    await emu.api.admin('POST', '/settings', { processing_ms: 5000 });
    for (let i = 0; i < 4; i++) expect((await imp(`https://cdn.example.com/slow${i}.mp4`)).status).toBe(201);
    await emu.api.admin('POST', '/settings', { processing_ms: 30 });
    const fails = await imp('https://gone.invalid/x.mp4');
    expect(fails.status).toBe(201);
    await waitFor(() => emu.api.get(`/media/${fails.body.id}`), (m) => m.body.status === 'failed');
    await emu.api.admin('POST', '/settings', { processing_ms: 5000 });
    expect((await imp('https://cdn.example.com/fifth.mp4')).status).toBe(201);
    expect((await imp('https://cdn.example.com/sixth.mp4')).status).toBe(429);
  });
});

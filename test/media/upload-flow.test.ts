import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeContext } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { http } from '../support/rest.js';
import { makeInvocation } from '../../src/cli/run/invocation.js';
import type { GlobalOptions } from '../../src/cli/run/command.js';
import type { CreateUploadResponse, Media } from '../../src/contract/wire-types.js';
import { checkVideoFile } from '../../src/media/check.js';
import { uploadFile } from '../../src/media/upload-flow.js';
import { importLink } from '../../src/media/import-flow.js';
import { waitForMedia } from '../../src/media/wait.js';
import { TimeoutError, WorkFailedError } from '../../src/errors.js';

const emu = useEmulator({ processingMs: 30 });
const CLIP = join(__dirname, '..', 'fixtures', 'clip.mp4');

const globals: GlobalOptions = {
  json: false,
  quiet: true,
  input: false,
  color: false,
  profile: 'default',
  debug: false,
  maxWaitMs: 60_000,
  waitForQuota: false,
};

/** The Session the CLI hands the flows (quiet, no prompts). */
function session() {
  const { ctx } = makeContext({ env: emu.env(), clock: scaledClock(10) });
  return makeInvocation(ctx, globals).session;
}

describe('uploadFile with an idempotency base', () => {
  it('a rerun replays: one upload, one PUT, one complete, the same media', async () => {
    const file = await checkVideoFile(CLIP);
    const seen: string[] = [];
    const first = await uploadFile(session(), file, { idempotencyBase: 'run-1', wait: true, onMedia: (m) => seen.push(m.id) });
    const second = await uploadFile(session(), file, { idempotencyBase: 'run-1', wait: true });
    expect(first.status).toBe('ready');
    expect(second).toMatchObject({ id: first.id, status: 'ready' });
    expect(seen).toEqual([first.id]);
    const log = await emu.requests();
    const creates = log.filter((r) => r.path === '/v1/media/uploads');
    expect(creates.map((r) => [r.idempotency_key, r.replayed])).toEqual([
      ['run-1:upload', false],
      ['run-1:upload', true],
    ]);
    expect(log.filter((r) => r.method === 'PUT')).toHaveLength(1);
    expect(log.filter((r) => r.path.endsWith('/complete')).map((r) => r.idempotency_key)).toEqual([`run-1:complete:${first.id}`]);
  });

  it('a rerun after the bytes were sent but before complete: completes without sending again', async () => {
    const file = await checkVideoFile(CLIP);
    // The first run: created and PUT, then it died.
    const created = await emu.api.post<CreateUploadResponse>('/media/uploads', { filename: file.filename, size_bytes: file.size, content_type: file.contentType }, { idem: 'run-2:upload' });
    expect(created.status).toBe(201);
    const put = await http('PUT', created.body.upload.url, { headers: created.body.upload.headers, body: readFileSync(CLIP) });
    expect(put.status).toBe(200);
    const media = await uploadFile(session(), file, { idempotencyBase: 'run-2', wait: true });
    expect(media).toMatchObject({ id: created.body.media.id, status: 'ready' });
    const puts = (await emu.requests()).filter((r) => r.method === 'PUT');
    expect(puts.map((r) => r.status)).toEqual([200, 409]);
    expect((await emu.requests()).filter((r) => r.path === '/v1/media/uploads').map((r) => r.replayed)).toEqual([false, true]);
  });

  it('without a base, every POST still carries its own Idempotency-Key', async () => {
    await uploadFile(session(), await checkVideoFile(CLIP), { wait: false });
    const posts = (await emu.requests()).filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts.every((r) => typeof r.idempotency_key === 'string' && r.idempotency_key.length > 0)).toBe(true);
    expect(new Set(posts.map((r) => r.idempotency_key)).size).toBe(2);
  });
});

describe('importLink and waitForMedia', () => {
  it('importLink with a base replays on a rerun', async () => {
    const a = await importLink(session(), 'https://cdn.example.com/a.mp4', { idempotencyBase: 'imp', wait: false });
    const b = await importLink(session(), 'https://cdn.example.com/a.mp4', { idempotencyBase: 'imp', wait: false });
    expect(b.id).toBe(a.id);
    expect((await emu.requests()).filter((r) => r.path === '/v1/media/imports').map((r) => r.replayed)).toEqual([false, true]);
  });

  it('waitForMedia: ready, failed (WorkFailedError with the record), past the deadline (TimeoutError)', async () => {
    const inv = session();
    const ok = await importLink(inv, 'https://cdn.example.com/ok.mp4', { wait: false });
    expect((await waitForMedia(inv, ok.id)).status).toBe('ready');

    await emu.fault({ media_fail: 'bad' });
    const bad = await importLink(inv, 'https://cdn.example.com/bad.mp4', { wait: false });
    const failed = await waitForMedia(inv, bad.id).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(WorkFailedError);
    expect((failed as WorkFailedError).data).toMatchObject({ id: bad.id, status: 'failed' });

    await emu.admin('POST', '/settings', { processing_ms: 60_000 });
    const slow = await importLink(inv, 'https://cdn.example.com/slow.mp4', { wait: false });
    const timedOut = await waitForMedia(inv, slow.id, { deadlineMs: inv.clock.now() + 3000 }).catch((e: unknown) => e);
    await emu.admin('POST', '/settings', { processing_ms: 30 });
    expect(timedOut).toBeInstanceOf(TimeoutError);
    expect((timedOut as TimeoutError).message).toContain(slow.id);
    expect(((timedOut as TimeoutError).data as Media).id).toBe(slow.id);
  });
});

/**
 * An upload link is let go whenever the client of its PUT goes away before the emulator has
 * counted every byte: before the body starts, half way through it, while a delay fault holds
 * the request (with none, part or all of the body sent). The next PUT to the link is then
 * received (200). A client that goes away after every byte was counted, while the answer is on
 * its way, leaves the link used: the file arrived (409 upload_link_used, and complete works).
 *
 * The client here is a raw TCP socket, destroyed at the point tested.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import { http, type Json } from '../support/rest.js';

const emu = useEmulator();
const SIZE = 100_000;

async function createUpload(size = SIZE): Promise<Json> {
  const r = await emu.api.post('/media/uploads', { filename: 'clip.mp4', size_bytes: size, content_type: 'video/mp4' });
  expect(r.status).toBe(201);
  return r.body;
}

/** Upload links of the Demo workspace a PUT is streaming to (GET /_emulator/state). */
async function receiving(): Promise<number> {
  const s = await emu.admin('GET', '/state');
  return s.workspaces.find((w: Json) => w.id === 'ws_demo').media.uploads_receiving;
}

/** Opens a connection and sends the PUT's request line and headers (and `body`, if any); resolves once written. */
async function startPut(up: Json, size: number, body?: Buffer): Promise<Socket> {
  const url = new URL(up.upload.url);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const head = `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: video/mp4\r\n`
    + `X-Upload-Length: ${size}\r\nContent-Length: ${size}\r\n\r\n`;
  await new Promise<void>((resolve, reject) => socket.write(body ? Buffer.concat([Buffer.from(head), body]) : head, (err) => (err ? reject(err) : resolve())));
  return socket;
}

/** Waits until the emulator has logged the PUT to this link (it has started handling it, or a fault holds it). */
async function logged(up: Json): Promise<void> {
  await waitFor(() => emu.requests(), (log) => log.some((e) => e.method === 'PUT' && e.path === `/_uploads/${up.media.id}`));
}

const putWhole = (up: Json, size = SIZE) => http('PUT', up.upload.url, { headers: up.upload.headers, body: Buffer.alloc(size, 1) });

async function expectUsableAgain(up: Json, size = SIZE): Promise<void> {
  const again = await putWhole(up, size);
  expect(again.body).toEqual({ media_id: up.media.id, received_bytes: size });
  expect(again.status).toBe(200);
  const done = await emu.api.post(`/media/${up.media.id}/complete`);
  expect(done.status).toBe(200);
  expect(done.body.status).toBe('processing');
}

describe('a PUT whose client goes away while the emulator is reading it', () => {
  for (const [point, sent] of [['before the body starts', 0], ['half way through the body', SIZE / 2]] as const) {
    it(`${point}: the link is let go, the next PUT is received`, async () => {
      const up = await createUpload();
      const socket = await startPut(up, SIZE, sent ? Buffer.alloc(sent, 1) : undefined);
      await waitFor(receiving, (n) => n === 1);
      const complete = await emu.api.post(`/media/${up.media.id}/complete`);
      expect(complete.status).toBe(409);
      expect(complete.body.error).toMatchObject({ type: 'conflict', code: 'upload_incomplete' });
      expect(complete.body.error.message).toContain('the upload is still in progress');
      socket.destroy();
      await waitFor(receiving, (n) => n === 0);
      await expectUsableAgain(up);
    });
  }
});

describe('a PUT whose client goes away while a delay fault holds it', () => {
  // The held request is handled once its delay is over. A second held request, sent after it and
  // delayed as long, is answered only after the first was handled (timers of the same length fire
  // in the order they were set): once it is answered, the first one's handler has met its gone client.
  // The body is small, so the emulator has taken in all that was sent (and seen the connection
  // close) before the delay is over: what the handler then meets is a request already closed. The
  // delay is long enough for that on a loaded machine (a 50 ms delay was not, at a load of 13).
  const small = 1000;
  for (const [point, sent] of [['before the body starts', 0], ['with part of the body', small / 2], ['after the whole body, before the answer', small]] as const) {
    it(`${point}: the link is let go, the next PUT is received`, async () => {
      const up = await createUpload(small);
      const after = await createUpload(small);
      await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'delay', ms: 1000, times: 2 });
      const socket = await startPut(up, small, sent ? Buffer.alloc(sent, 1) : undefined);
      await logged(up);
      socket.destroy();
      const second = await putWhole(after, small);
      expect(second.status).toBe(200);
      expect(await receiving()).toBe(0);
      await expectUsableAgain(up, small);
    });
  }
});

describe('a PUT whose client goes away after every byte was counted', () => {
  it('while the answer is on its way: the file arrived, the link is used, complete works', async () => {
    const up = await createUpload();
    await emu.fault({ method: 'PUT', path: '/_uploads/*', action: 'trickle', ms: 20, times: 1 });
    const socket = await startPut(up, SIZE, Buffer.alloc(SIZE, 1));
    // The trickled answer starts with its status line: every byte has been counted by then.
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.destroy();
    expect(await receiving()).toBe(0);
    const again = await putWhole(up);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'conflict', code: 'upload_link_used' });
    expect(again.body.error.message).toContain('the file arrived');
    const done = await emu.api.post(`/media/${up.media.id}/complete`);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('processing');
  });
});

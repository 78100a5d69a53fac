/**
 * The emulator's memory stays bounded while uploads arrive (video-store.ts): the bytes of uploads
 * in flight count against the total kept for the web app's player, so an upload that finds no
 * room keeps nothing (its video is not playable), a video declared over the per-video limit is
 * never kept, and a client that goes away gives its room back. With small limits here
 * (1,000,000 bytes in all, 700,000 a video); the scenario of 24 uploads of 64 MB held one byte
 * short is bench/pressure.bench.mjs.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { VideoBytes } from '../../src/emulator/video-store.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';
import type { Json } from '../support/rest.js';

const emu = useEmulator({ processingMs: 10, playable: { maxTotalBytes: 1_000_000, maxVideoBytes: 700_000 } });
const open: Socket[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.destroy();
});

/** An upload whose PUT has sent all but its last byte, held open; `finish` sends it and resolves with the status. */
async function heldShort(size: number): Promise<{ id: string; finish(): Promise<number>; leave(): void }> {
  const up = (await emu.api.post('/media/uploads', { filename: 'clip.webm', size_bytes: size, content_type: 'video/webm' })).body as Json;
  const url = new URL(up.upload.url);
  const socket = connect(Number(url.port), url.hostname);
  open.push(socket);
  socket.on('error', () => undefined);
  let answer = '';
  socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const head = `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: video/webm\r\nX-Upload-Length: ${size}\r\nContent-Length: ${size}\r\n\r\n`;
  socket.write(Buffer.concat([Buffer.from(head), Buffer.alloc(size - 1, 7)]));
  const id = up.media.id as string;
  // The emulator has counted every byte but the last (its progress says 99%).
  await waitFor(() => emu.api.get(`/media/${id}`), (r) => r.body.progress?.percent === 99);
  return {
    id,
    finish: async () => {
      socket.write(Buffer.alloc(1, 7));
      const done = await waitFor(async () => answer, (a) => /^HTTP\/1\.1 \d{3}/.test(a));
      return Number(done.slice(9, 12));
    },
    leave: () => socket.destroy(),
  };
}

/** Whether the web app can play a video (its bytes are kept). */
const playable = async (id: string): Promise<boolean> => (await fetch(`${emu.adminUrl}/app/videos/${id}`)).status === 200;

describe('uploads in flight count against the total', () => {
  it('two held at once: the second finds no room and keeps nothing; the first is playable once done', async () => {
    const a = await heldShort(600_000);
    const b = await heldShort(600_000);
    expect(await a.finish()).toBe(200);
    expect(await b.finish()).toBe(200);
    expect([await playable(a.id), await playable(b.id)]).toEqual([true, false]);
  });

  it('a video declared over the per-video limit is never kept, and takes no room from the others', async () => {
    const big = await heldShort(800_000);
    const small = await heldShort(600_000);
    expect([await big.finish(), await small.finish()]).toEqual([200, 200]);
    expect([await playable(big.id), await playable(small.id)]).toEqual([false, true]);
  });

  it('a client that goes away gives its room back: the next upload is kept', async () => {
    const gone = await heldShort(600_000);
    gone.leave();
    await waitFor(() => emu.requests(), (log) => log.some((e) => e.path === `/_uploads/${gone.id}` && e.status === 499));
    const next = await heldShort(600_000);
    expect(await next.finish()).toBe(200);
    expect(await playable(next.id)).toBe(true);
  });
});

describe('VideoBytes', () => {
  it('reserves room for bytes in flight, dropping the oldest kept videos for it; none left: refused', () => {
    const v = new VideoBytes(10, 100, 10);
    v.keep('a', Buffer.alloc(4));
    v.keep('b', Buffer.alloc(4));
    expect(v.reserve(4)).toBe(true); // a dropped for it
    expect([v.get('a'), v.get('b')?.length, v.held]).toEqual([undefined, 4, 8]);
    expect(v.reserve(4)).toBe(true); // b dropped
    expect(v.reserve(4)).toBe(false); // 8 in flight: no room for 4 more
    v.release(4);
    expect(v.held).toBe(4);
    v.keep('c', Buffer.alloc(4));
    expect([v.get('c')?.length, v.held]).toEqual([4, 8]);
    v.keep('d', Buffer.alloc(8)); // 4 still in flight: d does not fit even with c dropped, so c stays
    expect([v.get('d'), v.get('c')?.length, v.held]).toEqual([undefined, 4, 8]);
  });
});

/**
 * A 409 "another upload to this link is in progress" on the signed PUT is not
 * a dropped connection: vidpub waits for that other upload (here another run
 * with the same --idempotency-key) instead of sending the file again, and says so.
 */
import { readFileSync, statSync } from 'node:fs';
import { request } from 'undici';
import { expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

const FILE = 'test/fixtures/clip.mp4';

it('the link in use by another run with the same key: vidpub waits for it and sends nothing twice', async () => {
  const key = 'nightly-in-use';
  const size = statSync(FILE).size;
  const auth = { authorization: `Bearer ${emu.key()}`, 'content-type': 'application/json' };
  // "The other run": the same create (same key), then a PUT that holds the link for a moment.
  const created = await fetch(`${emu.baseUrl}/media/uploads`, {
    method: 'POST',
    headers: { ...auth, 'idempotency-key': `${key}:upload` },
    body: JSON.stringify({ filename: 'clip.mp4', size_bytes: size, content_type: 'video/mp4' }),
  });
  const { media, upload } = (await created.json()) as { media: { id: string }; upload: { url: string; headers: Record<string, string> } };
  const bytes = readFileSync(FILE);
  // The other run holds the link until vidpub's PUT was refused (409): the race is staged by that event,
  // not by a pause that a loaded machine could outlast.
  const vidpubRefused = async () => (await emu.requests()).some((q) => q.method === 'PUT' && q.status === 409);
  const slowBody = (async function* () {
    yield bytes.subarray(0, 1024);
    await waitFor(vidpubRefused, (refused) => refused, 60_000);
    yield bytes.subarray(1024);
  })();
  const other = request(upload.url, { method: 'PUT', headers: upload.headers, body: slowBody as never }).then(async (res) => {
    await res.body.text();
    expect(res.statusCode).toBe(200);
    const done = await fetch(`${emu.baseUrl}/media/${media.id}/complete`, { method: 'POST', headers: { ...auth, 'idempotency-key': `${key}:complete:${media.id}` } });
    expect(done.status).toBe(200);
  });
  // vidpub starts once the service is receiving the other run's bytes (the link is in use).
  const receiving = async () => {
    const res = await fetch(`${emu.baseUrl}/media/${media.id}`, { headers: auth });
    return ((await res.json()) as { progress?: { percent: number } }).progress?.percent ?? 0;
  };
  await waitFor(receiving, (percent) => percent > 0, 60_000);

  const r = await runCli(['upload', FILE, '--idempotency-key', key, '--timeout', '30s'], { env: emu.env() });
  await other;
  expect(r.stderr).toMatch(new RegExp(`The upload link of video ${media.id} is in use by another upload; waiting for it rather than sending the file again\\.`));
  expect(r.stderr).not.toMatch(/connection was dropped/);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(`${media.id}\n`);
  const puts = (await emu.requests()).filter((q) => q.method === 'PUT');
  // The other run's PUT and one refused PUT of vidpub (409): the file was not sent again.
  expect(puts.map((p) => p.status)).toEqual([200, 409]);
});

/**
 * Checks made before any request: the caption counted as the service counts
 * it (code points: an emoji is one character), --at no further ahead than the
 * service schedules, and what the emulator says about the same captions.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

const apiRequests = async () => (await emu.requests()).filter((r) => r.path.startsWith('/v1/'));
const post = (extra: string[]) => runCli(['post', 'test/fixtures/clip.mp4', '--to', 'youtube', '--no-input', ...extra], { env: emu.env() });

describe('caption length', () => {
  it('6,000 emoji are 6,000 characters: accepted by the service and by vidpub (a draft is saved)', async () => {
    const caption = '🎬'.repeat(6000);
    expect(caption.length).toBe(12_000); // UTF-16 units: what must not be counted
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', caption, '--draft', '--no-input', '--json'], { env: emu.env() });
    expect(r.stderr).not.toMatch(/Error/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'draft', caption });
  });

  it('10,001 characters: exit 2 before any request, saying how many', async () => {
    const r = await post(['--caption', 'é'.repeat(10_001)]);
    expect(r.stderr).toMatch(/Error: the caption has 10,001 characters; the service takes at most 10,000\nShorten it; nothing was uploaded or posted\./);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(await apiRequests()).toEqual([]);
  });

  it('the emulator counts code points too: 10,000 emoji pass, 10,001 are a 400 naming the count', async () => {
    const body = (caption: string) => ({ media_id: 'med_demo_sample', caption, destinations: [{ destination_id: 'dst_demo_youtube' }] });
    expect((await emu.api.post('/posts', body('😀'.repeat(10_000)))).status).toBe(201);
    const refused = await emu.api.post<{ error: { code: string; message: string } }>('/posts', body('😀'.repeat(10_001)));
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe('The caption has 10,001 characters; the service takes at most 10,000.');
  });
});

describe('option values', () => {
  it('an --option value over 1,000 characters: exit 2 before any request', async () => {
    const r = await post(['--caption', 'x', '--option', `title=${'t'.repeat(1001)}`]);
    expect(r.stderr).toMatch(/Error: the value of --option title has 1,001 characters; the service takes at most 1,000\n/);
    expect(r.code).toBe(2);
    expect(await apiRequests()).toEqual([]);
  });
});

describe('--at range', () => {
  it('+99999999d is exit 2 "invalid time", not an unexpected error, before any request', async () => {
    const r = await post(['--caption', 'x', '--at', '+99999999d']);
    expect(r.stderr).toMatch(/Error: invalid time "\+99999999d" for --at: the service schedules at most 365 days ahead\n/);
    expect(r.code).toBe(2);
    expect(await apiRequests()).toEqual([]);
  });

  it('an absolute time more than 365 days ahead: exit 2 the same way', async () => {
    const r = await post(['--caption', 'x', '--at', '2099-01-01T09:00:00Z']);
    expect(r.stderr).toMatch(/Error: invalid time "2099-01-01T09:00:00Z" for --at: the service schedules at most 365 days ahead/);
    expect(r.code).toBe(2);
    expect(await apiRequests()).toEqual([]);
  });

  it('+365d is still taken (scheduled)', async () => {
    const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', '--at', '+364d', '--no-input', '--json'], { env: emu.env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'scheduled' });
  });
});

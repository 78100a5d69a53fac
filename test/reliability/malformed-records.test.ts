/**
 * A 200 whose record is not a post or a video (no status): the client says
 * so, with the request and exit 1, instead of failing inside a printer or
 * taking the record for a finished one.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 30 });

async function aPost(): Promise<string> {
  const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'x', '--no-input', '--quiet'], { env: emu.env() });
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

describe('a record without a status', () => {
  it('status ID: GET /posts/{id} answered 200 {} is an unexpected response (exit 1), not a crash', async () => {
    const id = await aPost();
    await emu.fault({ method: 'GET', path: '/v1/posts/*', action: 'status', status: 200, content_type: 'application/json', body: '{}', times: 1 });
    const r = await runCli(['status', id], { env: emu.env() });
    expect(r.stderr).toContain(`Error: Unexpected response to GET /v1/posts/${id}: HTTP 200 without the post's status.`);
    expect(r.stderr).not.toMatch(/unexpected: |please report it|TypeError/);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
  });

  it('status MEDIA --wait: a 200 [] for GET /media/{id} is looked at again, never taken for a finished video', async () => {
    await emu.fault({ method: 'GET', path: '/v1/media/*', action: 'status', status: 200, content_type: 'application/json', body: '[]', times: 50 });
    const r = await runCli(['status', 'med_demo_sample', '--wait', '--timeout', '2s', '--json'], { env: emu.env() });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Stopped (--timeout reached) before video med_demo_sample could be read.');
    expect(r.code).toBe(7);
  });
});

/**
 * Findings of an audit of `vidpub batch` against the README, each a case the
 * other batch tests did not cover.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/api/types.js';
import { cliRunner } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { scriptedPrompter } from '../support/prompter.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const run = cliRunner(() => ({ clock: scaledClock(50), env: { ...emu.env(), TZ: 'UTC' } }));

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-batch-audit-'));
  for (const v of ['a.mp4', 'b.mp4']) copyFileSync('test/fixtures/clip.mp4', join(dir, v));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const writes = async (): Promise<RecordedRequest[]> => (await emu.requests()).filter((r) => r.path.startsWith('/v1/') && r.method !== 'GET');

describe('vidpub batch (audit)', () => {
  it('declining the confirmation is "Cancelled: …" without "Error:", exit 130, type cancelled with --json', async () => {
    const dir = workdir({ 'x.jsonl': '{"file":"a.mp4","to":"linkedin","caption":"one"}\n' });
    const r = await run(['batch', join(dir, 'x.jsonl')], { tty: true, prompter: scriptedPrompter([false]).prompter });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/\nCancelled: nothing was uploaded or posted\.\n/);
    expect(r.stderr).not.toMatch(/Error:/);
    const j = await run(['batch', join(dir, 'x.jsonl'), '--json'], { tty: true, prompter: scriptedPrompter([false]).prompter });
    expect(j.code).toBe(130);
    expect(JSON.parse(j.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { type: 'cancelled', message: 'Cancelled: nothing was uploaded or posted.', exit_code: 130 } });
    expect(await writes()).toEqual([]);
  });

  it('a JSON or JSON Lines manifest saved with a UTF-8 byte order mark is read (as YAML and CSV are)', async () => {
    const item = '{"media":"med_demo_sample","to":"linkedin","caption":"bom"}';
    const dir = workdir({ 'x.jsonl': `\ufeff${item}\n`, 'x.json': `\ufeff[${item}]` });
    for (const name of ['x.jsonl', 'x.json']) {
      const r = await run(['batch', join(dir, name), '--dry-run']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Plan for .*x\.jsonl?: 1 item \(1 to post\)/);
    }
    expect(await writes()).toEqual([]);
  });
});

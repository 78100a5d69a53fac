/**
 * Where the manual and the tool disagreed (issue 39, item 20), through the
 * real bin: a caption file that is a directory or a FIFO is named for what it
 * is (docs/reliability.md), and a bad fault sends the user to the page that
 * documents the fault keys (docs/emulator.md).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { tempConfigDir } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
beforeAll(() => ensureBuilt());

const vidpub = (args: string[]) => runAsync(process.execPath, [BIN, ...args], { env: { ...process.env, ...emu.env(), VIDPUB_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' } });

describe('the manual and the tool agree', () => {
  for (const [what, make, kind] of [
    ['a directory', (p: string) => mkdirSync(p), 'a directory'],
    ['a FIFO', (p: string) => execFileSync('mkfifo', [p]), 'a pipe (FIFO)'],
  ] as const) {
    it(`--caption-file naming ${what}: exit 2, named for what it is, nothing sent`, async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'vidpub-caption-')), 'caption.txt');
      make(path);
      const r = await vidpub(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption-file', path, '--no-input']);
      expect(r.stderr).toBe(`Error: --caption-file ${path} is ${kind}, not a regular file\nName a regular file, or - to read stdin.\n`);
      expect(r.status).toBe(2);
      expect((await emu.requests()).filter((q) => q.method !== 'GET')).toEqual([]);
    });
  }

  it('emulator fault nonsense: exit 2, the hint names docs/emulator.md, which lists the fault keys', async () => {
    const r = await vidpub(['emulator', 'fault', 'nonsense']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Error: invalid fault "nonsense": "nonsense" is not KEY=VALUE\n/);
    expect(r.stderr).toContain('(the keys of POST /_emulator/faults, in docs/emulator.md under "Test controls")');
    expect(r.stderr).not.toContain('api-notes.md');
  });
});

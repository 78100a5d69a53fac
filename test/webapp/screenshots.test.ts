/**
 * The screenshots docs/emulator.md shows are committed, and they are the
 * ones test/webapp/workspace-cli.test.ts takes (it writes them at 1280 and
 * 390 pixels wide): a page of the manual never shows a missing picture. The
 * pictures themselves may differ from run to run (ids, times); that is not checked.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

const TAKEN = ['webapp-review-1280.png', 'webapp-review-390.png', 'webapp-workspaces-1280.png', 'webapp-workspaces-390.png'];

describe("the web app's screenshots in the manual", () => {
  it('docs/emulator.md shows exactly the screenshots the tests take, at 1280 and 390 pixels wide', () => {
    const shown = [...readFileSync(join(ROOT, 'docs', 'emulator.md'), 'utf8').matchAll(/!\[[^\]]+\]\(images\/(webapp-[^)]+)\)/g)].map((m) => m[1]);
    expect([...new Set(shown)].sort()).toEqual(TAKEN);
    const source = readFileSync(join(ROOT, 'test', 'webapp', 'workspace-cli.test.ts'), 'utf8');
    expect(source).toContain('`webapp-review-${width}.png`');
    expect(source).toContain('`webapp-workspaces-${width}.png`');
    expect(source).toContain('for (const width of [1280, 390])');
  });

  it('each is committed (tracked by git) and is a PNG of that width', () => {
    const tracked = execFileSync('git', ['ls-files', 'docs/images'], { cwd: ROOT, encoding: 'utf8' }).split('\n');
    for (const name of TAKEN) {
      expect([name, tracked.includes(`docs/images/${name}`)]).toEqual([name, true]);
      const png = readFileSync(join(ROOT, 'docs', 'images', name));
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      const width = png.readUInt32BE(16);
      expect([name, width]).toEqual([name, name.includes('-1280') ? 1280 : 390]);
    }
  });
});

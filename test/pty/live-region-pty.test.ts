/**
 * The lines rewritten in place (the post's wait, the batch view) in a real terminal 60 columns
 * wide: a line wider than the window (a long failure, a name of wide characters) must not wrap
 * onto a row the region does not count, or that row is left behind at the next paint (the new
 * user's "line left behind at 60 columns"). What LiveRegion writes is played in tmux and the
 * screen read back.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LiveRegion } from '../../src/ui/live-region.js';
import { noTmux, shellQuote, useTmux } from '../support/tmux.js';

const tmux = useTmux('live-region');

describe.skipIf(noTmux)('LiveRegion in a real terminal 60 columns wide', () => {
  it('lines wider than the window are cut, not wrapped: repainted and cleared, nothing is left behind', async () => {
    let bytes = 'before\n';
    const region = new LiveRegion((text) => (bytes += text));
    const wide = '頻道名稱'.repeat(10); // 40 characters, 80 columns
    region.paint([`Waiting for post post_1 ${'x'.repeat(70)}`, `⠋ ${wide}  publishing`]);
    region.paint([`Waiting for post post_1 ${'y'.repeat(70)}`, `✓ ${wide}  published`, `a third line ${'z'.repeat(60)}`]);
    region.paint(['Waiting for post post_1', `✗ ${wide}  failed`]);
    region.clear();
    bytes += 'after\n';
    const file = join(mkdtempSync(join(tmpdir(), 'vidpub-region-')), 'out');
    writeFileSync(file, bytes);

    tmux.start('region', `cat ${shellQuote(file)}; echo END; sleep 120`, { columns: 60, rows: 20 });
    const screen = await tmux.waitForScreen('region', /^END$/m, 20_000, { visibleOnly: true });
    const rows = screen.split('\n').filter((row) => row.trim() !== '');
    // The region's rows are gone, every one of them: the two words written around it are adjacent.
    expect(rows.slice(0, 3)).toEqual(['before', 'after', 'END']);
    expect(screen).not.toMatch(/[xyz]{10}|頻道|Waiting/);
  }, 30_000);
});

/**
 * `history` and `status` in a real terminal (tmux) 60 and 120 columns wide: no
 * line is wider than the terminal (the terminal never wraps one mid-token), no
 * handle, id or time is cut; at 120 columns the history is a table with every
 * column; at 60, where the table cannot fit, each post is stacked as
 * "Header: value" lines, every column kept (the caption too).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { noTmux, useTmux, vidpubLine } from '../support/tmux.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20, resetEachTest: false });
const tmux = useTmux('narrow');

let env: Record<string, string> = {};
let postId = '';
const CAPTION = 'A caption about the launch of the new series';

/** Runs vidpub in a tmux terminal `columns` wide; resolves with the screen, wrapped lines joined (-J), and the exit code. */
async function atTerminal(columns: number, args: string): Promise<{ lines: string[]; code: number }> {
  const session = `s${columns}${Math.random().toString(36).slice(2, 8)}`;
  tmux.start(session, vidpubLine(args, env), { columns, rows: 50 });
  const screen = await tmux.waitForScreen(session, /EXIT:\d+/, 30_000);
  tmux.run('kill-session', '-t', session);
  const lines = screen.split('\n').map((l) => l.trimEnd());
  const exit = lines.findIndex((l) => /^EXIT:\d+$/.test(l));
  expect(exit, screen).toBeGreaterThanOrEqual(0);
  return { lines: lines.slice(0, exit), code: Number(lines[exit]!.slice(5)) };
}

describe.skipIf(noTmux)('history and status at 60 and 120 columns (tmux)', () => {
  beforeAll(async () => {
    ensureBuilt();
    env = { ...emu.env(), VIDPUB_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vidpub-pty-')), VIDPUB_STATE_DIR: mkdtempSync(join(tmpdir(), 'vidpub-pty-state-')), TZ: 'UTC', NO_COLOR: '1' };
    const r = await runAsync(
      process.execPath,
      [BIN, 'post', '--media', 'med_demo_sample', '--to', 'youtube,tiktok', '--option', 'tiktok:privacy=SELF_ONLY', '--caption', CAPTION, '--at', '+30d', '--no-input', '--json', 'id'],
      { env: { ...process.env, ...env } },
    );
    expect(r.status, r.stderr).toBe(0);
    postId = (JSON.parse(r.stdout) as { id: string }).id;
  }, 120_000);

  it('history at 120 columns: one table, every column, the widest cut at a word with "…", handles whole; exit 0', async () => {
    const { lines, code } = await atTerminal(120, 'history');
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^ID\s+MADE OR DUE\s+STATUS\s+DESTINATIONS\s+CAPTION$/);
    const row = lines.find((l) => l.startsWith(postId))!;
    expect(row).toMatch(/ scheduled +@vidpubdemo \(youtube\)/);
    expect(row).toContain('A caption about the launch');
    // Whatever is cut is cut after a whole word.
    for (const cut of row.match(/\S+…/g) ?? []) expect(`${CAPTION} @vidpubdemo (youtube) pending, @vidpub.demo (tiktok) pending`.split(/[ ,]+/)).toContain(cut.slice(0, -1));
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(120);
  });

  it('history at 60 columns: stacked "Header: value" lines, the caption kept, no handle cut, nothing wrapped by the terminal; exit 0', async () => {
    const { lines, code } = await atTerminal(60, 'history');
    expect(code).toBe(0);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(60);
    expect(lines).toContain(`Id:           ${postId}`);
    expect(lines).toContain('Status:       scheduled');
    const text = lines.join('\n');
    expect(text).toMatch(/^Caption: +A caption about the launch/m);
    // Handles whole, a line broken only at a space.
    expect(text).toMatch(/@vidpubdemo \(youtube\)/);
    expect(text.replace(/\n +/g, ' ')).toContain('@vidpub.demo (tiktok)');
    expect(text).not.toMatch(/@vidpu…|@vidpub\.…|\(youtu…/);
  });

  it('status at 60 columns: fields wrap at spaces under themselves, the time whole, the destinations whole; exit 0', async () => {
    const { lines, code } = await atTerminal(60, `status ${postId}`);
    expect(code).toBe(0);
    const text = lines.join('\n');
    // The ISO time is never broken; a line wider than the terminal is only a URL too long for any line.
    expect(text).toMatch(/\(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)/);
    for (const l of lines.filter((x) => x.length > 60)) expect(l, l).toMatch(/^(\S+:? +)?https?:\/\/\S+$/);
    expect(lines.find((l) => l.startsWith('Scheduled for:'))!.length).toBeLessThanOrEqual(60);
    expect(text).toMatch(/^DESTINATION +STATUS +DETAILS$/m);
    expect(text).toMatch(/^@vidpubdemo \(youtube\) +pending$/m);
    expect(text).toMatch(/^@vidpub\.demo \(tiktok\) +pending$/m);
  });

  it('status at 120 columns: the fields on one line each, the destinations as a table; exit 0', async () => {
    const { lines, code } = await atTerminal(120, `status ${postId}`);
    expect(code).toBe(0);
    expect(lines).toContainEqual(expect.stringMatching(/^Scheduled for: .*\(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^DESTINATION\s+STATUS\s+DETAILS$/));
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(120);
  });
});

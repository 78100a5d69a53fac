/**
 * The action's log: only the action writes workflow commands. A file name (from a pull request,
 * an upstream job) made of workflow commands, and a vidpub that prints them raw, leave no line
 * starting with `::` in the log but the action's own, and the runner acts on none of them.
 */
import { chmodSync, copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt } from '../support/build.js';
import { useEmulator } from '../support/emulator.js';
import { actionRunner, commandsRead } from '../support/action.js';

const emu = useEmulator();
const runAction = actionRunner();
const dir = mkdtempSync(join(tmpdir(), 'vidpub-action-log-'));
const HOSTILE = 'clip\n::add-mask::youtube\n::error title=forged::deploy failed\n::stop-commands::tok123\n.mp4';
const hostile = join(dir, HOSTILE);

beforeAll(() => {
  ensureBuilt();
  copyFileSync(join(ROOT, 'test', 'fixtures', 'clip.mp4'), hostile);
});

/** The log's lines that start with `::` (after blanks, as the runner reads them). */
const commandLines = (log: string) => log.split('\n').filter((l) => l.trimStart().startsWith('::'));

/** The fence around vidpub's output: its token, and that it is fresh and random. */
function fenceToken(log: string): string {
  const token = /^::stop-commands::([0-9a-f]{32})$/m.exec(log)?.[1];
  expect(token, log).toBeDefined();
  expect(log).toContain(`\n::${token}::\n`);
  return token!;
}

describe('the log of a hostile file name', () => {
  it('posts it and leaves no line starting with :: but the action\'s own', async () => {
    const r = await runAction({ file: hostile, to: 'youtube', caption: 'x', 'api-key': emu.key(), 'base-url': emu.baseUrl });
    expect(r.code, r.log).toBe(0);
    const token = fenceToken(r.log);
    expect(commandLines(r.log)).toEqual([`::add-mask::${emu.key()}`, `::stop-commands::${token}`, `::${token}::`]);
    expect(commandsRead(r.log)).toEqual([`::add-mask::${emu.key()}`, `::stop-commands::${token}`]);
    // The name is in the log, visibly, and the post went out.
    expect(r.log).toMatch(/add-mask::youtube/);
    expect(r.outputs.status).toBe('completed');
    expect(r.summary).toContain(`post ${r.outputs['post-id']}`);
  });

  it('still annotates vidpub\'s failure after the fence, one line, the name inside escaped', async () => {
    const r = await runAction({ file: hostile, to: '@nobody-here', caption: 'x', 'api-key': emu.key(), 'base-url': emu.baseUrl });
    expect(r.code).toBe(2);
    const token = fenceToken(r.log);
    const read = commandsRead(r.log);
    expect(read.slice(0, 2)).toEqual([`::add-mask::${emu.key()}`, `::stop-commands::${token}`]);
    expect(read).toHaveLength(3);
    expect(read[2]).toMatch(/^::error title=vidpub \(exit 2\)::.*@nobody-here/);
    expect(commandLines(r.log)).toEqual([...read.slice(0, 2), `::${token}::`, read[2]]);
  });
});

describe('a vidpub that prints workflow commands raw', () => {
  it('is fenced and escaped line by line: control characters shown, ## and :: lines defused', async () => {
    const vidpub = join(dir, 'raw-vidpub');
    writeFileSync(
      vidpub,
      [
        '#!/bin/sh',
        "printf '::add-mask::youtube\\n  ::error title=forged::deploy failed\\n::stop-commands::tok123\\nsee ##[error]x\\n\\033]0;PWNED\\007\\033[2Jdone\\n' >&2",
        "printf '::tok123::\\n::warning::after the forged resume' >&2",
        'echo \'{"id":"post_raw","status":"completed","destinations":[]}\'',
        'exit 1',
      ].join('\n') + '\n',
    );
    chmodSync(vidpub, 0o755);
    const r = await runAction({ file: 'clip.mp4', to: 'youtube', caption: 'x', 'api-key': 'vp_live_demo_rw_0000000000000000', vidpub });
    expect(r.code).toBe(1);
    const token = fenceToken(r.log);
    expect(token).not.toBe('tok123');
    const read = commandsRead(r.log);
    expect(read.slice(0, 2)).toEqual(['::add-mask::vp_live_demo_rw_0000000000000000', `::stop-commands::${token}`]);
    expect(read).toHaveLength(3);
    expect(read[2]).toMatch(/^::error title=vidpub \(exit 1\)::/);
    expect(commandLines(r.log)).toEqual([...read.slice(0, 2), `::${token}::`, read[2]]);
    const lines = r.log.split('\n');
    expect(lines).toContain('\\::add-mask::youtube');
    expect(lines).toContain('  \\::error title=forged::deploy failed');
    expect(lines).toContain('see #\\#[error]x');
    expect(lines).toContain('\\e]0;PWNED\\x07\\e[2Jdone');
    expect(lines).toContain('\\::warning::after the forged resume');
    // eslint-disable-next-line no-control-regex -- the control characters are what is looked for
    expect(r.log).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});

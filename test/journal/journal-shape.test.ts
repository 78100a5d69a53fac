/**
 * A journal line that is JSON but not a record vidpub wrote (an edit by hand,
 * a tool's output pasted in): skipped with the damaged-line warning, as a
 * line that does not parse is, never an "unexpected" error.
 */
import { appendFileSync, mkdtempSync, renameSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { escapeRegExp } from '../support/regexp.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

/** A state directory whose journal holds one post (LinkedIn, "kept"), a runner that uses it, the post's id and the journal's file. */
async function journalWithOnePost(): Promise<{ state: string; run: ReturnType<typeof cliRunner>; id: string; file: string }> {
  const state = mkdtempSync(join(tmpdir(), 'vidpub-journal-shape-'));
  const run = cliRunner(() => ({ env: { ...emu.env(), VIDPUB_STATE_DIR: state } }));
  const posted = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'kept', '--no-wait', '--json']);
  expect(posted.code).toBe(0);
  return { state, run, id: (JSON.parse(posted.stdout) as { id: string }).id, file: join(state, 'journal.jsonl') };
}

describe('a journal line of the wrong shape', () => {
  it('history and status skip it with one warning naming the file and line, exit 0', async () => {
    const { run, id, file } = await journalWithOnePost();
    appendFileSync(
      file,
      [
        '{"v":1,"kind":"post","profile":"default"}',
        '{"v":1,"kind":"post","profile":"default","at":"yesterday","post_id":"post_y","caption":"y","destinations":[]}',
        '{"v":1,"kind":"post","profile":"default","at":"2026-11-01T00:00:00.000Z","post_id":"post_x","caption":"x","destinations":[null]}',
        '{"v":1,"kind":"status","profile":"default","post_id":"' + id + '","status":"completed","destinations":5}',
      ].join('\n') + '\n',
    );

    const h = await run(['history']);
    expect(h.stderr).toBe(`! Skipped a damaged line in the journal: ${file} line 6 (the file is left as it is).\n`);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(new RegExp(`^${id}\t\\S+\tpublishing\tdst_demo_linkedin:publishing\tkept\n$`));

    const tty = await run(['history'], { tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(new RegExp(`\n${id} .* publishing .*kept`));

    const all = await run(['history', '--all-profiles', '--json']);
    expect(all.code).toBe(0);
    expect((JSON.parse(all.stdout) as { post_id: string }[]).map((p) => p.post_id)).toEqual([id]);

    const s = await run(['status', '--json']);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ id });
  });

  it('a record without its status, or with a destination\'s name or state not text (an edit by hand), is skipped too, not an "unexpected" error (exit 1)', async () => {
    const { run, id, file } = await journalWithOnePost();
    appendFileSync(
      file,
      [
        '{"v":1,"kind":"post","profile":"default","at":"2026-11-01T00:00:00.000Z","post_id":"post_x","caption":"x","destinations":[]}',
        '{"v":1,"kind":"post","profile":"default","at":"2026-11-01T00:00:00.000Z","post_id":"post_x","caption":"x","status":"completed","destinations":[{"id":"dst_a","name":5}]}',
        '{"v":1,"kind":"status","profile":"default","post_id":"' + id + '","status":"completed","destinations":[{"id":"dst_demo_linkedin","status":{"a":1}}]}',
      ].join('\n') + '\n',
    );
    for (const args of [['history'], ['history', '--all-profiles', '--json'], ['status', '--json']]) {
      const r = await run(args, { tty: args.length === 1, env: { NO_COLOR: '1' } });
      expect(r.stderr).toMatch(new RegExp(`! Skipped a damaged line in the journal: ${escapeRegExp(file)} line \\d+ \\(the file is left as it is\\)\\.`));
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(id);
      expect(r.stdout).not.toContain('post_x');
    }
  });

  it('a journal that cannot be read: history and status without an id fail (exit 1) naming it, never "No posts recorded yet"', async () => {
    const { run, state } = await journalWithOnePost();
    // The posts are in a segment; the active file cannot be read (a link to itself: ELOOP, as EACCES would be).
    renameSync(join(state, 'journal.jsonl'), join(state, 'journal.000001.jsonl'));
    symlinkSync('journal.jsonl', join(state, 'journal.jsonl'));
    for (const args of [['history'], ['history', '--json'], ['status']]) {
      const r = await run(args);
      expect(r.stderr).toMatch(new RegExp(`Could not read the journal in ${escapeRegExp(state)} \\(ELOOP\\)`));
      expect(r.stderr).not.toMatch(/No posts recorded yet|no post made from this machine/);
      expect(r.stdout).toBe('');
      expect(r.code).toBe(1);
    }
  });
});

/**
 * Text from files and stdin: a caption file, stdin or a manifest that is not
 * UTF-8 (Latin-1 `Caf\xe9`) is refused (exit 2) naming the file and the byte offset, with the
 * iconv line; a NUL or another control character in a caption is refused (exit 2); nothing is
 * posted. CSV manifests: `""` is an empty caption on purpose, an empty cell none (refused); the
 * trailing empty header columns a spreadsheet exports are ignored; an empty name in the middle
 * is told once. The caption on stdin comes through the built bin from a real pipe (the bytes as
 * another program writes them); the files are read by the same main(argv, ctx) run in-process
 * (runCli, in the directory of the files, over HTTP to the emulator): a start of the bin costs
 * 0.2 s of CPU, and the process is not what those tests are about.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
let dir: string;

const env = () => ({ ...emu.env(), NO_COLOR: '1', TZ: 'UTC', VIDPUB_NO_JOURNAL: '1', VIDPUB_CONFIG_DIR: join(dir, 'config') });

/** vidpub `args` run in-process in the test's directory. */
async function vidpub(args: string[]) {
  const r = await runCli(args, { env: env(), cwd: dir });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** The built bin, `input` written to its stdin through a pipe. */
function vidpubBin(args: string[], input: Buffer) {
  return runAsync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env() }, cwd: dir, input: input as unknown as string, timeoutMs: 60_000 });
}

const postsMade = async () => (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts').length;

beforeAll(() => ensureBuilt(), 120_000);
beforeEach(async () => {
  await emu.reset();
  dir = mkdtempSync(join(tmpdir(), 'vidpub-text-'));
});

describe('captions and manifests that are not UTF-8 text', () => {
  it('a Latin-1 caption file: exit 2 naming it and the offset, with the iconv line; nothing posted', async () => {
    writeFileSync(join(dir, 'caf.txt'), Buffer.from('Caf\xe9\n', 'latin1'));
    const r = await vidpub(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption-file', 'caf.txt', '--yes']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'Error: --caption-file caf.txt is not UTF-8 text: the byte at offset 3 (0xe9) is not part of a UTF-8 character\n' +
        'Nothing was uploaded or posted. If it is Latin-1 (ISO-8859-1), convert it and use the copy: iconv -f latin1 -t utf-8 caf.txt > caf.txt.utf8\n',
    );
    expect(await postsMade()).toBe(0);
  });

  it('the caption on stdin, Latin-1, through the built bin: exit 2 naming stdin', async () => {
    const r = await vidpubBin(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption-file', '-', '--yes'], Buffer.from('ol\xe9', 'latin1'));
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^Error: the caption on stdin is not UTF-8 text: the byte at offset 2 \(0xe9\) is not part of a UTF-8 character$/m);
    expect(r.stderr).toMatch(/iconv -f latin1 -t utf-8 FILE > FILE\.utf8/);
    expect(await postsMade()).toBe(0);
  });

  it('valid UTF-8 of every length goes through (é, €, 😀)', async () => {
    writeFileSync(join(dir, 'ok.txt'), 'Café € 😀\n');
    const r = await vidpub(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption-file', 'ok.txt', '--yes', '--no-wait', '--json', 'caption']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ caption: 'Café € 😀' });
  });

  it('a NUL or an escape in a caption: exit 2 saying which and where; tabs and line breaks are kept', async () => {
    writeFileSync(join(dir, 'nul.txt'), 'a\0b\n');
    const nul = await vidpub(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption-file', 'nul.txt', '--yes']);
    expect(nul.status).toBe(2);
    expect(nul.stderr).toMatch(/^Error: the caption has a control character \(U\+0000 NUL\) at character 2; nothing was uploaded or posted$/m);
    const esc = await vidpub(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'red \x1b[31m', '--yes']);
    expect(esc.status).toBe(2);
    expect(esc.stderr).toMatch(/^Error: the caption has a control character \(U\+001B ESC\) at character 5; /m);
    expect(await postsMade()).toBe(0);
    writeFileSync(join(dir, 'lines.txt'), 'one\ttab\r\ntwo\n');
    const ok = await vidpub(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption-file', 'lines.txt', '--yes', '--no-wait', '--json', 'caption']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ caption: 'one\ttab\r\ntwo' });
  });

  it('batch: a Latin-1 manifest, and a Latin-1 caption_file or a NUL caption in one, exit 2; nothing sent', async () => {
    writeFileSync(join(dir, 'latin.csv'), Buffer.from('media,to,caption\nmed_demo_sample,linkedin,Caf\xe9\n', 'latin1'));
    const manifest = await vidpub(['batch', 'latin.csv', '--yes']);
    expect(manifest.status).toBe(2);
    expect(manifest.stderr).toMatch(/^Error: latin\.csv is not UTF-8 text: the byte at offset 45 \(0xe9\) is not part of a UTF-8 character$/m);
    expect(manifest.stderr).toMatch(/iconv -f latin1 -t utf-8 latin\.csv > latin\.csv\.utf8/);
    writeFileSync(join(dir, 'caf.txt'), Buffer.from('Caf\xe9', 'latin1'));
    writeFileSync(join(dir, 'items.jsonl'), '{"media":"med_demo_sample","to":"linkedin","caption_file":"caf.txt"}\n{"media":"med_demo_sample","to":"youtube","caption":"a\\u0000b","options":{"visibility":"private"}}\n');
    const items = await vidpub(['batch', 'items.jsonl', '--yes']);
    expect(items.status).toBe(2);
    expect(items.stderr).toMatch(/^ {2}item 1 \(line 1\): caption_file caf\.txt is not UTF-8 text: the byte at offset 3 \(0xe9\) is not part of a UTF-8 character \(if it is Latin-1 \(ISO-8859-1\), convert it and use the copy: iconv -f latin1 -t utf-8 caf\.txt > caf\.txt\.utf8\)$/m);
    expect(items.stderr).toMatch(/^ {2}item 2 \(line 2\): the caption has a control character \(U\+0000 NUL\) at character 2; nothing was uploaded or posted$/m);
    expect(await postsMade()).toBe(0);
  });
});

describe('CSV manifests', () => {
  it('"" is an empty caption on purpose and is posted; an empty cell is no caption and is refused (exit 2)', async () => {
    writeFileSync(join(dir, 'empty.csv'), 'media,to,caption\nmed_demo_sample,linkedin,""\n');
    const ok = await vidpub(['batch', 'empty.csv', '--yes', '--no-wait', '--json', 'items']);
    expect(ok.status, ok.stderr).toBe(0);
    const posts = (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts' && q.status === 201);
    expect(posts).toHaveLength(1);
    writeFileSync(join(dir, 'none.csv'), 'media,to,caption\nmed_demo_sample,linkedin,\n');
    const none = await vidpub(['batch', 'none.csv', '--yes']);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/^ {2}item 1 \(line 2\): no caption: give caption \(an empty one posts without a caption: caption: "" in YAML and JSON, a quoted empty cell "" in CSV\) or caption_file$/m);
  });

  it('trailing empty header columns (a spreadsheet export) are ignored', async () => {
    writeFileSync(join(dir, 'sheet.csv'), 'media,to,caption,,\nmed_demo_sample,linkedin,Hello,,\n');
    const r = await vidpub(['batch', 'sheet.csv', '--dry-run', '--json', 'items']);
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { items: { caption: string }[] }).items.map((i) => i.caption)).toEqual(['Hello']);
  });

  it('empty names before named columns: exit 2, told once; text under a column with no name is told', async () => {
    writeFileSync(join(dir, 'holes.csv'), 'media,,to,,caption,\nmed_demo_sample,,linkedin,,Hi,extra\n');
    const r = await vidpub(['batch', 'holes.csv', '--dry-run']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^ {2}line 1: columns 2, 4 of the header row have no name: name them, or remove the columns$/m);
    expect(r.stderr.match(/no name/g)).toHaveLength(2);
    expect(r.stderr).toMatch(/^ {2}item 1 \(line 2\): text in a column with no name in the header row: "extra"$/m);
  });
});

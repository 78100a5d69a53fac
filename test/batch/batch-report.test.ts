/**
 * `vidpub batch report FILE…` (shard reports merged: the summary, --json, --markdown, --junit, exit 6
 * on a failed item, exit 2 on reports of different manifests) and `vidpub batch matrix MANIFEST
 * --shards N`, in-process through main(). The JUnit XML is checked by xmllint against the JUnit XSD.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLineOnly, runCli } from '../support/cli.js';
import { renderLine } from '../../src/cli/line/render.js';
import { reportItem, shardReport, writeReports } from '../support/batch-reports.js';
import { ROOT } from '../support/build.js';
import { required } from '../support/tools.js';

const XSD = join(ROOT, 'test/fixtures/junit/junit-10.xsd');

/** Shard 1/2 and 2/2 of a 4-item manifest, shard 2 stopped with item 4 pending, and run again elsewhere. */
function rerunReports() {
  return writeReports({
    's1.json': shardReport({ shard: [1, 2], total: 4, items: [reportItem(1, 'posted'), reportItem(3, 'posted')] }),
    's2.json': shardReport({ shard: [2, 2], total: 4, complete: false, items: [reportItem(2, 'posted'), reportItem(4, 'pending')] }),
    's2-again.json': shardReport({ shard: [2, 2], total: 4, items: [reportItem(2, 'replayed'), reportItem(4, 'replayed')] }),
  });
}

describe('batch report', () => {
  it('merges the shards: the best outcome of an item run twice, said so; --json has the counts, the shards and every item', async () => {
    const dir = rerunReports();
    const r = await runCli(['batch', 'report', 's1.json', 's2.json', 's2-again.json', '--json'], { cwd: dir });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      manifest: { id: 'mf_week', items: 4 },
      total: 4,
      counts: { posted: 3, replayed: 1, refused: 0, failed: 0, pending: 0 },
      shards: { count: 2, seen: [1, 2], missing: [] },
      incomplete: ['s2.json'],
      files: ['s1.json', 's2.json', 's2-again.json'],
    });
    expect(doc.items.map((it: { item: number; result: string; file: string }) => [it.item, it.result, it.file])).toEqual([
      [1, 'posted', 's1.json'],
      [2, 'posted', 's2.json'],
      [3, 'posted', 's1.json'],
      [4, 'replayed', 's2-again.json'],
    ]);
    expect(doc.reruns).toEqual([
      { item: 2, id: 'item-0002', kept: { file: 's2.json', result: 'posted' }, over: [{ file: 's2-again.json', result: 'replayed' }] },
      { item: 4, id: 'item-0004', kept: { file: 's2-again.json', result: 'replayed' }, over: [{ file: 's2.json', result: 'pending' }] },
    ]);
    expect(r.stderr).toContain('The run of s2.json did not end by itself (stopped or still going)');
    expect(r.stderr).toContain('1 item is in both s2.json and s2-again.json (a shard run again): kept the better outcome of each, from s2.json (1 posted over replayed).');
    expect(r.stderr).toContain('1 item is in both s2-again.json and s2.json (a shard run again): kept the better outcome of each, from s2-again.json (1 replayed over pending).');
  });

  it('a pipe gets a line per item; a shard with no report is named in a warning', async () => {
    const dir = writeReports({ 'a.json': shardReport({ shard: [1, 3], total: 3, items: [reportItem(2, 'posted')] }), 'b.json': shardReport({ shard: [3, 3], total: 3, items: [reportItem(1, 'refused')] }) });
    const r = await runCli(['batch', 'report', 'a.json', 'b.json'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\titem-0001\t3/3\trefused\trefused\t\t\t\n2\titem-0002\t1/3\tposted\tpublished\tpost_2\tmed_2\t\n');
    expect(r.stderr).toContain('! No report of shard 2/3: its items are not in this summary.');
  });

  it('a failed item: exit 6, the items still printed, text from the reports sanitized at the terminal', async () => {
    const evil = reportItem(2, 'failed', { error: 'refused \u001b]0;PWNED\u0007 <b>|x|</b>' });
    const dir = writeReports({ 'r.json': shardReport({ items: [reportItem(1, 'posted'), evil] }) });
    const r = await runCli(['batch', 'report', 'r.json'], { cwd: dir, tty: true, columns: 200 });
    expect(r.code).toBe(6);
    expect(r.stdout).toContain('2 items: 1 posted, 1 failed (manifest mf_week)');
    expect(r.stdout).toContain('refused \\e]0;PWNED\\x07 <b>|x|</b>');
    expect(r.stdout + r.stderr).not.toContain('\u001b]0;');
    expect(r.stderr).toContain('1 of 2 items failed');
  });

  it('--junit writes JUnit XML that validates against the JUnit schema: a suite per shard, failed as <failure>, refused and pending as <skipped>', async () => {
    required('xmllint');
    const dir = writeReports({
      'a.json': shardReport({ shard: [1, 2], items: [reportItem(1, 'posted'), reportItem(3, 'failed', { error: 'bad & <worse> "\u001b[2J"' })] }),
      'b.json': shardReport({ shard: [2, 2], complete: false, items: [reportItem(2, 'refused'), reportItem(4, 'pending')] }),
    });
    const r = await runCli(['batch', 'report', 'a.json', 'b.json', '--junit', 'junit.xml', '--json'], { cwd: dir });
    expect(r.code).toBe(6);
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    const lint = spawnSync('xmllint', ['--noout', '--schema', XSD, join(dir, 'junit.xml')], { encoding: 'utf8' });
    expect(lint.stderr).toContain('validates');
    expect(lint.status).toBe(0);
    expect(xml).toContain('<testsuites name="vidpub batch" tests="4" failures="1" errors="0">');
    expect(xml).toContain('<testsuite name="vidpub batch shard 1/2" tests="2" failures="1" errors="0" skipped="0">');
    expect(xml).toContain('<testsuite name="vidpub batch shard 2/2" tests="2" failures="0" errors="0" skipped="2">');
    expect(xml).toContain('<failure type="failed" message="bad &amp; &lt;worse&gt; &quot;\\e[2J&quot;">');
    expect(xml).toContain('<skipped message="pending: the run was stopped before this item ended"/>');
    // A file that is not valid against the schema is refused by the same check: the check can fail.
    writeFileSync(join(dir, 'bad.xml'), xml.replace(' tests="2" failures="1"', ''));
    expect(spawnSync('xmllint', ['--noout', '--schema', XSD, join(dir, 'bad.xml')]).status).not.toBe(0);
  });

  it('--markdown: a table by shard and the items to look at, Markdown escaped', async () => {
    const dir = writeReports({ 'r.json': shardReport({ shard: [1, 1], items: [reportItem(1, 'posted'), reportItem(2, 'failed', { error: 'a | b <script>' })] }) });
    const r = await runCli(['batch', 'report', 'r.json', '--markdown'], { cwd: dir });
    expect(r.code).toBe(6);
    expect(r.stdout).toContain('| Shard | Posted | Replayed | Refused | Failed | Pending | Items |');
    expect(r.stdout).toContain('| 1/1 | 1 | 0 | 0 | 1 | 0 | 2 |');
    expect(r.stdout).toContain('| 2 | 1/1 | failed | failed: post\\_2 failed; dst\\_youtube failed (the video was refused); a \\| b \\<script\\> |');
  });

  it('reports of different manifests: exit 2 naming the files; not a report, or --markdown with --json: exit 2', async () => {
    const dir = writeReports({
      'a.json': shardReport({ manifest: 'mf_one', items: [reportItem(1, 'posted')] }),
      'b.json': shardReport({ manifest: 'mf_two', items: [reportItem(1, 'posted')] }),
      'notes.txt': 'hello',
    });
    const mixed = await runCli(['batch', 'report', 'a.json', 'b.json'], { cwd: dir });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('these reports are of different manifests: a.json (manifest mf_one); b.json (manifest mf_two)');
    expect(mixed.stdout).toBe('');
    const notOne = await runCli(['batch', 'report', 'a.json', 'notes.txt'], { cwd: dir });
    expect(notOne.code).toBe(2);
    expect(notOne.stderr).toContain('notes.txt is not a batch report (not JSON)');
    const nowhere = await runCli(['batch', 'report', 'a.json', '--junit', 'no-such-dir/junit.xml'], { cwd: dir });
    expect([nowhere.code, nowhere.stderr]).toEqual([2, expect.stringContaining('cannot write the JUnit report no-such-dir/junit.xml: its directory does not exist')]);
    const both = await runCli(['batch', 'report', 'a.json', '--markdown', '--json'], { cwd: dir });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--markdown and --json: give one of them');
  });
});

describe('batch matrix', () => {
  const manifest = () => writeReports({ 'week.jsonl': ['a', 'b', 'c'].map((f) => JSON.stringify({ file: `${f}.mp4`, to: 'youtube' })).join('\n') + '\n' });

  it('prints the shards as a matrix for fromJSON; more shards than items are cut to one per item, with a warning', async () => {
    const dir = manifest();
    const two = await runCli(['batch', 'matrix', 'week.jsonl', '--shards', '2'], { cwd: dir });
    expect([two.code, two.stdout]).toEqual([0, '{"include":[{"shard":"1/2"},{"shard":"2/2"}]}\n']);
    const five = await runCli(['batch', 'matrix', 'week.jsonl', '--shards', '5'], { cwd: dir });
    expect([five.code, five.stdout]).toEqual([0, '{"include":[{"shard":"1/3"},{"shard":"2/3"},{"shard":"3/3"}]}\n']);
    expect(five.stderr).toContain('week.jsonl has 3 items: printing 3 shards, not 5');
  });

  it.each([
    [['--shards', '0'], '--shards must be a whole number from 1 to 256, not "0"'],
    [['--shards', '1.5'], '--shards must be a whole number from 1 to 256, not "1.5"'],
    [['--shards', 'a'], '--shards must be a whole number from 1 to 256, not "a"'],
    [['--shards', '257'], '--shards 257 is more jobs than a GitHub Actions matrix runs (at most 256)'],
    [[], 'how many shards? Give --shards N (1 to 256)'],
  ])('%j: exit 2, saying why', async (flags, message) => {
    const r = await runCli(['batch', 'matrix', 'week.jsonl', ...flags], { cwd: manifest() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });
});

describe('subcommands on the command line', () => {
  it('the word right after batch names its subcommand; ./report is a manifest named report', async () => {
    const sub = await readLineOnly(['batch', 'report', 'a.json', 'b c.json', '--junit', 'j.xml']);
    expect([sub.line?.entry.name, sub.line?.positional]).toEqual(['batch report', [['a.json', 'b c.json']]]);
    expect(renderLine(sub.line!)).toBe("vidpub batch report a.json 'b c.json' --junit j.xml");
    const file = await readLineOnly(['batch', './report', '--dry-run']);
    expect([file.line?.entry.name, file.line?.positional]).toEqual(['batch', ['./report']]);
    const manifest = await readLineOnly(['batch', 'report.yaml']);
    expect(manifest.line?.entry.name).toBe('batch');
  });

  it('a subcommand after batch\'s own flags, or without its files: exit 2, saying what to type', async () => {
    const late = await runCli(['batch', '--dry-run', 'report', 'a.json']);
    expect(late.code).toBe(2);
    expect(late.stderr).toContain('"report" comes right after "vidpub batch" to name its subcommand');
    expect(late.stderr).toContain('Run vidpub batch report …, or give a file named report as ./report.');
    const none = await readLineOnly(['batch', 'report']);
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining("missing required argument 'file'")]);
  });
});

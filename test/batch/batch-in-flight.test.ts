import { mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { inFlightLimit } from '../../src/batch/run-batch.js';
import { MAX_YAML_MANIFEST_BYTES } from '../../src/cli/commands/batch.js';
import { defaultFixture } from '../../src/emulator/index.js';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';
import { waitFor } from '../support/poll.js';

/**
 * A long real batch keeps a bounded number of items under way: the items are
 * fed to the run's pool as it has room, never all started at once. Counted at
 * the emulator: every POST /v1/posts hangs there (a fault), so the items that
 * reached it never end and no place comes free; the run is then interrupted,
 * and the emulator's log says how many posts were ever asked for. The Demo
 * account's allowances are raised so that pacing does not hold the posts back.
 *
 * The batches run in-process (runCli: the same main over real HTTP, Ctrl-C as
 * the abort the bin's SIGINT handler makes); the process boundary is the
 * subject of one case only, a YAML manifest on stdin from a real pipe that the
 * bin stops reading at the limit, and that one runs the built bin.
 */
const fixture = defaultFixture();
fixture.accounts.find((a) => a.id === 'acct_demo')!.limits = { requests_per_minute: { read: 1_000_000, write: 1_000_000 } };
const emu = useEmulator({ fixture, processingMs: 0, publishMs: 0 });
beforeAll(() => ensureBuilt());

function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-batch-in-flight-'));
  mkdirSync(join(dir, 'config'));
  return dir;
}

const vidpubEnv = (dir: string) => ({ ...emu.env(), VIDPUB_CONFIG_DIR: join(dir, 'config'), VIDPUB_STATE_DIR: join(dir, 'state'), VIDPUB_NO_INPUT: '1', NO_COLOR: '1', TZ: 'UTC' });
const env = (dir: string) => ({ ...process.env, ...vidpubEnv(dir) });
/** In-process, in `dir`, the bin's result shape. */
const inProcess = async (dir: string, args: string[], signal?: AbortSignal) => {
  const r = await runCli(args, { cwd: dir, env: vidpubEnv(dir), signal });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
};

const postsAsked = async () => (await emu.api.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/posts');

describe('vidpub batch: items under way at once', () => {
  it('--concurrency 1, 3 times the pool of items: at most the pool under way, the rest never started while it is full', async () => {
    const limit = inFlightLimit(1);
    const items = limit * 3;
    const dir = workDir();
    // Drafts of a ready video: no upload, no daily allowance; each item goes straight to POST /v1/posts.
    writeFileSync(join(dir, 'x.jsonl'), Array.from({ length: items }, (_, i) => JSON.stringify({ media: 'med_demo_sample', to: 'linkedin', caption: `Draft ${i + 1}`, draft: true })).join('\n') + '\n');
    await emu.admin('POST', '/faults', { method: 'POST', path: '/v1/posts', action: 'hang', times: 1_000_000 });
    const ctrlC = new AbortController();
    const run = inProcess(dir, ['batch', 'x.jsonl', '--yes', '--concurrency', '1'], ctrlC.signal);
    try {
      // The pool is full: `limit` posts hang at the emulator, none of them ends, no more item may start.
      await waitFor(postsAsked, (p) => p.length >= limit, 60_000);
      // Every item up to the pool's size is in the log now; a run that started more would have them there too.
      const seen = await postsAsked();
      expect(seen.length).toBe(limit);
      expect(new Set(seen.map((r) => `${r.status} ${r.fault}`))).toEqual(new Set(['0 hang']));
    } finally {
      // Ctrl-C, as bin/vidpub.js hands SIGINT to the command.
      ctrlC.abort(Object.assign(new Error('received SIGINT'), { name: 'AbortError', signal: 'SIGINT' }));
    }
    const { status: code, stdout, stderr } = await run;
    // The posts that hung got no answer: their outcome is unknown (exit 9); the items not started are told so.
    expect(code, stderr).toBe(9);
    expect(stderr).toContain(`The outcome of ${limit} of ${items} items is unknown`);
    // None of the items after the pool's asked for a post.
    expect((await postsAsked()).length).toBe(limit);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { item: number; post_id: string | null });
    expect(lines).toHaveLength(items);
    expect(lines.every((l) => l.post_id === null)).toBe(true);
  }, 120_000);
});

describe('vidpub batch: a YAML manifest over its limit', () => {
  it('is refused from its size, before it is read: exit 2, and what to use instead', async () => {
    const dir = workDir();
    const file = join(dir, 'big.yaml');
    // Sparse: its size says it is too long; it holds no YAML at all (reading it would be a parse error).
    writeFileSync(file, '');
    truncateSync(file, MAX_YAML_MANIFEST_BYTES + 1);
    const r = await inProcess(dir, ['batch', 'big.yaml', '--dry-run']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('big.yaml is a YAML manifest longer than 1,000,000 bytes, the most vidpub reads as YAML (its parser holds the whole document in memory)');
    expect(r.stderr).toContain('Write it as JSON Lines (.jsonl, an item a line) or CSV (.csv), read up to 10,000,000 bytes, or split it into several YAML manifests.');
  });

  it('on stdin (--format yaml) from a real pipe, the built bin: reading stops at the limit, exit 2, the same advice', async () => {
    const dir = workDir();
    const row = '- media: med_demo_sample\n  to: linkedin\n  caption: A draft\n  draft: true\n';
    const text = row.repeat(Math.ceil((MAX_YAML_MANIFEST_BYTES + 1) / row.length));
    const r = await runAsync(process.execPath, [BIN, 'batch', '-', '--format', 'yaml', '--dry-run'], { cwd: dir, env: env(dir), input: text });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('the manifest on stdin is a YAML manifest longer than 1,000,000 bytes');
    expect(r.stderr).toContain('Write it as JSON Lines (.jsonl, an item a line) or CSV (.csv)');
  });

  it('a YAML manifest of exactly the limit is read, to its last byte', async () => {
    const dir = workDir();
    // Two items with comment lines between them up to exactly the limit: the size check lets it through, and the
    // second item, after the padding, is in the plan only if the whole file was read. (Filled with some 12,000 items
    // instead, the run spent 4 s of CPU in the YAML parser and its garbage collector, and checked the limit no better.)
    const row = (i: number) => `- media: med_demo_sample\n  to: linkedin\n  caption: Draft ${i}\n  draft: true\n`;
    const head = row(1);
    const tail = row(2);
    let padding = MAX_YAML_MANIFEST_BYTES - head.length - tail.length;
    const comments: string[] = [];
    while (padding > 0) {
      // Lines of 100 bytes; the last one the rest (an empty line when it is one byte).
      const length = padding >= 200 ? 100 : padding;
      comments.push(length === 1 ? '\n' : `#${'x'.repeat(length - 2)}\n`);
      padding -= length;
    }
    const text = head + comments.join('') + tail;
    expect(Buffer.byteLength(text)).toBe(MAX_YAML_MANIFEST_BYTES);
    writeFileSync(join(dir, 'ok.yaml'), text);
    const r = await inProcess(dir, ['batch', 'ok.yaml', '--dry-run']);
    expect(r.status, r.stderr).toBe(0);
    // The plan, its last item included.
    expect(r.stdout).toContain('Draft 1');
    expect(r.stdout).toContain('Draft 2');
  });
});

/**
 * The journal file itself: concurrent appenders from many processes lose and
 * tear nothing (rotation included), damaged lines are skipped with one
 * warning and never rewritten, records stay small, segments read newest first.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { createJournal } from '../../src/journal/journal.js';
import { decode, encode, JournalStore, MAX_RECORD_BYTES } from '../../src/journal/jsonl-store.js';
import { stateDir } from '../../src/journal/paths.js';
import type { ApiClient } from '../../src/api/client.js';
import type { Post } from '../../src/contract/wire-types.js';
import type { PostRecord, StatusRecord } from '../../src/journal/journal-types.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'vidpub-journal-'));

function postRecord(i: number, extra: Partial<PostRecord> = {}): PostRecord {
  return {
    v: 1,
    kind: 'post',
    at: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(),
    profile: 'default',
    base_url: 'http://127.0.0.1:1/v1',
    key: 'abc123abc123',
    workspace_id: 'ws_demo',
    workspace: 'Demo',
    post_id: `post_${i}`,
    media_id: `med_${i}`,
    caption: `caption ${i}`,
    destinations: [{ id: 'dst_demo_tiktok', name: '@vidpub.demo (tiktok)', options: { privacy: 'SELF_ONLY' }, status: 'publishing' }],
    publish_at: null,
    draft: false,
    outcome: 'created',
    status: 'publishing',
    ...extra,
  };
}

/** A journal over a directory, for reading (no client calls are made by reads). */
function reader(dir: string, warn: (l: string) => void = () => {}) {
  const client = { baseUrl: 'http://127.0.0.1:1/v1', keyId: 'abc123abc123' } as unknown as ApiClient;
  return createJournal({ dir, profile: 'default', client: async () => client, clock: { now: () => Date.now() }, warn });
}

describe('where the journal lives', () => {
  it('VIDPUB_STATE_DIR, then XDG_STATE_HOME/vidpub, then ~/.local/state/vidpub', () => {
    expect(stateDir({ VIDPUB_STATE_DIR: '/s', XDG_STATE_HOME: '/x', HOME: '/h' })).toBe('/s');
    expect(stateDir({ XDG_STATE_HOME: '/x', HOME: '/h' })).toBe('/x/vidpub');
    // a relative XDG path is invalid (the XDG spec) and ignored; VIDPUB_STATE_DIR is used as given
    expect(stateDir({ XDG_STATE_HOME: 'state', HOME: '/h' })).toBe('/h/.local/state/vidpub');
    expect(stateDir({ VIDPUB_STATE_DIR: 'here', HOME: '/h' })).toBe('here');
    expect(stateDir({ HOME: '/h' })).toBe('/h/.local/state/vidpub');
  });

  it('creates the directory 0700 and the file 0600', () => {
    const dir = join(tmp(), 'state', 'vidpub');
    new JournalStore(dir).append(postRecord(1));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'journal.jsonl')).mode & 0o777).toBe(0o600);
  });
});

describe('many processes appending at once', () => {
  it('4 processes × 400 records, released at once, rotating as they go: every record is there once, none torn', async () => {
    const dir = tmp();
    const bundle = join(dir, 'store.mjs');
    await build({ entryPoints: [resolve('src/journal/jsonl-store.ts')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'silent' });
    const child = join(dir, 'child.mjs');
    writeFileSync(
      child,
      `import { JournalStore } from ${JSON.stringify(bundle)};
const [dir, who, n] = process.argv.slice(2);
const store = new JournalStore(dir, 64 * 1024);
// Started and loaded: say so, and append once the test releases every process (the end of stdin).
process.stdout.write('ready\\n');
process.stdin.resume();
process.stdin.on('end', () => {
  for (let i = 0; i < Number(n); i++) {
    store.append({ v: 1, kind: 'status', at: new Date().toISOString(), profile: 'p', post_id: 'post_' + who + '_' + i, status: 'publishing', destinations: [{ id: 'd', status: 'x'.repeat(300 + (i % 50)) }] });
  }
});
`,
    );
    const journalDir = join(dir, 'state');
    // Four processes, twice the machine's two cores, so that appends from several of them are in flight at
    // every moment; each appends only once all four have started (Node's start takes longer than a few hundred
    // appends: started one by one, they would mostly append one after another). 1,600 records of ~0.5 kB
    // rotate the 64 kB segments a dozen times while they race.
    const PROCS = 4;
    const N = 400;
    const procs = Array.from({ length: PROCS }, (_, who) => spawn(process.execPath, [child, journalDir, String(who), String(N)], { stdio: ['pipe', 'pipe', 'inherit'] }));
    const codes = procs.map((p) => new Promise<number | null>((done) => p.on('close', done)));
    const started = (p: (typeof procs)[number]) =>
      new Promise<void>((ready, failed) => {
        p.stdout.once('data', () => ready());
        p.once('close', (code) => failed(new Error(`an appender ended (${code}) before it started`)));
      });
    await Promise.all(procs.map(started));
    for (const p of procs) p.stdin.end();
    expect((await Promise.all(codes)).every((c) => c === 0)).toBe(true);

    const store = new JournalStore(journalDir);
    expect(store.segments().length).toBeGreaterThan(5); // rotation happened while they wrote
    const seen = new Map<string, number>();
    let damaged = 0;
    for (const l of store.linesNewestFirst()) {
      const { record, damaged: d } = decode(l.text);
      if (d || !record) damaged++;
      else seen.set((record as StatusRecord).post_id, (seen.get((record as StatusRecord).post_id) ?? 0) + 1);
    }
    expect(damaged).toBe(0);
    expect(seen.size).toBe(PROCS * N);
    expect([...seen.values()].every((c) => c === 1)).toBe(true);
  }, 60_000);
});

describe('reading it back', () => {
  it('a damaged line is skipped with one warning naming the file and line, and the file is left as it is', async () => {
    const dir = tmp();
    const store = new JournalStore(dir);
    store.append(postRecord(1));
    appendFileSync(store.activePath, '{"v":1,"kind":"post","post_id":"post_cut\n');
    appendFileSync(store.activePath, 'not json at all\n');
    store.append(postRecord(2));
    const before = readFileSync(store.activePath);
    const warnings: string[] = [];
    const posts = await reader(dir, (l) => warnings.push(l)).history({ limit: 20 });
    expect(posts.map((p) => p.post_id)).toEqual(['post_2', 'post_1']);
    expect(warnings).toEqual([`Skipped a damaged line in the journal: ${store.activePath} line 3 (the file is left as it is).`]);
    expect(readFileSync(store.activePath).equals(before)).toBe(true);
  });

  it('a record written after a cut-short one is still read', () => {
    const good = encode(postRecord(7)).toString().trimEnd();
    const { record, damaged } = decode('{"v":1,"kind":"po' + good);
    expect(damaged).toBe(true);
    expect((record as PostRecord).post_id).toBe('post_7');
  });

  it('a record stays under the size limit however long its options', () => {
    const big = postRecord(1, {
      destinations: Array.from({ length: 30 }, (_, i) => ({ id: `dst_${i}`, options: { text: 'y'.repeat(500) } })),
    });
    const line = encode(big);
    expect(line.length).toBeLessThanOrEqual(MAX_RECORD_BYTES);
    expect(JSON.parse(line.toString())).toMatchObject({ post_id: 'post_1', truncated: true });
  });

  it('segments are read newest first, and status records fold into their post', async () => {
    const dir = tmp();
    const store = new JournalStore(dir, 2048);
    for (let i = 1; i <= 30; i++) store.append(postRecord(i));
    store.append({ v: 1, kind: 'status', at: new Date().toISOString(), profile: 'default', post_id: 'post_3', status: 'completed', destinations: [{ id: 'dst_demo_tiktok', status: 'failed', failure: 'refused' }], outcome: 'failed' });
    expect(readdirSync(dir).filter((f) => /^journal\.\d{6}\.jsonl$/.test(f)).length).toBeGreaterThan(3);
    const j = reader(dir);
    const all = await j.history({ limit: 100 });
    expect(all.map((p) => p.post_id)).toEqual(Array.from({ length: 30 }, (_, i) => `post_${30 - i}`));
    expect(await j.history({ limit: 100, state: 'failed' })).toMatchObject([{ post_id: 'post_3', state: 'failed', outcome: 'failed', destinations: [{ status: 'failed', failure: 'refused' }] }]);
    expect((await j.history({ limit: 5 })).length).toBe(5);
  });

  it('finds a post by its --idempotency-key only with the same service and key or workspace', async () => {
    const dir = tmp();
    const store = new JournalStore(dir);
    store.append(postRecord(1, { idem: 'nightly"1' }));
    store.append(postRecord(2, { idem: 'nightly"1', base_url: 'https://elsewhere.example/v1' }));
    const j = reader(dir);
    expect((await j.findByKey('nightly"1'))?.post_id).toBe('post_1');
    expect(await j.findByKey('nightly')).toBeUndefined();
  });

  it('finds the posts of many keys in one pass, by the same rules as findByKey', async () => {
    const dir = tmp();
    const store = new JournalStore(dir, 2048);
    for (let i = 1; i <= 40; i++) store.append(postRecord(i, { idem: `batch-${i % 10}:post` }));
    store.append(postRecord(41, { idem: 'quo"ted\\key' }));
    store.append(postRecord(42, { idem: 'batch-elsewhere:post', base_url: 'https://elsewhere.example/v1' }));
    store.append(postRecord(43)); // no key
    const j = reader(dir);
    const keys = ['batch-3:post', 'batch-0:post', 'quo"ted\\key', 'batch-elsewhere:post', 'batch-never:post'];
    const found = await j.postIdsByKeys(keys);
    // The newest post under each key, as findByKey finds it; another service's and unknown keys: none.
    expect(Object.fromEntries(found)).toEqual({ 'batch-3:post': 'post_33', 'batch-0:post': 'post_40', 'quo"ted\\key': 'post_41' });
    for (const k of keys) expect(found.get(k)).toBe((await j.findByKey(k))?.post_id);
    expect((await j.postIdsByKeys([])).size).toBe(0);
  });
});

describe('a journal that cannot be written', () => {
  it('warns once and goes on (the caller is never failed)', async () => {
    const base = tmp();
    writeFileSync(join(base, 'a-file'), '');
    const warnings: string[] = [];
    const client = { baseUrl: 'http://127.0.0.1:1/v1', keyId: 'k', getMe: async () => ({ workspace: { id: 'ws', name: 'W' } }) } as unknown as ApiClient;
    const j = createJournal({ dir: join(base, 'a-file', 'state'), profile: 'default', client: async () => client, clock: { now: () => Date.now() }, warn: (l) => warnings.push(l) });
    const post = { id: 'post_1', status: 'publishing', caption: 'c', media_id: 'med_1', publish_at: null, review_url: '', issues: [], destinations: [], created_at: '' } as Post;
    await j.post({ post, outcome: 'created' });
    await j.status(post, 'published');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Could not write to the journal in .*a-file\/state \(ENOTDIR\): this run is not recorded there\. The command itself is not affected/);
  });
});

describe('rotation under the lock file', () => {
  const big = () => postRecord(1, { caption: 'x'.repeat(2000) });

  it('a live holder of journal.jsonl.lock: this process skips the rotation, appends go on', () => {
    const dir = tmp();
    const store = new JournalStore(dir, 1024);
    // Held by a live process of this host (this one, as another vidpub would).
    writeFileSync(join(dir, 'journal.jsonl.lock'), JSON.stringify({ pid: process.ppid, host: hostname(), at: Date.now() }));
    store.append(big());
    expect(store.segments()).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['journal.jsonl', 'journal.jsonl.lock']);
  });

  it('a lock left by a process that died is taken over: the rotation happens and the lock is gone', () => {
    const dir = tmp();
    const store = new JournalStore(dir, 1024);
    writeFileSync(join(dir, 'journal.jsonl.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), at: Date.now() }));
    store.append(big());
    expect(store.segments().map((s) => s.n)).toEqual([1]);
    expect(readdirSync(dir)).not.toContain('journal.jsonl.lock');
  });
});

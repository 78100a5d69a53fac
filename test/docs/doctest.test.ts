/**
 * The manual's runner itself: on small synthetic documents, a matching block
 * passes, and a wrong output block, a removed flag or an unmarked block fails,
 * naming the block; and the `vidpub` that runs the build's main in the test's
 * process (test/support/in-process-vidpub.ts) behaves as the bin does for what
 * a block can see.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, ensureBuilt } from '../support/build.js';
import { InProcessVidpub, needsRealBin, servesUntilSignal } from '../support/in-process-vidpub.js';
import { Session, compareLines, extractBlocks, normalise, onTerminal, parseTranscript, runDocument, ttyColumns } from './doctest.js';

const F = '```';
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function session(inProcess?: InProcessVidpub): { session: Session; home: string; cwd: string } {
  const home = mkdtempSync(join(tmpdir(), 'vidpub-doctest-home-'));
  const cwd = mkdtempSync(join(tmpdir(), 'vidpub-doctest-work-'));
  dirs.push(home, cwd);
  // Nothing here talks to a service: the base URL is only substituted.
  return { session: new Session({ root: ROOT, baseUrl: 'http://127.0.0.1:9/v1', home, cwd, timeoutMs: 30_000, inProcess }), home, cwd };
}

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function doc(parts: string[]): string {
  return parts.join('\n');
}

describe('extractBlocks', () => {
  it('reads each fenced block with its marker, section and line; setup comments are blocks of their own', () => {
    const md = doc([
      '# Title',
      '## Usage',
      '<!-- doctest: run -->',
      `${F}sh`,
      'echo hi',
      F,
      '',
      '<!-- doctest: output tail -->',
      F,
      'hi',
      F,
      '<!-- doctest: setup',
      'touch x -->',
      '<!-- doctest: skip an MCP client config -->',
      `${F}json`,
      '{}',
      F,
      `${F}sh`,
      'unmarked',
      F,
    ]);
    const blocks = extractBlocks(md);
    expect(blocks.map((b) => [b.kind, b.line, b.section, b.lang, b.reason])).toEqual([
      ['run', 4, 'Usage', 'sh', undefined],
      ['output', 9, 'Usage', '', 'tail'],
      ['setup', 12, 'Usage', 'sh', undefined],
      ['skip', 15, 'Usage', 'json', 'an MCP client config'],
      ['unmarked', 18, 'Usage', 'sh', undefined],
    ]);
    expect(blocks[2]!.body).toBe('touch x');
  });

  it('refuses a skip without a reason, an unknown marker, and a marker with no block after it', () => {
    expect(() => extractBlocks(doc(['<!-- doctest: skip -->', F, 'x', F]))).toThrow('line 1: "doctest: skip" needs a reason');
    expect(() => extractBlocks(doc(['<!-- doctest: rnu -->', F, 'x', F]))).toThrow('line 1: unknown doctest marker: <!-- doctest: rnu -->');
    expect(() => extractBlocks(doc(['<!-- doctest: run -->', 'some prose', F, 'x', F]))).toThrow('line 2: a doctest marker must be followed by a fenced block');
  });
});

describe('normalise and compareLines', () => {
  it('replaces ids, times, dates, ports, the throwaway HOME and durations, and drops progress lines', () => {
    const text = [
      'id\tpost_0123456789abcdef',
      'video med_fedcba9876543210 is ready, 2 s.',
      'publish_at\t2026-11-21T09:00:00+01:00 (2026-11-21T08:00:00Z)',
      'Stored in: /tmp/home-x1/.config/vidpub/config.json',
      'http://127.0.0.1:39999/v1 (8 ms) reset=17s remaining=50/60',
      'Processing: 25%',
      'Uploading clip.mp4: 100% (0.01 of 0.01 MB, 0.5 MB/s)',
      'med_demo_sample stays',
      'resets Nov 21, 2026, 12:00 AM; resets Nov 27, 2026,',
      'Publish at: today 20:12:33 UTC, 4 s ago (2026-11-26T20:12:33Z); today 20:12:33 UTC, in 10 m 2 s (x)',
    ].join('\n');
    expect(normalise(text, { home: '/tmp/home-x1' })).toEqual([
      'id\tpost_<id>',
      'video med_<id> is ready, <n> s.',
      'publish_at\t<time> (<time>)',
      'Stored in: /tmp/you/.config/vidpub/config.json',
      'http://127.0.0.1:4010/v1 (<n> ms) reset=<n> s remaining=<n>/60',
      'med_demo_sample stays',
      'resets <clock>; resets <date>,',
      'Publish at: today <clock> UTC, <relative> (<time>); today <clock> UTC, <relative> (x)',
    ]);
  });

  it('compares exactly, trailing tabs included; a line of "…" stands for any lines', () => {
    expect(compareLines(['a', 'b\t'], ['a', 'b\t'])).toBeUndefined();
    expect(compareLines(['a', 'b'], ['a', 'b\t'])).toContain('printed:\n  "a"\n  "b\\t"');
    expect(compareLines(['a', '…', 'z'], ['a', 'b', 'c', 'z'])).toBeUndefined();
    expect(compareLines(['a', '…', 'z'], ['a', 'b', 'c'])).toBeDefined();
    expect(compareLines(['a', ''], ['a'])).toBeUndefined();
  });

  it('splits a transcript into commands and their shown output', () => {
    expect(parseTranscript('$ vidpub me \\\n  --json\n{}\n$ echo $?\n0')).toEqual([
      { command: 'vidpub me \n  --json', shown: ['{}'] },
      { command: 'echo $?', shown: ['0'] },
    ]);
  });
});

describe('runDocument', () => {
  ensureBuilt();

  const good = doc([
    '## Version',
    '<!-- doctest: run -->',
    `${F}sh`,
    'V=$(vidpub --version)',
    'echo "version $V"',
    F,
    '<!-- doctest: output -->',
    F,
    `version ${version}`,
    F,
    '<!-- doctest: transcript -->',
    F,
    '$ echo "$V" > v.txt; cat v.txt',
    version,
    '$ vidpub upload missing.mp4',
    'Error: missing.mp4: no such file',
    'Check the path (it is relative to the current directory).',
    '$ echo $?',
    '2',
    F,
    '<!-- doctest: skip a GitHub Actions step -->',
    `${F}yaml`,
    '- uses: actions/setup-node@v4',
    F,
  ]);

  it('runs the blocks in one session (variables and files carry over) and counts runs, matches and skips', async () => {
    const { session: s } = session();
    const r = await runDocument(good, s, {});
    expect(r.failures).toEqual([]);
    expect(r).toMatchObject({ runs: 2, matches: 2, skipped: [{ name: 'line 22 (Version)', reason: 'a GitHub Actions step' }] });
  }, 60_000);

  it('a deliberately wrong output block fails, naming the block and showing both sides', async () => {
    const { session: s } = session();
    const r = await runDocument(good.replace(`version ${version}\n`, 'version 0.0.0-wrong\n'), s, {});
    expect(r.failures).toHaveLength(1);
    expect(r.failures[0]!.name).toBe('line 8 (Version)');
    expect(r.failures[0]!.message).toContain('does not match what line 3 (Version) printed');
    expect(r.failures[0]!.message).toContain('"version 0.0.0-wrong"');
    expect(r.failures[0]!.message).toContain(`"version ${version}"`);
    expect(r.matches).toBe(1);
  }, 60_000);

  it('a removed flag fails the run block that uses it, and the transcript that shows it', async () => {
    const { session: s } = session();
    const md = doc([
      '## Flags',
      '<!-- doctest: run -->',
      `${F}sh`,
      'vidpub me --no-such-flag > /dev/null',
      'echo after',
      F,
      '<!-- doctest: transcript -->',
      F,
      '$ vidpub upload missing.mp4 --no-such-flag',
      'Error: missing.mp4: no such file',
      'Check the path (it is relative to the current directory).',
      F,
    ]);
    const r = await runDocument(md, s, {});
    expect(r.failures.map((f) => f.name)).toEqual(['line 3 (Flags)', 'line 8 (Flags)']);
    expect(r.failures[0]!.message).toMatch(/^exited 2:\n[\s\S]*unknown option '--no-such-flag'/);
    expect(r.failures[0]!.message).not.toContain('after');
    expect(r.failures[1]!.message).toContain("unknown option '--no-such-flag'");
  }, 60_000);

  it('an unmarked block fails', async () => {
    const { session: s } = session();
    const r = await runDocument(doc(['## X', `${F}sh`, 'echo hi', F]), s, {});
    expect(r.failures).toEqual([{ name: 'line 2 (X)', message: 'the block has no doctest marker (run, output, transcript, shows, file or skip REASON)' }]);
  });

  it('the emulator address is substituted, and a background emulator line is left out', async () => {
    const { session: s } = session();
    const md = doc(['## E', '<!-- doctest: run -->', `${F}sh`, 'vidpub emulator &   # starts one', 'echo http://127.0.0.1:4010/v1', 'kill %1', F]);
    const r = await runDocument(md, s, {});
    expect(r.failures).toEqual([]);
    // The session prints the substituted URL: port 9 is the session's emulator here.
    const out = await s.run('echo http://127.0.0.1:4010/v1');
    expect(out.output).toBe('http://127.0.0.1:9/v1\n');
  });

  it('a tty transcript runs on a pseudo-terminal as wide as it claims (100 columns unless it says)', async () => {
    const { session: s } = session();
    if ((await s.run('command -v script > /dev/null', { keepState: false })).code !== 0) {
      // Under CI, which installs it (.ci/run), its absence is a failure.
      expect(process.env.CI, 'no `script` program for the pseudo-terminal').toBeUndefined();
      return;
    }
    const width = "node -e 'console.log(process.stdout.isTTY, process.stdout.columns)'";
    const md = doc(['## T', '<!-- doctest: transcript tty 60 -->', F, `$ ${width}`, 'true 60', F, '<!-- doctest: transcript tty -->', F, `$ ${width}`, 'true 100', F]);
    const r = await runDocument(md, s, {});
    expect(r.failures).toEqual([]);
    expect(r.matches).toBe(2);
    const wrong = await runDocument(md.replace('true 60', 'true 80'), s, {});
    expect(wrong.failures.map((f) => f.name)).toEqual(['line 3 (T)']);
  });

  it('a transcript claims a terminal with "tty" or "tty COLUMNS", nothing else', () => {
    expect(ttyColumns(undefined)).toBeUndefined();
    expect(ttyColumns('tty')).toBe(100);
    expect(ttyColumns('tty 60')).toBe(60);
    expect(() => ttyColumns('tty wide')).toThrow('only "transcript tty" or "transcript tty COLUMNS" is known');
  });
});

describe("vidpub run in the test's process (in-process-vidpub.ts)", () => {
  let vidpub: InProcessVidpub;
  beforeAll(async () => {
    ensureBuilt();
    vidpub = await InProcessVidpub.start(ROOT);
  });
  afterAll(() => vidpub.close());

  it("gets the command's arguments, working directory, environment and stdin; gives back stdout and stderr in order, each to its own stream, and the exit code", async () => {
    const { session: s } = session(vidpub);
    const before = vidpub.ran.inProcess;
    const md = doc([
      '## P',
      '<!-- doctest: transcript -->',
      F,
      // The working directory: the file is found in sub/ (from the session's directory it is missing).
      '$ mkdir sub && : > sub/empty.mp4 && cd sub && vidpub upload empty.mp4',
      'Error: empty.mp4 is empty (0 bytes)',
      '$ echo $?',
      '2',
      // The environment, and stderr alone through a pipe.
      '$ VIDPUB_API_KEY= vidpub me 2>&1 >/dev/null | tail -1',
      'Set VIDPUB_API_KEY to the key, or unset it (unset VIDPUB_API_KEY) to use the stored profile.',
      // stdin from a pipe; stderr's lines before the stdout line written after them.
      "$ printf '%s\\n' 'not json' | vidpub mcp",
      'vidpub mcp: No API key: none was given and none is stored. Tools will answer with this error until it is fixed.',
      'vidpub mcp: message on input line 1 (8 bytes) refused: not JSON; answered with JSON-RPC error -32700.',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON (one JSON-RPC message per line)."}}',
      "$ printf '%s\\n' 'not json' | vidpub mcp 2> /dev/null > out.txt; cat out.txt",
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON (one JSON-RPC message per line)."}}',
      F,
    ]);
    const r = await runDocument(md, s, {});
    expect(r.failures).toEqual([]);
    expect(r.matches).toBe(1);
    expect(vidpub.ran.inProcess - before).toBe(4);
  });

  it('a reader gone away is no failure, as with the bin: the rest of the output is dropped and the code is the command\'s', async () => {
    const { session: s } = session(vidpub);
    // A pipe whose reader is gone before the command starts: the first write gets EPIPE (bash's own
    // printf would die of SIGPIPE). A FIFO opened for reading and writing, opened again for writing,
    // then closed for reading: no reader is left, with no process to wait for. (Not `exec 7> >(exit 0);
    // wait $!`: bash 5.2's wait for a process substitution that ends at once returns -1 now and then,
    // and under `set -e` the block ended with 255 before vidpub ran.)
    const before = vidpub.ran.inProcess;
    const r = await s.run('set -eo pipefail\nmkfifo gone\nexec 7<>gone 8>gone 7<&-\nvidpub completion bash >&8\necho "exit $?"');
    expect(r).toEqual({ code: 0, output: 'exit 0\n' });
    expect(vidpub.ran.inProcess - before, 'the command ran in this process').toBe(1);
  });

  it("an emulator serves here until the script's signal stops it, as the bin's does", async () => {
    expect(servesUntilSignal(['emulator', '--port', '0', '--fixture', 'f.json'])).toBe(true);
    expect(servesUntilSignal(['emulator', 'requests', '--follow'])).toBe(true);
    expect(servesUntilSignal(['emulator', 'clock', '+2h'])).toBe(false);
    expect(needsRealBin(['emulator', '--port', '0', '--seed-from', 'emulator'], {})).toBeUndefined();
    const { session: s } = session(vidpub);
    const before = { inProcess: vidpub.ran.inProcess, realBin: vidpub.ran.realBin.length, signals: vidpub.ran.signals.length };
    // Started in the background as a page does; its first line read from a FIFO (no polling), a
    // command served by it, then `kill` (SIGTERM): the bin says it stops, and ends with 0.
    const r = await s.run(
      [
        'mkfifo started',
        'vidpub emulator --port 0 > started 2> stopped.err & pid=$!',
        'exec 4< started',
        'IFS= read -r -u 4 line',
        'url=${line#Emulator listening: }',
        'VIDPUB_BASE_URL=$url VIDPUB_API_KEY=vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td vidpub me --jq .workspace.name',
        'kill $pid; wait $pid; echo "exit $?"',
        'cat stopped.err',
      ].join('\n'),
    );
    expect(r.code).toBe(0);
    expect(r.output.replace(/127\.0\.0\.1:\d+/g, 'HOST')).toBe(
      'Demo\nexit 0\n\nTry it: VIDPUB_BASE_URL=http://HOST/v1 VIDPUB_API_KEY=vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td vidpub me\nPress Ctrl-C to stop.\nStopping the emulator.\n',
    );
    expect(vidpub.ran.inProcess - before.inProcess).toBe(2);
    expect(vidpub.ran.realBin.length).toBe(before.realBin);
    expect(vidpub.ran.signals.slice(before.signals)).toEqual(['SIGTERM']);
  });

  it('a terminal, an emulator on a --state DIR, a hook or another time zone is left to the built bin', async () => {
    expect(needsRealBin(['emulator', '--state', 'dir'], {})).toBe("the emulator's --state DIR is locked by its process");
    expect(needsRealBin(['emulator', '--port', '0', '--fixture', 'f.json'], {})).toBe("the emulator reads its files relative to the process's directory");
    expect(needsRealBin(['emulator', '--import=world.json'], {})).toBe("the emulator reads its files relative to the process's directory");
    expect(needsRealBin(['emulator', 'clock', '+2h'], {})).toBeUndefined();
    expect(needsRealBin(['watch', '--exec', 'echo hi'], {})).toBe("a hook inherits the process's stderr");
    expect(needsRealBin(['me'], { TZ: 'Asia/Tokyo' })).toBe("TZ Asia/Tokyo is not this process's zone");
    expect(needsRealBin(['me'], { TZ: process.env.TZ })).toBeUndefined();
    // At a terminal the script execs the bin before it asks this process anything; with none of
    // stdin, stdout and stderr a terminal, the command runs here (the first line), on the same terminal.
    const { session: s } = session(vidpub);
    if ((await s.run('command -v script > /dev/null', { keepState: false })).code !== 0) {
      expect(process.env.CI, 'no `script` program for the pseudo-terminal').toBeUndefined();
      return;
    }
    const before = { inProcess: vidpub.ran.inProcess, realBin: vidpub.ran.realBin.length };
    const r = await s.run(onTerminal('vidpub version < /dev/null 2> /dev/null | head -1; vidpub version', 100));
    expect(r.output.replace(/\r/g, '')).toMatch(/^version\t[\d.]+\nvidpub [\d.]+\n/);
    expect(vidpub.ran.inProcess - before.inProcess).toBe(1);
    expect(vidpub.ran.realBin.length).toBe(before.realBin);
  });
});

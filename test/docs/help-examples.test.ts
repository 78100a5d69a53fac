/**
 * Every example that `--help` shows (each command's `examples` and the root
 * help's) is checked like the manual's blocks: the shell expands it, the
 * vidpub arguments it ends up with must parse (vidpub's own command-line
 * module, nothing run), and where it can run here the shell runs it whole (pipes,
 * redirections, `$(...)`) against a fresh emulator on an ephemeral port
 * (throwaway HOME) and it must exit 0: two bash side by side run them all (a command's
 * examples in the same one, each shell with an emulator of its own), each in a
 * subshell of its own on a fresh minute of the emulator's clock. Its `vidpub` runs the build's main in
 * this process (test/support/in-process-vidpub.ts, as the manual's pages do),
 * except the examples in BUILT_BIN, which run this checkout's build end to end
 * (bin/vidpub.js, its main bundle and a slim one).
 * Placeholder ids (post_123, med_123) stand for a post or video made for it. */
import { copyFileSync, cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { loadCommand } from '../../src/cli/commands/load.js';
import { ROOT_EXAMPLES } from '../../src/cli/line/root-help.js';
import { readLineOnly } from '../support/cli.js';
import { ROOT } from '../support/build.js';
import { Session, shellQuote } from './doctest.js';
import { useBuiltEmulatorSandbox, type Sandbox } from '../support/built-emulator.js';
import { reportItem, shardReport } from '../support/batch-reports.js';
import { InProcessVidpub } from '../support/in-process-vidpub.js';

/** Examples that parse but cannot run to exit 0 here, and why. */
const PARSE_ONLY: Record<string, string> = {
  'vidpub login': 'asks for the key at a terminal',
  'vidpub login --base-url http://127.0.0.1:4010/v1 --profile emulator': 'asks for the key at a terminal',
  'vidpub post clip.mp4 --to @vidpub.demo --caption "Hello"': 'asks for the TikTok privacy at a terminal',
  'vidpub demo': 'the demo test runs it (about 9 s at its default timings)',
  'vidpub demo --no-input --json | jq .post.status': 'the demo test runs it (about 9 s at its default timings)',
  'vidpub emulator': 'runs until Ctrl-C',
  'vidpub emulator --port 0 --json': 'runs until Ctrl-C',
  'vidpub emulator --processing-ms 200 --publish-ms 200': 'runs until Ctrl-C',
  'vidpub emulator --fixture my-accounts.json': 'runs until Ctrl-C',
  'vidpub emulator --tls --port 0 --json': 'runs until Ctrl-C',
  'vidpub emulator requests --follow': 'follows the request log until Ctrl-C (test/emulator/controls-cli.test.ts runs it)',
  'vidpub emulator --seed-from default --save-fixture my-workspace.json': 'runs until Ctrl-C',
  'vidpub emulator --state ~/.vidpub-emulator': 'runs until Ctrl-C',
  'vidpub emulator --import world.json': 'runs until Ctrl-C',
  'vidpub emulator reset --yes': 'would empty the emulator the other examples run against (test/emulator/state-cli.test.ts runs it)',
  'vidpub completion zsh > "${fpath[1]}/_vidpub"': "zsh's $fpath",
  'generate-items | vidpub batch - --format jsonl --yes --json': 'generate-items stands for a program of yours',
  'vidpub publish post_123 --option @vidpub.demo:privacy=SELF_ONLY': 'needs a draft blocked for its privacy (test/commands/new-user.test.ts runs it); post_123 here is a scheduled post',
  'vidpub retry set_0123456789abcdef --yes': 'needs a set of posts in the journal (test/posts/caption-set-journal.test.ts runs retry SET_ID)',
  'vidpub watch --once --forward-to https://example.com/hooks/vidpub': 'example.com stands for a receiver of yours (test/events/watch-forward.test.ts runs --forward-to)',
};

/**
 * Examples whose `vidpub` is the built bin (bin/vidpub.js), not main() in this process: the
 * end-to-end post of the root help (dist/main.js) and an upload (dist/upload.js, a slim bundle).
 */
const BUILT_BIN = new Set(['vidpub post clip.mp4 --to youtube --caption "Nightly" --no-input --json', 'vidpub upload clip.mp4 --json | jq -r .id']);

/** Examples the in-process `vidpub` hands to the built bin itself (its needsRealBin), and why. */
const HANDED_TO_BUILT_BIN: Record<string, string> = {
  'vidpub watch --once --exec ./on-event.sh': "a hook inherits the process's stderr",
};

interface Example {
  where: string;
  text: string;
}

async function allExamples(): Promise<Example[]> {
  const out: Example[] = ROOT_EXAMPLES.map((text) => ({ where: 'vidpub --help', text }));
  for (const entry of COMMANDS) {
    const spec = await loadCommand(entry.name);
    for (const text of spec.examples ?? []) out.push({ where: `vidpub ${entry.name} --help`, text });
  }
  return out;
}

/** Reads `argv` with vidpub's command-line module (nothing runs); returns the parser's error, or undefined. */
async function parseError(argv: string[]): Promise<string | undefined> {
  const read = await readLineOnly(argv);
  // A line that runs a command, or asks for help (exit 0, nothing to run).
  if (read.line || read.code === 0) return undefined;
  return read.stderr.trim() || `exit ${read.code} without a command`;
}

/**
 * The examples run in SHARDS shells side by side (most of an example's time is waiting on the
 * service's work and its command's looks at it), each shell with an emulator, a HOME, a working
 * directory and an in-process `vidpub` of its own; a command's examples all run in the same one.
 */
const SHARDS = 2;

/** Commands whose examples act on what another's made (logout on login's stored profiles): one shell for them. */
const SAME_SHELL = [['vidpub login --help', 'vidpub logout --help', 'vidpub profiles --help', 'vidpub config --help']];

interface Shard {
  box: Sandbox;
  session: Session;
  inProcess: InProcessVidpub;
  /** A directory whose `vidpub` is the built bin (the session's own, before the in-process one took its place). */
  builtBin: string;
}

const boxes = Array.from({ length: SHARDS }, (_, i) => useBuiltEmulatorSandbox(`help-${i}`));
const shards: Shard[] = [];

afterAll(async () => {
  for (const shard of shards) await shard.inProcess.close();
});

beforeAll(async () => {
  for (const box of boxes) shards.push(await shardOn(box));
});

/** The shell of `box`: its working directory holding what the examples read, its HOME a key file. */
async function shardOn(box: Sandbox): Promise<Shard> {
  const { cwd, home } = box;
  copyFileSync(join(ROOT, 'test/fixtures/clip.mp4'), join(cwd, 'clip.mp4'));
  copyFileSync(join(ROOT, 'test/fixtures/clip.mp4'), join(cwd, 'big.mp4'));
  writeFileSync(join(cwd, 'caption.txt'), 'Hello from --help\n');
  // The batch examples' manifests: one small item each, a video already at the service.
  writeFileSync(join(cwd, 'week.yaml'), 'items:\n  - media: med_demo_sample\n    to: linkedin\n    caption: From --help\n');
  writeFileSync(join(cwd, 'posts.csv'), 'media,to,caption\nmed_demo_sample,linkedin,From --help\n');
  // batch report's: the reports of two shards.
  mkdirSync(join(cwd, 'reports'));
  for (const i of [1, 2]) writeFileSync(join(cwd, `reports/shard-${i}.json`), JSON.stringify(shardReport({ shard: [i, 2], total: 2, items: [reportItem(i, 'posted')] })));
  mkdirSync(join(home, '.secrets'));
  writeFileSync(join(home, '.secrets/vidpub-key'), 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td\n');
  // The fish example writes into this directory; `vidpub completion --help` does not create it.
  mkdirSync(join(home, '.config/fish/completions'), { recursive: true });
  const session = new Session({
    root: ROOT,
    baseUrl: box.baseUrl,
    home,
    cwd,
    // The examples run in one shell (below): its watchdog is for all of them.
    timeoutMs: 240_000,
    // The examples post the sample clip to the same accounts again and again: the duplicate guard is off for them.
    env: { VIDPUB_BASE_URL: box.baseUrl, VIDPUB_API_KEY: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', VIDPUB_KEY_FOR_CI: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td', VIDPUB_DUPLICATE_WINDOW: '0' },
  });
  // The session's `vidpub` (the built bin) moves aside, for BUILT_BIN; the in-process one takes its place on PATH.
  const builtBin = join(home, '.built-bin');
  mkdirSync(builtBin);
  renameSync(join(home, '.doctest-bin/vidpub'), join(builtBin, 'vidpub'));
  const inProcess = await InProcessVidpub.start(ROOT);
  inProcess.writeScript(join(home, '.doctest-bin'));
  return { box, session, inProcess, builtBin };
}

/** The example with its placeholders replaced by a fresh post or the sample video. */
function concrete(text: string): string {
  // publish needs a post it can still send or move (scheduled); status --wait one that ends (sent now).
  const at = text.startsWith('vidpub status') ? 'now' : '+1d';
  return text
    .replace(/\bpost_123\b/g, `"$(vidpub post --media med_demo_sample --to youtube --caption Later --at ${at} --no-wait --jq .id)"`)
    .replace(/\bmed_123\b/g, 'med_demo_sample');
}

describe('--help examples', () => {
  it('every example parses, and each one that can run here runs against the emulator with exit 0', async () => {
    const examples = await allExamples();
    expect(examples.length).toBeGreaterThan(40);
    const failures: string[] = [];
    let ran = 0;
    const timings: string[] = [];
    // The root help repeats some command examples: check each text once.
    const distinct = examples.filter((ex, i) => examples.findIndex((e) => e.text === ex.text) === i);
    // The shell expands every example, each in a subshell of one bash (a fault in one stays in
    // its own), in a copy of the working directory (what an example's redirection writes there
    // must not change what a later one reads); `vidpub` records the arguments it gets, in a file
    // for each example.
    const { box, session } = shards[0]!;
    const expandDir = join(box.home, 'argv');
    rmSync(expandDir, { recursive: true, force: true });
    mkdirSync(expandDir);
    cpSync(box.cwd, join(expandDir, 'cwd'), { recursive: true });
    const at = (i: number, what: string) => shellQuote(join(expandDir, `${i}.${what}`));
    await session.run(
      `cd ${shellQuote(join(expandDir, 'cwd'))}\n` +
      distinct
        .map((ex, i) => `( vidpub() { printf '%s\\0' "$@" >> ${at(i, 'argv')}; }; jq() { cat > /dev/null; }; sudo() { "$@"; }\neval ${shellQuote(concrete(ex.text).replace(/\$\(vidpub post [^)]*\)/g, 'post_x'))}\n) > ${at(i, 'output')} 2>&1 < /dev/null`)
        .join('\n'),
      { keepState: false },
    );
    // What runs: each example that parses and is not parse-only.
    const runs: Array<{ ex: Example; argv: string[] | undefined }> = [];
    for (const [i, ex] of distinct.entries()) {
      let argv: string[] | undefined;
      try {
        argv = readFileSync(join(expandDir, `${i}.argv`), 'utf8').split('\0').slice(0, -1);
      } catch {
        // Only an example that writes a vidpub command line for later (a shell's rc file) calls nothing now.
        if (!/^echo '.*vidpub .*' >> /.test(ex.text)) {
          failures.push(`${ex.where}: ${ex.text}: vidpub is never called (shell said: ${readFileSync(join(expandDir, `${i}.output`), 'utf8').trim()})`);
          continue;
        }
      }
      const err = argv && (await parseError(argv));
      if (err) {
        failures.push(`${ex.where}: ${ex.text}: does not parse: ${err}`);
        continue;
      }
      if (!PARSE_ONLY[ex.text]) runs.push({ ex, argv });
    }
    // They run in SHARDS shells side by side, a command's examples in the same one, one after
    // another in it, each in a subshell of its own (nothing it defines, no directory it enters and
    // no option it sets is kept for the next), its output and exit code in files. Before each, a hook
    // in this process moves that shell's emulator's clock to a fresh minute (no example waits out
    // the allowances of the ones before it) and notes which vidpub ran so far.
    const load = shards.map(() => 0);
    const shardOf = new Map<string, number>();
    const parts: Array<typeof runs> = shards.map(() => []);
    for (const run of runs) {
      const group = SAME_SHELL.find((g) => g.includes(run.ex.where))?.[0] ?? run.ex.where;
      let k = shardOf.get(group);
      if (k === undefined) shardOf.set(group, (k = load.indexOf(Math.min(...load))));
      load[k]!++;
      parts[k]!.push(run);
    }
    await Promise.all(
      shards.map(async (shard, k) => {
        const { box, session, inProcess, builtBin } = shard;
        const mine = parts[k]!;
        const runDir = join(box.home, 'runs');
        rmSync(runDir, { recursive: true, force: true });
        mkdirSync(runDir);
        const marks: Array<{ inProcess: number; realBin: number; at: number }> = [];
        const hook = inProcess.shellHook('__help_example_starts', async () => {
          marks.push({ inProcess: inProcess.ran.inProcess, realBin: inProcess.ran.realBin.length, at: Date.now() });
          if (marks.length <= mine.length) await box.freshMinute();
        });
        const file = (i: number, what: string) => shellQuote(join(runDir, `${i}.${what}`));
        const all = await session.run(
          [
            hook,
            ...mine.map(({ ex }, i) => {
              // BUILT_BIN's examples: the built bin first on PATH.
              const path = BUILT_BIN.has(ex.text) ? `PATH=${shellQuote(builtBin)}:$PATH\n` : '';
              return `__help_example_starts || exit 70\n( set -eo pipefail\n${path}${concrete(ex.text)}\n) > ${file(i, 'output')} 2>&1 < /dev/null\necho $? > ${file(i, 'code')}`;
            }),
            '__help_example_starts || exit 70',
          ].join('\n'),
          { keepState: false },
        );
        if (process.env.VIDPUB_DOC_TIMINGS) process.stderr.write(`shell ${k}: ${mine.length} examples, ${marks[marks.length - 1]!.at - marks[0]!.at} ms\n`);
        expect(all, all.output).toMatchObject({ code: 0 });
        expect(marks).toHaveLength(mine.length + 1);
        for (const [i, { ex, argv }] of mine.entries()) {
          ran++;
          const code = Number(readFileSync(join(runDir, `${i}.code`), 'utf8'));
          const output = readFileSync(join(runDir, `${i}.output`), 'utf8');
          const inHere = marks[i + 1]!.inProcess > marks[i]!.inProcess;
          const handed = inProcess.ran.realBin.slice(marks[i]!.realBin, marks[i + 1]!.realBin).map((c) => c.why);
          const built = BUILT_BIN.has(ex.text);
          const toBeHanded = HANDED_TO_BUILT_BIN[ex.text];
          timings.push(`${marks[i + 1]!.at - marks[i]!.at} ms  ${ex.text}`);
          if (code !== 0) failures.push(`${ex.where}: ${ex.text}: exited ${code}:\n${output}`);
          // Which vidpub ran it: the built bin for BUILT_BIN (the in-process one never called) and for
          // HANDED_TO_BUILT_BIN (the in-process one handed it over, for that reason only), main() here for
          // the others (but for the example that only writes a command line into a shell's rc file).
          else if (handed.join('; ') !== (toBeHanded ?? '')) failures.push(`${ex.where}: ${ex.text}: handed to the built bin ${handed.length ? `because ${handed.join('; ')}` : 'never'}, expected ${toBeHanded ?? 'never'}`);
          else if (argv && (built || toBeHanded !== undefined) === inHere) failures.push(`${ex.where}: ${ex.text}: ran ${built || toBeHanded ? 'in-process, not the built bin' : 'without calling vidpub'}`);
        }
      }),
    );
    expect(ran).toBe(runs.length);
    const parseOnly = examples.filter((e) => PARSE_ONLY[e.text]).length;
    process.stderr.write(`--help examples: ${examples.length} (${distinct.length} distinct) parse, ${ran} run (${BUILT_BIN.size + Object.keys(HANDED_TO_BUILT_BIN).length} by the built bin), ${parseOnly} parse only (${[...new Set(Object.values(PARSE_ONLY))].join('; ')})\n`);
    if (process.env.VIDPUB_DOC_TIMINGS) process.stderr.write(timings.join('\n') + '\n');
    expect(failures, failures.join('\n\n')).toEqual([]);
    // Every parse-only entry is still an example (no stale exemption).
    for (const text of Object.keys(PARSE_ONLY)) expect(examples.map((e) => e.text)).toContain(text);
    for (const text of [...BUILT_BIN, ...Object.keys(HANDED_TO_BUILT_BIN)]) expect(examples.map((e) => e.text)).toContain(text);
  }, 300_000);
});

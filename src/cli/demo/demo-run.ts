/**
 * `vidpub demo`: the main job, run for real against an emulator started in
 * this process. Each step is an ordinary vidpub command (main() called again
 * through inv.rerun, with a Context of its own), so what is shown is exactly what a user gets:
 * progress, tables, the privacy question on a terminal, the wait to the end.
 *
 * The run never touches the user's stored profile: the sub-commands get the
 * emulator's URL and demo key through their own env and a private, temporary
 * config directory, and the user's VIDPUB_* settings are left out.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { ApiClient } from '../../api/client.js';
import type { Destination, Post } from '../../contract/wire-types.js';
import { ExitCode, InterruptedError, VidpubError, type ExitCodeValue } from '../../errors.js';
import type { Invocation } from '../run/command.js';
import type { Context } from '../run/context.js';
import { shellLine } from '../../util/shell.js';
import { writeSampleVideo } from './sample.js';

export interface DemoOptions {
  processingMs: number;
  publishMs: number;
  /** Post without the confirmation question. */
  yes: boolean;
}

export interface DemoResult {
  base_url: string;
  media_id: string;
  post_id: string;
  post: Post;
  /** What a user types to do the same against the real service. */
  commands: string[];
}

/** A step's command failed: the demo stops with that command's exit code (its error is already shown). */
export class DemoStepError extends VidpubError {
  override readonly exitCode: ExitCodeValue;
  constructor(message: string, exitCode: ExitCodeValue) {
    super(message, { hint: 'The error above comes from that step; run "vidpub demo --debug" to see every request.' });
    this.exitCode = exitCode;
  }
}

const CAPTION = 'Hello from the vidpub demo';
/** How many destinations the demo posts to (at most). */
const MAX_DESTINATIONS = 3;
/** Env settings of the user that must not reach the demo's commands. */
const USER_SETTINGS = ['VIDPUB_BASE_URL', 'VIDPUB_API_KEY', 'VIDPUB_PROFILE', 'VIDPUB_WORKSPACE', 'VIDPUB_CONFIG_DIR', 'VIDPUB_STATE_DIR', 'VIDPUB_CACHE_DIR'];

/** Writes through to `target` and keeps a copy of the text. */
function tee(target: NodeJS.WritableStream): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      target.write(chunk);
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/** The post id in what `vidpub post` printed: `id<TAB>post_…` to a pipe, `Post: post_…` on a terminal. */
export function postIdFrom(output: string): string | undefined {
  const text = output.replace(ANSI, '');
  // `post --quiet` prints the id alone.
  return /^(?:id\t|Post:?[ \t]+)([A-Za-z0-9_-]+)[ \t]*$/m.exec(text)?.[1] ?? /^\s*([A-Za-z0-9_-]+)\s*$/.exec(text)?.[1];
}

/** The video id `vidpub upload` printed (its last line). */
export function mediaIdFrom(output: string): string | undefined {
  const last = output.replace(ANSI, '').trim().split('\n').pop()?.trim();
  return last && /^[A-Za-z0-9_-]+$/.test(last) ? last : undefined;
}

/** The options the demo's post sets: as flags (none on a terminal, where they are asked), as a user would type them, the ones asked, the first account that asks. */
interface PlannedOptions {
  flags: string[];
  explicit: string[];
  asked: string[];
  askingId?: string;
}

/** A value for a required option nobody chose yet: the most private one for a privacy setting. */
function pickValue(values: readonly unknown[]): string | undefined {
  const strings = values.map(String);
  return strings.find((v) => /SELF|PRIVATE|ONLY_ME/i.test(v)) ?? strings[0];
}

/**
 * The Context of a step's command: the demo's env (the emulator's URL and key, a throwaway config
 * and state dir), its temporary directory as cwd, `stdout` for output.
 */
function stepContext(ctx: Context, env: Context['env'], dir: string, stdout: NodeJS.WritableStream): Context {
  const subCtx: Context = {
    ...ctx,
    io: { ...ctx.io, stdout: stdout as Context['io']['stdout'] },
    env,
    cwd: dir,
    config: async () => (await import('../../config/config-store.js')).openConfigStore(env, dir),
    createClient: async (settings) => (await import('../run/client-factory.js')).createClientFor(subCtx, settings),
  };
  return subCtx;
}

/** The user's env without their vidpub settings, with the emulator's URL and key and the demo's own config and journal. */
function demoEnv(ctx: Context, emulator: { baseUrl: string }, key: string, dir: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...ctx.env };
  for (const name of USER_SETTINGS) delete env[name];
  // Its own config, journal and cache: the demo's posts at a throwaway emulator stay out of the user's history,
  // and the cache of its throwaway port (one file per run) goes with the directory.
  return Object.assign(env, {
    VIDPUB_BASE_URL: emulator.baseUrl,
    VIDPUB_API_KEY: key,
    VIDPUB_CONFIG_DIR: join(dir, 'config'),
    VIDPUB_STATE_DIR: join(dir, 'state'),
    VIDPUB_CACHE_DIR: join(dir, 'cache'),
  });
}

/** What a user types to do the same against the real service. */
function realCommands(to: string, chosen: PlannedOptions, optionsOf: string): string[] {
  const realPost = ['vidpub', 'post', 'my-video.mp4', '--to', to, '--caption', CAPTION, ...chosen.explicit];
  return [
    'vidpub login',
    'vidpub me',
    'vidpub destinations',
    `vidpub options ${optionsOf}`,
    shellLine(['vidpub', 'upload', 'my-video.mp4']),
    shellLine(['vidpub', 'post', '--media', 'MEDIA_ID', '--to', to, '--caption', CAPTION, ...chosen.explicit]),
    'vidpub status POST_ID',
    `VIDPUB_API_KEY="$KEY" ${shellLine(realPost)} --no-input --json`,
  ];
}

export async function runDemo(opts: DemoOptions, inv: Invocation): Promise<DemoResult> {
  const { ctx, globals } = inv;
  const c = inv.colors.stderr;
  const { startEmulator } = await import('../../emulator/index.js');

  const dir = await mkdtemp(join(tmpdir(), 'vidpub-demo-'));
  inv.log.info(c.bold('vidpub demo') + ': the whole job against an emulator of the service, started in this process.');
  // Its emulator runs on the Context's clock, as its steps do: the whole run is on one clock (a test can move it).
  const emulator = await startEmulator({ port: 0, processingMs: opts.processingMs, publishMs: opts.publishMs, now: () => ctx.clock.now() });
  let client: ApiClient | undefined;
  try {
    const demoKey = emulator.keys.find((k) => k.workspace === 'Demo' && k.access === 'read_write') ?? emulator.keys.find((k) => k.access === 'read_write');
    if (!demoKey) throw new VidpubError('the emulator has no read/write key to run the demo with');
    const env = demoEnv(ctx, emulator, demoKey.key, dir);
    inv.log.info(`Emulator: ${emulator.baseUrl} · key of workspace "${demoKey.workspace}" for this run only (your stored profile is not used).`);

    const sub = (stdout: NodeJS.WritableStream) => stepContext(ctx, env, dir, stdout);
    // With --json the demo's own summary is the only document on stdout; the steps' output goes to stderr.
    const out = globals.json ? ctx.io.stderr : ctx.io.stdout;
    const passOn = [...(globals.quiet ? ['--quiet'] : []), ...(globals.color ? [] : ['--no-color']), ...(globals.input ? [] : ['--no-input']), ...(globals.debug ? ['--debug'] : [])];
    const total = 5;
    let n = 0;
    const step = async (title: string, argv: string[]): Promise<string> => {
      n += 1;
      inv.log.info('');
      inv.log.info(c.bold(`Step ${n}/${total}: ${title}`));
      inv.log.info(c.dim(`$ ${shellLine(['vidpub', ...argv])}`));
      const copy = tee(out);
      const code = await inv.rerun([...passOn, ...argv], sub(copy.stream));
      if (ctx.signal.aborted) throw new InterruptedError('Interrupted: the demo stopped and its emulator with it.');
      if (code !== ExitCode.OK) throw new DemoStepError(`the demo stopped at step ${n}: "vidpub ${argv[0]}" exited with code ${code}`, code as ExitCodeValue);
      return copy.text();
    };

    client = await sub(out).createClient({ ...inv.clientSettings, profile: 'default', baseUrl: undefined, apiKeyFile: undefined, workspace: undefined, debug: false, quiet: true });
    const destinations = (await client.listDestinations({ signal: ctx.signal })).filter((d) => d.status === 'active').slice(0, MAX_DESTINATIONS);
    if (destinations.length === 0) throw new VidpubError('the emulator\'s demo workspace has no active destination');
    const chosen = await planOptions(client, destinations, inv);

    const video = await writeSampleVideo(dir);
    const file = video.slice(dir.length + 1);
    inv.log.info(`Sample video: ${video} (2 s, 64x64, H.264).`);

    await step('who am I? The key, its workspace, plan and allowances', ['me']);
    await step('where can I post? The connected accounts', ['destinations']);
    const mediaId = mediaIdFrom(await step('upload the video and wait until the service has processed it', ['upload', file]));
    if (!mediaId) throw new VidpubError('the demo could not read the video id that "vidpub upload" printed');

    const to = destinations.map((d) => d.id).join(',');
    const postArgv = ['post', '--media', mediaId, '--to', to, '--caption', CAPTION, ...chosen.flags, ...(opts.yes ? ['--yes'] : [])];
    const postTitle = inv.interactive && chosen.asked.length > 0
      ? `post it to ${destinations.length} accounts (you choose ${chosen.asked.join(', ')}) and follow it to the end`
      : `post it to ${destinations.length} accounts and follow it to the end`;
    const postId = postIdFrom(await step(postTitle, postArgv));
    if (!postId) throw new VidpubError('the demo could not read the post id that "vidpub post" printed');
    await step('the final status of each destination', ['status', postId]);

    const post = await client.getPost(postId, { signal: ctx.signal });
    // The options of an account that asks for a choice (a privacy), else of the first.
    const commands = realCommands(to, chosen, chosen.askingId ?? destinations[0]!.id);
    return { base_url: emulator.baseUrl, media_id: mediaId, post_id: postId, post, commands };
  } finally {
    await client?.close().catch(() => undefined);
    await emulator.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The required options without a default (a creator-disclosure account's
 * privacy): asked by `vidpub post` itself on a terminal, chosen here as
 * explicit --option flags otherwise, as a script would.
 */
async function planOptions(
  client: ApiClient,
  destinations: Destination[],
  inv: Invocation,
): Promise<PlannedOptions> {
  const explicit: string[] = [];
  const asked: string[] = [];
  let askingId: string | undefined;
  for (const d of destinations) {
    const { options } = await client.getDestinationOptions(d.id, { signal: inv.ctx.signal });
    for (const o of options ?? []) {
      if (!o.required || (o.default !== null && o.default !== undefined)) continue;
      const value = pickValue(Array.isArray(o.values) ? o.values : o.type === 'boolean' ? [true, false] : []);
      if (value === undefined) continue;
      explicit.push('--option', `${d.id}:${o.key}=${value}`);
      asked.push(`the ${o.key} of ${d.handle ?? d.id}`);
      askingId ??= d.id;
    }
  }
  return { flags: inv.interactive ? [] : explicit, explicit, asked, askingId };
}

/** The closing lines: the same job against the real service. */
export function printDemoResult(r: DemoResult, inv: Invocation): void {
  const c = inv.colors.stdout;
  const done = r.post.destinations.filter((d) => d.status === 'published').length;
  inv.log.info('');
  inv.log.info(`${inv.colors.stderr.green('✓')} Done: post ${r.post_id} is ${r.post.status}, ${done} of ${r.post.destinations.length} destinations published. The emulator has stopped.`);
  inv.print('');
  inv.print(c.bold('The same job against the real service') + ' (with your own destinations, from "vidpub destinations"):');
  const [login, me, dests, ...rest] = r.commands;
  const ci = rest.pop()!;
  const notes: [string, string][] = [
    [login!, 'once: paste the API key from your workspace\'s API settings'],
    [me!, ''],
    [dests!, ''],
  ];
  for (const line of [...notes.map(([cmd, note]) => (note ? `${cmd}    # ${note}` : cmd)), ...rest]) inv.print(`  ${line}`);
  inv.print('');
  inv.print(c.bold('Or in one step from a CI job or a cron line') + ' (nothing asked; exit code 0 once every destination is published):');
  inv.print(`  ${ci}`);
}

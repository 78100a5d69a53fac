/**
 * The command registry: every command's name, summary, positional arguments
 * and flags, as data. Help, the `--version` / `--help` fast path and the shell
 * completion scripts read it without loading any command module; main.ts
 * declares the flags to commander from it. A command's code (validation, the
 * work, the printers) is its module, ./NAME.ts, loaded by ./load.ts only when
 * the command runs.
 *
 * Nothing here imports code that runs: this file is bundled into the fast
 * path (dist/fast.cjs), which the build keeps small and dependency-free.
 */
import { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_PROCESSING_MS, DEFAULT_PUBLISH_MS } from '../../emulator/defaults.js';
import { DEFAULT_TIMEOUT } from '../../session/wait-flags.js';
import { argsTerm, type ArgSpec, type ArgsOf, type FlagSpec, type FlagsOf } from '../line/flags.js';
import { BATCH_SUBCOMMANDS, MANIFEST_FORMAT } from './batch-subcommands.js';
import { ALLOW_DUPLICATE_FLAG, COMMAND_TIMEOUT, CSV, EVENTS, REHEARSE, REUPLOAD_FLAG, TZ, WEB, YES, mediaWaitFlags } from './shared-flags.js';

export { ALLOW_DUPLICATE_FLAG, COMMAND_TIMEOUT, DEFAULT_REQUEST_COMMAND_TIMEOUT, EVENTS, REUPLOAD_FLAG } from './shared-flags.js';

export interface CommandEntry {
  name: string;
  /** One line for `vidpub --help` (and the default description of `vidpub NAME --help`). */
  summary: string;
  /** Other names the command answers to (`vidpub posts` is `vidpub history`). */
  aliases?: readonly string[];
  /** The section of `vidpub --help` it is listed in. */
  group: 'account' | 'media' | 'posts' | 'tools';
  args?: readonly ArgSpec[];
  /** The command's own flags, in help order (the global flags are in ../flags.ts). */
  flags?: readonly FlagSpec[];
}

/** Default --processing-ms and --publish-ms of `vidpub demo`. */
export const DEFAULT_DEMO_STEP_MS = 1500;

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

const ENTRIES = [
  {
    name: 'login',
    summary: 'Check an API key and store it in a profile',
    group: 'account',
    flags: [
      { name: 'with-key', description: 'read the key from stdin (trimmed) instead of prompting' },
      { name: 'insecure-storage', description: 'keep the key in the config file (mode 0600), not in the system keychain' },
      COMMAND_TIMEOUT,
    ],
  },
  { name: 'logout', summary: "Forget a profile's stored API key", group: 'account' },
  { name: 'profiles', summary: 'List the stored profiles (base URL, workspace, masked key, last login)', group: 'account' },
  {
    name: 'config',
    summary: "Get, set or list the profile's caption defaults",
    group: 'account',
    args: [
      { name: 'op', kind: 'choice', choices: ['get', 'set', 'unset', 'list'], required: true },
      { name: 'key', kind: 'text', required: false },
      { name: 'value', kind: 'text', required: false },
    ],
  },
  { name: 'me', summary: 'Show the key, workspace, plan, usage and limits', group: 'account', flags: [COMMAND_TIMEOUT] },
  {
    name: 'destinations',
    summary: 'List the connected accounts you can post to',
    group: 'account',
    flags: [
      { name: 'platform', value: 'name', description: 'only accounts on this platform (e.g. tiktok, youtube)' },
      { name: 'all', description: 'include disconnected and expired accounts' },
      COMMAND_TIMEOUT,
    ],
  },
  {
    name: 'options',
    summary: "Show a destination's posting options",
    group: 'account',
    args: [{ name: 'destination', kind: 'destination', required: true }],
    flags: [COMMAND_TIMEOUT],
  },
  {
    name: 'upload',
    summary: 'Upload a local video and wait until it is ready',
    group: 'media',
    args: [{ name: 'file', kind: 'file', required: true }],
    flags: [...mediaWaitFlags('the file is sent'), REUPLOAD_FLAG, EVENTS],
  },
  {
    name: 'import',
    summary: 'Import a video from a direct https link',
    group: 'media',
    args: [{ name: 'url', kind: 'url', required: true }],
    flags: [
      { name: 'filename', value: 'name', description: 'name the video gets at the service (default: the file name in the link)' },
      ...mediaWaitFlags('the service has accepted the link'),
      EVENTS,
    ],
  },
  {
    name: 'post',
    summary: 'Upload or import a video and post it to destinations',
    group: 'posts',
    args: [{ name: 'file-or-url', kind: 'file', required: false }],
    flags: [
      { name: 'media', value: 'id', description: 'post a video already at the service instead of a file or link' },
      {
        name: 'to',
        value: 'dest',
        kind: 'destination',
        repeatable: true,
        commaList: true,
        description: 'destination(s) to post to, by id, @handle or platform; comma-separated or repeated',
      },
      { name: 'caption', value: 'text', description: 'the caption' },
      { name: 'caption-file', value: 'path', kind: 'file', description: 'read the caption from a file ("-" for stdin)' },
      { name: 'strict', description: 'refuse (exit 2) a caption longer than a destination takes, which would be cut; without it, a warning' },
      { name: 'caption-for', value: 'dest=text', repeatable: true, description: "a destination's own caption (DEST as --to reads it); one post per distinct caption, one upload; repeatable" },
      { name: 'caption-file-for', value: 'dest=path', repeatable: true, description: "a destination's own caption, read from a file; repeatable" },
      { name: 'no-caption-defaults', description: "leave out the profile's caption prefix and suffix of each platform (vidpub config)" },
      {
        name: 'option',
        value: 'key=value',
        kind: 'option',
        repeatable: true,
        description: 'a destination option: KEY=VALUE (every destination that has KEY) or DEST:KEY=VALUE; repeatable',
      },
      { name: 'at', value: 'when', description: 'when to publish: now, "in 2h", 9:00, "tomorrow 9:00", "mon 09:00", a local "YYYY-MM-DD 9:00", or ISO 8601 with an offset' },
      TZ,
      { name: 'draft', description: 'save a draft instead of publishing (prints its review link and issues)' },
      { name: 'no-wait', description: 'return once the post is created, without waiting for each destination' },
      { name: 'timeout', value: 'dur', kind: 'duration', description: 'longest wait for the video and the post (90s, 5m, 1h)', default: DEFAULT_TIMEOUT },
      { name: 'idempotency-key', value: 'key', description: 'rerunning with the same key creates no second video or post (this machine: always; any machine: 24 h)' },
      { name: 'force-new', description: 'post anew: not the post made under --idempotency-key, nor the run of this command that was cut off' },
      REUPLOAD_FLAG,
      ALLOW_DUPLICATE_FLAG,
      YES,
      WEB,
      REHEARSE,
      EVENTS,
    ],
  },
  {
    name: 'publish',
    summary: 'Publish a draft now or later, or move a scheduled post',
    group: 'posts',
    args: [{ name: 'post-id', kind: 'post', required: true }],
    flags: [
      { name: 'at', value: 'when', description: 'when to publish (default: now); for a scheduled post, its new time' },
      TZ,
      {
        name: 'option',
        value: 'key=value',
        kind: 'option',
        repeatable: true,
        description: 'fix a draft\'s options: KEY=VALUE or DEST:KEY=VALUE; the draft goes out as a new post with them (the service cannot change a post); repeatable',
      },
      { name: 'no-wait', description: 'return once it is publishing, without waiting for each destination' },
      { name: 'timeout', value: 'dur', kind: 'duration', description: 'longest wait for the post (90s, 5m, 1h)', default: DEFAULT_TIMEOUT },
      YES,
      WEB,
      REHEARSE,
      EVENTS,
    ],
  },
  {
    name: 'batch',
    summary: 'Post many videos from one manifest (YAML, CSV, JSON, JSON Lines)',
    group: 'posts',
    args: [{ name: 'manifest', kind: 'file', required: true }],
    flags: [
      { name: 'dry-run', description: 'check everything and show the plan; send nothing' },
      { name: 'concurrency', value: 'n', kind: 'number', description: 'uploads and imports at a time', default: '3' },
      MANIFEST_FORMAT,
      { name: 'tz', value: 'zone', description: "time zone for items' local times without tz: an IANA name or a POSIX TZ string (default: TZ or this machine's zone)" },
      { name: 'no-wait', description: 'do not follow posts sent now to their end' },
      { name: 'timeout', value: 'dur', kind: 'duration', description: 'longest the whole batch waits for videos and posts (90s, 5m, 1h)', default: DEFAULT_TIMEOUT },
      YES,
      { name: 'force-new', description: 'post the items whose video file changed since the run that posted them (as force_new: true on each)' },
      ALLOW_DUPLICATE_FLAG,
      REHEARSE,
      EVENTS,
      // A backlog on a rhythm (src/batch/slot-step.ts).
      { name: 'slots', value: 'rule', description: 'timeless items take free slots: "mon-fri 9:00"' },
      { name: 'every', value: 'dur', description: 'or a time every DUR' },
      { name: 'from', value: 'when', description: 'the first slot time' },
      { name: 'per-slot', value: 'n', kind: 'number', description: 'posts per destination a slot' },
      // Past one machine (src/batch/shard.ts, shard-run.ts).
      { name: 'shard', value: 'i/n', description: 'post only shard I of N (from 1), the same split on every machine (or VIDPUB_SHARD=I/N)' },
      { name: 'shard-count', value: 'n', kind: 'number', description: 'N shards, this one from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job, from 0)' },
      { name: 'report', value: 'file', kind: 'file', description: "write this run's report (JSON) as items end, and when it is stopped" },
      { name: 'skip-done', value: 'file', kind: 'file', repeatable: true, description: 'skip the items this earlier report (of the same manifest) has as posted' },
    ],
  },
  // Subcommands are entries named by their path, as cobra's: `batch report` is `report` under `batch` (./subcommands.ts).
  ...BATCH_SUBCOMMANDS,
  {
    name: 'status',
    summary: "Show a post and each destination's status, or a video's",
    group: 'posts',
    args: [{ name: 'id', kind: 'post-or-video', required: false }],
    flags: [
      { name: 'wait', description: 'poll until every destination is published, failed or cancelled (a video: ready or failed)' },
      { name: 'timeout', value: 'dur', kind: 'duration', description: 'longest the whole command may take, the wait of --wait included (90s, 5m, 1h)', default: DEFAULT_TIMEOUT },
      WEB,
      EVENTS,
    ],
  },
  {
    name: 'open',
    summary: "Open a post's review page in a browser",
    group: 'posts',
    args: [{ name: 'post-id', kind: 'post', required: false }],
  },
  {
    name: 'history',
    aliases: ['posts'],
    summary: 'List the posts made from this machine, newest first',
    group: 'posts',
    flags: [
      { name: 'limit', value: 'n', kind: 'number', description: 'at most this many posts', default: '20' },
      { name: 'status', value: 'state', kind: 'choice', choices: ['draft', 'scheduled', 'publishing', 'completed', 'failed'], description: 'only posts in this state: draft, scheduled, publishing, completed, failed' },
      { name: 'since', value: 'when', description: 'only posts made since: a duration back from now (7d, 12h) or a date (2026-11-01)' },
      { name: 'destination', value: 'name', kind: 'destination', description: 'only posts to this destination (id, @handle or platform)' },
      { name: 'all-profiles', description: 'posts of every profile (default: only --profile / VIDPUB_PROFILE)' },
      { name: 'refresh', description: 'read the current state of the drafts and the posts still in progress from the service, and record it' },
      { name: 'duplicates', description: 'the groups of the same video posted to the same destination (--limit: groups)' },
      CSV,
      COMMAND_TIMEOUT,
    ],
  },
  {
    name: 'schedule',
    summary: 'Show what is scheduled, by day',
    group: 'posts',
    flags: [
      { name: 'since', value: 'when', description: 'due from then' },
      { name: 'until', value: 'when', description: 'due before then' },
      TZ,
      { name: 'refresh', description: 'read again from the service' },
      { name: 'ics', description: 'as iCalendar' },
      CSV,
      COMMAND_TIMEOUT,
    ],
  },
  {
    name: 'retry',
    summary: 'Post again to the destinations of a post that failed',
    group: 'posts',
    args: [{ name: 'post-id', kind: 'post', required: true }],
    flags: [
      {
        name: 'to',
        value: 'dest',
        kind: 'destination',
        repeatable: true,
        commaList: true,
        description: 'retry only these of the failed destinations (id, @handle or platform); comma-separated or repeated',
      },
      { name: 'at', value: 'when', description: 'when to publish the new post (default: now)' },
      TZ,
      { name: 'no-wait', description: 'return once the new post is created, without waiting for each destination' },
      { name: 'timeout', value: 'dur', kind: 'duration', description: 'longest wait for the new post (90s, 5m, 1h)', default: DEFAULT_TIMEOUT },
      YES,
      EVENTS,
    ],
  },
  {
    name: 'watch',
    summary: 'Follow the scheduled posts of the journal; report each change once',
    group: 'posts',
    flags: [
      { name: 'once', description: 'read the posts due, report what changed since the last run, and exit (cron)' },
      { name: 'all-profiles', description: 'posts of every profile (default: only --profile / VIDPUB_PROFILE)' },
      { name: 'timeout', value: 'dur', kind: 'duration', description: 'longest the command may take (90s, 5m, 1h); exit 7 when reached', default: DEFAULT_TIMEOUT },
      { name: 'exec', value: 'cmd', description: 'run CMD (sh) per event, the event on its stdin; one that fails is offered again next run' },
      { name: 'forward-to', value: 'url', description: 'POST each event (JSON) to URL, signed in the Vidpub-Signature header; one not taken is offered again next run' },
      { name: 'print-secret', description: 'print the secret --forward-to signs with (made once per profile), and exit' },
    ],
  },
  { name: 'version', summary: 'Print the versions of vidpub and Node.js, and the platform', group: 'tools' },
  {
    name: 'emulator',
    summary: 'Run the local emulator of the Video Publishing Service',
    group: 'tools',
    // Without a control: run one. With one: drive a running one (src/cli/rehearsal/emulator-controls.ts).
    args: [
      { name: 'control', kind: 'choice', choices: ['clock', 'fault', 'requests', 'export', 'reset'], required: false },
      { name: 'value', kind: 'text', required: false },
    ],
    flags: [
      { name: 'follow', description: 'with "requests": print the requests as they arrive, until Ctrl-C' },
      { name: 'verbose', description: 'log each request the emulator answers on stderr (method, path, status)' },
      { name: 'host', value: 'host', description: 'address to listen on', default: DEFAULT_HOST },
      { name: 'expose-controls', description: 'let the test controls (/_emulator) answer other machines too, not only this one' },
      { name: 'port', value: 'port', kind: 'number', description: 'port to listen on (0 takes a free one)', default: String(DEFAULT_PORT) },
      {
        name: 'processing-ms',
        value: 'n',
        kind: 'number',
        description: `how long each background step takes (an import's download, a video's processing) (default: ${DEFAULT_PROCESSING_MS})`,
      },
      {
        name: 'publish-ms',
        value: 'n',
        kind: 'number',
        description: `how long each destination of a post takes to publish, one after another (default: ${DEFAULT_PUBLISH_MS})`,
      },
      { name: 'fixture', value: 'file', kind: 'file', description: 'JSON file of plans, workspaces, keys and destinations to start from' },
      { name: 'tls', description: 'serve over HTTPS with a CA and certificates made at start (its file is ca_file in --json); turns on --storage-port' },
      { name: 'tls-cert', value: 'file', kind: 'file', description: 'serve over HTTPS with this certificate (PEM; with --tls-key)' },
      { name: 'tls-key', value: 'file', kind: 'file', description: 'the private key (PEM) of --tls-cert' },
      { name: 'storage-port', value: 'port', kind: 'number', description: 'take the upload links on a listener of their own, another origin (0 takes a free one; default with --tls)' },
      { name: 'seed-from', value: 'profile', description: "start from a copy of this profile's workspace, read from its service with GET requests only" },
      { name: 'save-fixture', value: 'file', kind: 'file', description: 'with --seed-from: also write the copy as a fixture file (no key of the service in it)' },
      { name: 'state', value: 'dir', kind: 'file', description: 'keep the world in this directory as it changes, and start from it when it holds one (made if missing)' },
      { name: 'import', value: 'file', kind: 'file', description: 'start from a world written by "vidpub emulator export FILE"' },
      { name: 'yes', short: 'y', description: 'with "reset": do not ask for confirmation' },
    ],
  },
  {
    name: 'demo',
    summary: 'Run the whole job against a built-in emulator',
    group: 'tools',
    flags: [
      { name: 'processing-ms', value: 'n', kind: 'number', description: `how long the emulator takes to process the video (default ${DEFAULT_DEMO_STEP_MS})` },
      {
        name: 'publish-ms',
        value: 'n',
        kind: 'number',
        description: `how long each destination takes to publish, one after another (default ${DEFAULT_DEMO_STEP_MS})`,
      },
      { name: 'yes', short: 'y', description: 'post without asking for confirmation' },
    ],
  },
  {
    name: 'completion',
    summary: 'Print shell completion for bash, zsh or fish',
    group: 'tools',
    args: [{ name: 'shell', kind: 'choice', choices: SHELLS, required: true }],
    flags: [
      { name: 'destinations', hidden: true, description: 'print destination names, one per line (used by the scripts)' },
      { name: 'option-values', hidden: true, description: 'print KEY=VALUE and DEST:KEY=VALUE of the destinations\' options, one per line (used by the scripts)' },
      { name: 'ids', hidden: true, description: 'print the ids of the posts made here, newest first, one per line (used by the scripts)' },
      { name: 'video-ids', hidden: true, description: 'with --ids: each post\'s video id after its id (used by the scripts for status)' },
    ],
  },
  { name: 'mcp', summary: 'Run a local MCP server (stdio) for AI assistants', group: 'tools' },
] as const satisfies readonly CommandEntry[];

/** Every command, in the order `vidpub --help` lists them within a group. */
export const COMMANDS: readonly CommandEntry[] = ENTRIES;

/** The registry's command names: ./load.ts must have a module for each. */
export type CommandName = (typeof ENTRIES)[number]['name'];

type EntryOf<N extends CommandName> = Extract<(typeof ENTRIES)[number], { name: N }>;

/** The flags command N's parse() receives, typed from its entry: `--caption-file` is `captionFile: string | undefined`. */
export type FlagsFor<N extends CommandName> = EntryOf<N> extends { flags: infer Fs extends readonly FlagSpec[] } ? FlagsOf<Fs> : FlagsOf<[]>;

/** The positional values command N's parse() receives, typed from its entry. */
export type ArgsFor<N extends CommandName> = EntryOf<N> extends { args: infer As extends readonly ArgSpec[] } ? ArgsOf<As> : ArgsOf<[]>;

/** The command named `name` (or by an alias), or the subcommand named by its path ("batch report"). */
export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}

/** `name <args>` as usage and the root help write it ("batch report <file...>"); `leaf`: the last word only, as its parent declares it. */
export function commandTerm(c: CommandEntry, leaf = false): string {
  const args = argsTerm(c.args);
  const name = leaf ? c.name.slice(c.name.lastIndexOf(' ') + 1) : c.name;
  return args ? `${name} ${args}` : name;
}

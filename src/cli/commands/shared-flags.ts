/**
 * The flags several commands of the registry (./index.ts) share, each declared once. Like the
 * registry, nothing here imports code that runs: it is bundled into the fast path (dist/fast.cjs).
 */
import { DEFAULT_TIMEOUT } from '../../session/wait-flags.js';
import type { FlagSpec } from '../line/flags.js';

/** --no-wait and --timeout of upload and import. */
export function mediaWaitFlags(what: string) {
  return [
    { name: 'no-wait', description: `return once ${what}, without waiting until the video is ready` },
    {
      name: 'timeout',
      value: 'dur',
      kind: 'duration',
      description: 'longest the whole command may take (90s, 5m, 1h; a bare number is seconds)',
      default: DEFAULT_TIMEOUT,
    },
    { name: 'idempotency-key', value: 'key', description: 'rerunning with the same key within 24 h creates no second video' },
  ] as const satisfies readonly FlagSpec[];
}

/** --reupload of upload and post: send the file although a ready video of the same content is known (media/reuse.ts). */
export const REUPLOAD_FLAG = { name: 'reupload', description: 'upload the file even when a ready video with the same content is known' } as const satisfies FlagSpec;

/** --allow-duplicate of post and batch: post although the same video went to the same destination within the duplicate window. */
export const ALLOW_DUPLICATE_FLAG = { name: 'allow-duplicate', description: 'post even when the same video was posted to the same destination within duplicate_window (default 30d)' } as const satisfies FlagSpec;

/** Default --timeout of the commands that only make requests (login, me, destinations, options, history --refresh). */
export const DEFAULT_REQUEST_COMMAND_TIMEOUT = '2m';

/** --timeout of login, me, destinations, options and history: a budget for all their requests together. */
export const COMMAND_TIMEOUT = {
  name: 'timeout',
  value: 'dur',
  kind: 'duration',
  description: 'longest the whole command may take, retries and rate-limit waits included (90s, 5m)',
  default: DEFAULT_REQUEST_COMMAND_TIMEOUT,
} as const satisfies FlagSpec;

/** --web: the review page in a browser (src/cli/io/browser.ts), as gh's --web. */
export const WEB = { name: 'web', description: 'open the post\'s review page in a browser (prints its URL where none can open)' } as const satisfies FlagSpec;
/** --rehearse of post, publish and batch (src/cli/rehearsal/rehearse.ts). */
export const REHEARSE = {
  name: 'rehearse',
  description: 'run it end to end against a throwaway emulator seeded (GET only) from your workspace; only reads reach the service',
} as const satisfies FlagSpec;

/** --yes of post, publish, batch and retry (vidpub demo says what it skips asking: its own). */
export const YES = { name: 'yes', short: 'y', description: 'do not ask for confirmation' } as const satisfies FlagSpec;

/** --events of every command that does work over time: the one flag main.ts turns on the events of (../output/events-output.ts). */
export const EVENTS = { name: 'events', description: 'print events as JSON lines as they happen; the last line holds the --json document' } as const satisfies FlagSpec;

export const TZ = { name: 'tz', value: 'zone', description: "time zone for a local --at time: an IANA name or a POSIX TZ string (default: TZ or this machine's zone)" } as const satisfies FlagSpec;

/** --csv of history and schedule: the entries for a spreadsheet (util/csv-out.ts). */
export const CSV = { name: 'csv', description: 'as CSV' } as const satisfies FlagSpec;

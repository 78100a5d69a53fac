/**
 * What a flow (upload, import, post, publish, status, an MCP tool) runs with:
 * the client, the clock, the signal, where its words go, and whether it may
 * ask. The CLI builds one with each invocation (Invocation.session, in
 * src/cli/run/command.ts), the MCP server its own; a flow never sees the CLI's
 * Invocation or Context.
 */
import type { ApiClient } from '../api/client.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/log.js';
import type { EventEmitter } from '../events/event.js';
import type { Journal } from '../journal/journal-types.js';
import type { Colors } from '../ui/color.js';
import type { Progress } from '../ui/progress.js';
import type { Prompter } from '../ui/prompter.js';

/** Where live views (a post's destinations, a summary) are drawn: stderr. */
export interface Screen {
  write(text: string): void;
  /** A terminal that takes cursor-control codes (not TERM=dumb): views may repaint in place. */
  tty: boolean;
  columns?: number;
  colors: Colors;
}

export interface Session {
  /** The API client, built once. */
  client(): Promise<ApiClient>;
  clock: Clock;
  /** When the command started (clock time; the CLI: its process's start). Absent: a server's session. */
  startedAt?: number;
  /** Aborted on Ctrl-C (and, for a server, when its caller cancels), and at the command's deadline (see deadline.ts). */
  signal: AbortSignal;
  /** Absolute clock time at which `signal` aborts with DeadlineReached (--timeout); absent: no deadline. */
  deadlineMs?: number;
  /** Notices and warnings (stderr; nothing for a server). */
  log: Logger;
  /** Nothing but errors and data (--quiet, a server): no live views, no progress. */
  quiet: boolean;
  /** A person can answer questions (a TTY, and not --no-input). */
  interactive: boolean;
  prompter(): Promise<Prompter>;
  /** Progress for long work: a bar or spinner on a terminal, sparse lines otherwise, nothing when quiet. */
  progress(): Promise<Progress>;
  screen: Screen;
  /** Where --debug lines of the upload go (secrets redacted); absent without --debug. */
  debugOut?: { write(text: string): unknown };
  /** How long a wait rides out a service that gives no answer at all (--unanswered-timeout); absent: the default, 2 minutes. */
  unansweredMs?: number;
  /** The local journal of what was created and seen (src/journal/); absent with --no-journal / VIDPUB_NO_JOURNAL=1. */
  journal?: Journal;
  /** Where a flow says what happened (src/events/): --events lines, an MCP server's progress; absent: nobody listens. */
  events?: EventEmitter;
}

/**
 * The Idempotency-Key of one step (upload, complete:<id>, import, post…) of a
 * run given a base key: a rerun with the same base replays every step
 * instead of doing it twice. No base, no key (the client makes one per call).
 */
export function stepKey(base: string | undefined, step: string): string | undefined {
  return base === undefined ? undefined : `${base}:${step}`;
}

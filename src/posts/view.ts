/**
 * How a post is shown: its id, status, time and review link, each
 * destination's status with its url, warning or failure, and its issues. A
 * table for a person, stable tab-separated lines for a pipe (the shape of
 * `--json` is the post record itself).
 */
import type { Destination, Issue, Post, PostDestination } from '../contract/wire-types.js';
import type { DataOut } from '../ui/output.js';
import { atHandle } from './destinations.js';
import { stateOf } from '../journal/post-fold.js';
import { sanitize } from '../errors.js';
import type { Colors } from '../ui/color.js';
import { renderFields, renderTable, type Column } from '../ui/table.js';
import { describeMoment, describeRelative } from '../time/describe.js';

/** What post, publish and status return: the post and what is needed to show it. */
export interface PostResult {
  post: Post;
  /** destination_id -> a name for people ("@vidpub.demo (tiktok)"). */
  names: Record<string, string>;
  /** Zone times are shown in. */
  zone: string;
  /** A line said before the record (e.g. "Draft saved."). */
  headline?: string;
  /** The command to run next, said after the record on a terminal ("vidpub publish post_1"). */
  next?: string;
  /** The current time when the result was made: times are shown relative to it ("in 2 h 5 m"). */
  now?: number;
  /** destination_id -> the keys of required options filled from the destination's default (none given, none asked). */
  defaulted?: Record<string, string[]>;
}

/** "@vidpub.demo (tiktok)" for a destination. */
export function destinationLabel(d: Pick<Destination, 'id' | 'handle' | 'platform'>): string {
  const handle = atHandle(d.handle);
  if (!handle) return d.id;
  return d.platform ? `${handle} (${d.platform})` : handle;
}

export function namesOf(destinations: Destination[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of destinations) out[d.id] = destinationLabel(d);
  return out;
}

/**
 * The post's outcome as people read it, the one word history, status and post all show: its
 * status, but `failed` once it is over with a destination failed or cancelled (the service says
 * `completed` for a post that is over, however it ended).
 */
export function postState(post: Post): string {
  return stateOf(String(post.status), Array.isArray(post.destinations) ? post.destinations : []);
}

export function failedDestinations(post: Post): PostDestination[] {
  return (post.destinations ?? []).filter((d) => d.status === 'failed' || d.status === 'cancelled');
}

export function blockingIssues(issues: Issue[] | undefined): Issue[] {
  return (Array.isArray(issues) ? issues : []).filter((i) => i?.severity === 'error');
}

function statusStyle(status: string, c: Colors): (s: string) => string {
  if (status === 'published' || status === 'completed') return c.green;
  if (status === 'failed') return c.red;
  if (status === 'cancelled') return c.yellow;
  if (status === 'publishing' || status === 'scheduled') return c.cyan;
  return (s) => s;
}

/** "The caption was cut to 3000 characters. (caption_truncated)": a warning or a failure, or "" for none. */
function noticeText(n: PostDestination['warning']): string {
  return n ? `${n.message ?? ''}${n.code ? ` (${n.code})` : ''}` : '';
}

/** The url, warning and failure of one destination, in one cell: for people (a pipe gets a field for each). */
export function destinationDetails(d: PostDestination): string {
  const parts: string[] = [];
  if (d.url) parts.push(d.url);
  if (d.failure) parts.push(`failure: ${noticeText(d.failure)}`);
  if (d.warning) parts.push(`warning: ${noticeText(d.warning)}`);
  return parts.join(' · ');
}

/** The destination table's columns: Details in one cell at a terminal; url, warning and failure in fields of their own in a pipe. */
function destinationColumns(r: PostResult, tty: boolean, c: Colors): Column<PostDestination>[] {
  const details: Column<PostDestination>[] = tty
    ? [{ header: 'Details', value: (d) => destinationDetails(d), shrink: true }]
    : [
        { header: 'url', value: (d) => d.url ?? '' },
        { header: 'warning', value: (d) => noticeText(d.warning) },
        { header: 'failure', value: (d) => noticeText(d.failure) },
      ];
  return [
    { header: 'Destination', value: (d) => r.names[d.destination_id] ?? d.destination_id },
    { header: 'Status', value: (d) => String(d.status ?? 'unknown'), style: (s, d) => statusStyle(String(d.status), c)(s) },
    ...details,
    ...(r.post.status === 'draft' ? [{ header: 'Options', value: (d: PostDestination) => optionsText(d.options), shrink: true }] : []),
  ];
}

/** One line per issue: "error  @vidpub.demo (tiktok): choose ... (missing_required_option)". */
export function issueLines(issues: Issue[], names: Record<string, string>, tty: boolean, c?: Colors): string[] {
  return issues.map((i) => {
    const severity = String(i.severity ?? 'issue');
    const where = i.destination_id ? names[i.destination_id] ?? i.destination_id : '';
    const text = sanitize(String(i.message ?? i.code ?? ''));
    if (!tty) return ['issue', severity, i.code ?? '', i.destination_id ?? '', text].join('\t');
    const sev = severity === 'error' ? (c?.red ?? String)(severity.padEnd(7)) : (c?.yellow ?? String)(severity.padEnd(7));
    const prefix = where && !text.includes(where) ? `${sanitize(where)}: ` : '';
    return `  ${sev} ${prefix}${text}${i.code ? ` (${sanitize(i.code)})` : ''}`;
  });
}

function whenText(post: Post, zone: string, now: number | undefined): string | undefined {
  if (!post.publish_at) return undefined;
  const ms = Date.parse(post.publish_at);
  if (Number.isNaN(ms)) return post.publish_at;
  return now === undefined ? describeMoment(ms, zone) : describeRelative(ms, zone, now);
}

/** "privacy=PUBLIC, duet=false" (or "-" when none). */
export function optionsText(options: PostDestination['options'] | undefined): string {
  const entries = Object.entries(options ?? {});
  return entries.length === 0 ? '-' : entries.map(([k, v]) => `${k}=${String(v)}`).join(', ');
}

/** Prints a post on stdout: fields, the destination table, then the issues. */
export function printPost(r: PostResult, out: DataOut): void {
  const { tty, colors: c } = out;
  const { post } = r;
  if (r.headline && tty) out.print(r.headline);
  // A person reads labels; a pipe gets the record's field names.
  const fields: [string, string][] = [
    [tty ? 'Post' : 'id', post.id],
    [tty ? 'Status' : 'status', postState(post)],
  ];
  // A pipe gets one value per field: the record's publish_at as the service gave it.
  const when = tty ? whenText(post, r.zone, r.now) : post.publish_at ?? undefined;
  if (when) fields.push([tty ? (post.status === 'scheduled' ? 'Scheduled for' : 'Publish at') : 'publish_at', when]);
  if (post.review_url) fields.push([tty ? 'Review' : 'review_url', post.review_url]);
  // A draft is what is about to go out: its caption and each destination's options are shown too.
  const draft = post.status === 'draft';
  if (draft) fields.push([tty ? 'Caption' : 'caption', String(post.caption ?? '')]);
  for (const line of renderFields(fields, { tty, dim: c.dim, width: out.columns })) out.print(line);

  const dests = Array.isArray(post.destinations) ? post.destinations : [];
  if (dests.length > 0) {
    if (tty) out.print('');
    const rows = renderTable(dests, destinationColumns(r, tty, c), { tty, bold: c.bold, width: out.columns });
    for (const line of rows) out.print(line);
  }
  const issues = Array.isArray(post.issues) ? post.issues : [];
  if (issues.length > 0) {
    if (tty) {
      out.print('');
      out.print(c.bold('Issues:'));
    }
    for (const line of issueLines(issues, r.names, tty, c)) out.print(line);
  }
  if (r.next && tty) {
    out.print('');
    out.print(r.next);
  }
}

/** What to run after a draft was saved or a post scheduled: the exact commands. */
export function nextCommand(post: Post): string | undefined {
  if (post.status === 'draft') {
    return `Publish it with: vidpub publish ${post.id}  (or at a time: vidpub publish ${post.id} --at "tomorrow 9:00")`;
  }
  if (post.status === 'scheduled') {
    return `Send it now with: vidpub publish ${post.id}  (or move it: vidpub publish ${post.id} --at "tomorrow 9:00")`;
  }
  return undefined;
}

/**
 * The post's --json document: the service's record, each destination whose required options were
 * filled from its default (none given, none asked) naming them in `options_defaulted`.
 */
export function postDocument(r: PostResult): PostDocument {
  const defaulted = r.defaulted;
  if (!defaulted) return withState(r.post);
  const destinations = r.post.destinations.map((d) => (defaulted[d.destination_id] ? { ...d, options_defaulted: defaulted[d.destination_id] } : d));
  return withState({ ...r.post, destinations });
}

/**
 * A post as --json prints it: the service's record with `state` beside `status`. The service's
 * `status` is `completed` for a post that is over, however it ended; `state` is the one word a
 * script can rely on: draft, scheduled, publishing, completed (every destination published) or
 * failed (one failed or was cancelled), the word history and the text output show too.
 */
export type PostDocument = Post & { state: string };

export function withState(post: Post): PostDocument {
  const { id, status, ...rest } = post;
  return { id, status, state: postState(post), ...rest } as PostDocument;
}

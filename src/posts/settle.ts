/**
 * How a post's outcome becomes an exit code, shared by post, publish and
 * status: 0 all published (or scheduled, or a draft saved), 6 a destination
 * failed or was cancelled, 8 issues of severity error, 4 the daily allowance.
 */
import type { Issue } from '../contract/wire-types.js';
import { BlockedError, RateLimitError, WorkFailedError, type VidpubError, sanitize } from '../errors.js';
import { blockingIssues, failedDestinations, issueLines, type PostResult } from './view.js';
import { describeRelative } from '../time/describe.js';

/** Returns the result when every destination was published; throws WorkFailedError (exit 6) otherwise. */
export function settle(r: PostResult): PostResult {
  const failed = failedDestinations(r.post);
  if (failed.length === 0) return r;
  const total = r.post.destinations.length;
  const what = failed
    .map((d) => `${r.names[d.destination_id] ?? d.destination_id} ${d.status}${d.failure?.message ? ` (${d.failure.message})` : ''}`)
    .join('; ');
  throw new WorkFailedError(`Post ${r.post.id}: ${failed.length} of ${total} destination${total === 1 ? '' : 's'} did not publish: ${what}`, {
    data: { ...r, headline: undefined },
    hint: [`Post again to ${failed.length === 1 ? 'that destination' : 'those destinations'} with: vidpub retry ${r.post.id}`, r.post.review_url ? `Review it in the web app: ${r.post.review_url}` : '']
      .filter(Boolean)
      .join('\n'),
  });
}

/** exit 8 for a post that exists and has issues of severity error: the record (with its issues) is printed. */
export function blockedPost(r: PostResult, action: string): BlockedError {
  const n = blockingIssues(r.post.issues).length;
  return new BlockedError(`Post ${r.post.id} was not ${action}: ${n} issue${n === 1 ? '' : 's'} of severity error block${n === 1 ? 's' : ''} it`, {
    data: r,
    hint: `Fix ${n === 1 ? 'it' : 'them'}${r.post.review_url ? ` at ${r.post.review_url}` : ' in the web app'}, then run: vidpub publish ${r.post.id}`,
  });
}

/** The issues a 409 post_has_blocking_issues carries in its body (error.issues), when it does. */
export function issuesOfError(err: VidpubError): Issue[] {
  const body = err.http?.body as { error?: { issues?: unknown } } | undefined;
  const list = body?.error?.issues;
  return Array.isArray(list) ? (list.filter((i) => i && typeof i === 'object') as Issue[]) : [];
}

/** exit 8 for a create refused with 409: no post exists, so the issues go in the hint. */
export function blockedCreate(err: VidpubError, names: Record<string, string>): BlockedError {
  const issues = blockingIssues(issuesOfError(err));
  const n = issues.length;
  const lines = issueLines(issues, names, true);
  return new BlockedError(
    n > 0
      ? `Not posted: ${n} issue${n === 1 ? '' : 's'} of severity error block${n === 1 ? 's' : ''} it; no post was created`
      : `Not posted: the service reports issues that block publishing; no post was created (${sanitize(err.message)})`,
    { hint: [...lines, 'Fix them (or save it with --draft and fix them in the web app), then run the command again.'].join('\n'), http: err.http, cause: err },
  );
}

export function isDailyLimit(err: unknown): err is RateLimitError {
  return err instanceof RateLimitError && (err.code === 'daily_post_limit' || err.http?.code === 'daily_post_limit');
}

/** The reset time of a daily-limit error, in the zone and in UTC. */
export function resetText(err: Pick<RateLimitError, 'resetAt' | 'retryAfterSec'>, zone: string, now: number): string {
  const ms = err.resetAt ? Date.parse(err.resetAt) : err.retryAfterSec !== undefined ? now + err.retryAfterSec * 1000 : NaN;
  return Number.isNaN(ms) ? 'the next midnight UTC' : describeRelative(ms, zone, now);
}

/**
 * exit 4 with what it means for this command: `outcome` says what happened to the post; `then` the
 * hint and the command's data (the video a post run made, printed on stdout).
 */
export function dailyLimitError(err: RateLimitError, outcome: string, then: { hint: string; data?: unknown }, zone: string, now: number): RateLimitError {
  return new RateLimitError(`The daily post allowance is used up; ${outcome}. It resets at ${resetText(err, zone, now)}.`, {
    code: err.code,
    resetAt: err.resetAt,
    retryAfterSec: err.retryAfterSec,
    http: err.http,
    cause: err,
    hint: then.hint,
    ...(then.data !== undefined ? { data: then.data } : {}),
  });
}

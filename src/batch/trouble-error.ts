/**
 * The exit code's error for a batch run: the most pressing of its items'
 * troubles (a write that may have happened first), with the command that
 * follows or finishes what is left.
 */
import { counted } from '../util/plural.js';
import { BlockedError, InterruptedError, OutcomeUnknownError, RateLimitError, TimeoutError, UsageError, WorkFailedError, type VidpubError } from '../errors.js';
import type { BatchRun, Trouble } from './run-types.js';

/** The exit code's error for a run's troubles (undefined: every item ended well). */
export function troubleError(run: BatchRun, data: unknown): VidpubError | undefined {
  const kinds = new Set(run.troubles.values());
  const troubled = (k: Trouble) => run.outcomes.filter((o) => run.troubles.get(o.item) === k);
  // Counted over every item (a long batch keeps only some outcomes: outcome-keeper.ts).
  const count = (k: Trouble) => [...run.troubles.values()].filter((t) => t === k).length;
  const total = run.total;
  // A write that may have happened matters more to a script than why the batch stopped (as for post: exit 9).
  if (kinds.has('unknown')) {
    const first = [...(run.unknowns?.values() ?? [])][0];
    return new OutcomeUnknownError(`The outcome of ${count('unknown')} of ${counted(total, 'item')} is unknown: a write got no answer, so it may or may not have been done.`, {
      request: first?.request ?? 'POST /v1/posts',
      reason: first?.reason ?? 'network',
      data,
      hint: `Run the same batch again to settle ${count('unknown') === 1 ? 'it' : 'them'}: what was done is replayed and reported, not done twice.`,
    });
  }
  if (kinds.has('interrupted')) {
    const cut = troubled('interrupted');
    const posts = cut.filter((o) => o.status === 'publishing' && o.post_id !== null).map((o) => o.post_id!);
    const follow = posts.length > 0 ? `Follow ${posts.length === 1 ? 'it' : 'them'} with: ${posts.map((id) => `vidpub status ${id} --wait`).join('; ')}` : '';
    const rest = count('interrupted') > posts.length ? 'Run the same command again: finished steps are replayed by the service, not repeated.' : '';
    return new InterruptedError(`Interrupted: ${count('interrupted')} of ${counted(total, 'item')} unfinished.`, {
      data,
      hint: [follow, rest].filter(Boolean).join('\n'),
    });
  }
  if (kinds.has('rate')) return new RateLimitError(`${count('rate')} of ${counted(total, 'item')} were refused by the daily post allowance.`, { data, code: 'daily_post_limit' });
  if (kinds.has('timeout')) {
    const cut = troubled('timeout');
    const posts = cut.map((o) => o.post_id).filter((id): id is string => id !== null);
    const follow = posts.length > 0 ? `Follow ${posts.length === 1 ? 'it' : 'them'} with: ${posts.map((id) => `vidpub status ${id} --wait`).join('; ')}` : '';
    const rest = count('timeout') > posts.length ? 'Run the batch again to post the rest: what was done is replayed, not repeated.' : '';
    const goOn = [...run.troubles].every(([n, t]) => t !== 'timeout' || (run.goingOn?.has(n) ?? true));
    return new TimeoutError(`Stopped waiting (--timeout) for ${count('timeout')} of ${counted(total, 'item')}${goOn ? '; they go on at the service' : ''}.`, {
      data,
      hint: [follow, rest].filter(Boolean).join('\n'),
    });
  }
  if (kinds.has('blocked')) return new BlockedError(`${count('blocked')} of ${counted(total, 'item')} are blocked by issues of severity error.`, { data });
  if (kinds.has('failed')) {
    // A post whose destinations failed is replayed as it is by a rerun: `vidpub retry` posts to them again.
    const failed = troubled('failed');
    const retry = failed.filter((o) => o.post_id !== null && o.destinations.some((d) => d.status === 'failed' || d.status === 'cancelled')).map((o) => o.post_id!);
    const hint = [
      retry.length > 0 ? `Post again to the destinations that failed with: ${retry.map((id) => `vidpub retry ${id}`).join('; ')}` : '',
      count('failed') > retry.length ? 'Fix what the table says and run the batch again: items that went out are not posted twice.' : '',
    ];
    return new WorkFailedError(`${count('failed')} of ${counted(total, 'item')} failed.`, { data, hint: hint.filter(Boolean).join('\n') });
  }
  if (kinds.has('duplicate')) {
    return new UsageError(`${count('duplicate')} of ${counted(total, 'item')} ${count('duplicate') === 1 ? 'was' : 'were'} refused: the same video to the same destination as an earlier post or item (the others went on).`, {
      data,
      hint: 'To post them anyway: allow_duplicate: true on each item, or run the batch again with --allow-duplicate (what was posted is replayed, not posted twice).',
    });
  }
  return undefined;
}

/**
 * A post refused on destinations or options read from the key's cache: the
 * service says they changed, so they are read again, every check is redone
 * on what it says now, and the post is sent once more under a step of its own.
 */
import type { Media } from '../../api/wire-types.js';
import { VidpubError } from '../../errors.js';
import { destinationsBody } from './cut-off.js';
import { askMissing, checkDuration, chooseDestinations, planFor } from './plan.js';
import { confirmChanged } from './confirm.js';
import { answered, cancelledText, rerunLine, sourceText, type PostOpts } from './types.js';
import type { Planned, PostRun, Ready } from './run.js';

/**
 * A refusal of POST /posts that says the destinations or their options are
 * not what we read: a destination gone (404 naming it), an option key or
 * type it no longer has (400), or issues about a destination or an option
 * (409: inactive, a value no longer allowed, a new required option).
 */
export function suggestsChangedDestinations(err: unknown): boolean {
  if (!(err instanceof VidpubError) || !err.http) return false;
  const { status, code, param } = err.http;
  const aboutDestinations = typeof param === 'string' && param.startsWith('destinations');
  if (status === 404) return aboutDestinations;
  if (status === 400 || status === 422) return aboutDestinations || code === 'unknown_option' || code === 'invalid_option_value';
  if (status !== 409) return false;
  if (code === 'destination_inactive') return true;
  if (code !== 'post_has_blocking_issues') return false;
  const issues = (err.http.body as { error?: { issues?: unknown } } | undefined)?.error?.issues;
  return (
    Array.isArray(issues) &&
    issues.some((i: { severity?: unknown; destination_id?: unknown; option?: unknown; code?: unknown }) =>
      i?.severity === 'error' && (i.destination_id != null || i.option != null || i.code === 'destination_inactive'),
    )
  );
}

/**
 * The step the post goes under once the destinations are read again after a
 * refusal of the post under `step`: "post:fresh" after "post", then
 * "post:fresh:2", "post:fresh:3"... (a run continued after one read again
 * may have to read them again; its refusal is stored under the step it used).
 */
export function readAgainStep(step: string | undefined): string {
  if (step === undefined || step === 'post') return 'post:fresh';
  const n = /^post:fresh(?::(\d+))?$/.exec(step);
  return n ? `post:fresh:${Number(n[1] ?? 1) + 1}` : `${step}:fresh`;
}

/**
 * Reads the destinations and options again from the service and redoes
 * every check on what it says now (inactive, options, what is missing, the
 * duration); a person who confirmed is asked again if the post would differ
 * from what they saw.
 */
export async function readAgain(run: PostRun, ready: Ready, media: Media): Promise<Pick<Planned, 'plans' | 'names'>> {
  const { opts, session } = run;
  // From here on, the video is at the service: a rerun posts it with --media.
  const asMedia: PostOpts = { ...opts, source: { kind: 'media', id: media.id } };
  const rerun = () => rerunLine(asMedia, ready, ready.caption);
  const choice = await chooseDestinations({ ...opts, to: ready.chosenTo }, session, true);
  const next = await planFor(choice.chosen, [...opts.options, ...answered(ready.plans)]);
  await askMissing(session, next, () => ({ message: cancelledText(asMedia), hint: `Run it again: ${rerun()}` }));
  checkDuration(ready.durationSec, next, sourceText(opts.source));
  if (destinationsBody(next) !== destinationsBody(ready.plans)) await confirmChanged(run, ready, next, asMedia, rerun());
  return { plans: next, names: choice.names };
}

/**
 * `vidpub publish DRAFT --option DEST:KEY=VALUE`: a draft the service blocks (a required option
 * missing, a value it refuses) fixed from the command line, as the web app fixes it. The contract
 * has no way to change a post, so the draft's video, caption and destinations go out as a new
 * post with the options the draft had and those given (the flags win), under an Idempotency-Key
 * made from the draft and the options: the same command again makes nothing twice (the service
 * replays it for 24 hours, this machine's journal after that). The draft stays a draft; the
 * journal links the new post to it.
 */
import { createHash } from 'node:crypto';
import type { CreatePostRequest, DestinationOptions, OptionValue, Post } from '../contract/wire-types.js';
import { BlockedError, UsageError, sanitize } from '../errors.js';
import type { Session } from '../session/session.js';
import { postRefusal, refuse } from '../core/post-rules.js';
import { matchChosen } from './destinations.js';
import { missingOptionsError, planOptions, type ChosenDestination, type DestinationPlan, type OptionAssignment } from './options.js';
import type { PublishOpts } from './publish-flow.js';
import { reportEarlier } from './rerun.js';
import { blockedCreate, dailyLimitError, isDailyLimit } from './settle.js';
import { whenLine } from './summary.js';
import { destinationLabel, namesOf, type PostResult } from './view.js';
import { confirmNewPost, followNewPost } from './new-post.js';

export interface FixDraftOpts extends PublishOpts {
  /** The --option flags, split. */
  options: OptionAssignment[];
}

/** The Idempotency-Key of a fixed draft: the draft and every destination's options (the time is not in it, as for a retry). */
export function fixKey(postId: string, destinations: CreatePostRequest['destinations']): string {
  const shape = [...destinations]
    .sort((a, b) => a.destination_id.localeCompare(b.destination_id))
    .map((d) => [d.destination_id, Object.entries(d.options ?? {}).sort(([a], [b]) => a.localeCompare(b))]);
  return `vidpub-fix:${postId}:${createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 32)}`;
}

export async function runFixDraft(opts: FixDraftOpts, outer: Session): Promise<PostResult> {
  const { withinTimeout } = await import('./publish-flow.js');
  return withinTimeout(outer, opts.timeoutMs, `before the new post from draft ${opts.postId} was sent; nothing was posted`, (session) => fixWithin(opts, session));
}

async function fixWithin(opts: FixDraftOpts, session: Session): Promise<PostResult> {
  const client = await session.client();
  const { signal, clock } = session;
  const deadlineMs = session.deadlineMs ?? clock.now() + opts.timeoutMs;
  const draft = await client.getPost(opts.postId, { signal });
  if (draft.status !== 'draft') {
    throw new UsageError(`--option fixes a draft's options; post ${draft.id} is ${sanitize(String(draft.status))}, so nothing was sent`, {
      hint: `Publish it as it is with: vidpub publish ${draft.id}`,
    });
  }
  const all = await client.listDestinations({ signal, cached: true }).catch(() => []);
  const names = namesOf(all);
  const chosen: ChosenDestination[] = await Promise.all(
    (draft.destinations ?? []).map(async (d) => {
      const destination = all.find((x) => x.id === d.destination_id) ?? { id: d.destination_id, platform: '', handle: '', display_name: '', status: 'active' };
      const options: DestinationOptions = await client.getDestinationOptions(d.destination_id, { signal, cached: true });
      return { name: destinationLabel(destination), destination, options };
    }),
  );
  const body = newPostBody(draft, chosen, opts);
  refuse(postRefusal(body, clock.now()));
  const key = fixKey(draft.id, body.destinations);
  const earlier = await session.journal?.findByKey(key);
  if (earlier) {
    const message = `Draft ${draft.id} was already posted with these options as post ${earlier.post_id} on ${earlier.at} (this machine's journal): nothing new is created; reporting that post as it is now.`;
    return reportEarlier(session, client, earlier, { key, wait: opts.wait, timeoutMs: opts.timeoutMs, deadlineMs, zone: opts.zone, message });
  }
  await confirmFix(opts, session, draft, body, names);
  let post: Post;
  try {
    post = await client.createPost(body, { idempotencyKey: key, signal });
  } catch (err) {
    if (isDailyLimit(err)) throw dailyLimitError(err, 'no post was created; the draft stays a draft', { hint: 'Run the same command again after the reset, or add --wait-for-quota to wait for it.' }, opts.zone, clock.now());
    if (err instanceof BlockedError) throw blockedCreate(err, names);
    throw err;
  }
  return followNewPost(session, post, {
    key,
    from: draft.id,
    names,
    zone: opts.zone,
    wait: opts.wait,
    timeoutMs: opts.timeoutMs,
    deadlineMs,
    replayed: (id) => `Post ${id} was already made from draft ${draft.id} with these options; reporting it.`,
    made: (id) => `Post ${id} is draft ${draft.id} with these options; the draft stays a draft (the service has no way to change a post).`,
  });
}

/**
 * The new post's body: the draft's video, caption and destinations, each with the options the
 * draft had, the options the destination defaults, and the --option flags over them; a required
 * option none of them gives is exit 2, naming the flag that gives it.
 */
function newPostBody(draft: Post, chosen: ChosenDestination[], opts: FixDraftOpts): CreatePostRequest {
  const plans = planOptions(chosen, opts.options, matchChosen);
  const unfilled: DestinationPlan[] = [];
  const destinations = plans.map((plan, i) => {
    const had: Record<string, OptionValue> = (draft.destinations[i]?.options ?? {}) as Record<string, OptionValue>;
    const defaults = Object.fromEntries(plan.values.filter((v) => v.source === 'default').map((v) => [v.key, v.value]));
    const flags = Object.fromEntries(plan.values.filter((v) => v.source === 'flag').map((v) => [v.key, v.value]));
    const options = { ...defaults, ...had, ...flags };
    const missing = plan.missing.filter((o) => !(o.key in options));
    if (missing.length > 0) unfilled.push({ ...plan, missing });
    return { destination_id: plan.destination.id, options };
  });
  if (unfilled.length > 0) throw missingOptionsError(unfilled);
  return { media_id: draft.media_id, caption: draft.caption ?? '', destinations, publish_at: opts.when.publishAt };
}

/** What is posted, with each destination's options: asked on a terminal (without --yes), logged elsewhere. */
async function confirmFix(opts: FixDraftOpts, session: Session, draft: Post, body: CreatePostRequest, names: Record<string, string>): Promise<void> {
  const lines = [`A new post from draft ${draft.id} (video ${sanitize(String(draft.media_id))}, the same caption), with these options:`];
  for (const d of body.destinations) {
    const options = Object.entries(d.options ?? {}).map(([k, v]) => `${k}=${String(v)}`).join(', ');
    lines.push(`  ${sanitize(names[d.destination_id] ?? d.destination_id)}  ${sanitize(options || 'no options')}`);
  }
  lines.push(`When: ${whenLine(opts.when, session.clock.now())}`);
  await confirmNewPost(session, lines, { yes: opts.yes === true, now: opts.when.now, cancelled: 'Cancelled: nothing was posted; the draft stays a draft.' });
}

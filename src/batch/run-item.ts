/**
 * One item of a batch run: its place taken in turn, its video uploaded,
 * imported or named, its post created as soon as the video is ready (or the
 * post an earlier run made, reported as it is now), kept in the journal,
 * followed until every destination ends (unless --no-wait), and its line
 * told as soon as it has ended. Each item's Idempotency-Keys derive from its
 * content (keys.ts): a rerun replays what was done.
 */
import { responseMeta } from '../api/client.js';
import type { CreatePostRequest, Media, Post } from '../contract/wire-types.js';
import { NotFoundError, UsageError, WorkFailedError, sanitize } from '../errors.js';
import { optionsBody } from '../posts/options.js';
import { fileIdentity } from '../media/check.js';
import { blockingIssues } from '../posts/view.js';
import { postSettled } from '../contract/wire-types.js';
import { stepKey } from '../session/session.js';
import { settleTrouble } from './item-trouble.js';
import { follow, readWithin, waitReady } from './item-waits.js';
import { itemProgress } from './live-view.js';
import type { BatchPlan, PlannedItem } from './plan.js';
import type { ItemRun, RunContext } from './run-context.js';
import type { DestinationOutcome, ItemOutcome, ItemStatus } from './run-types.js';
import { setIdOf } from '../posts/post/caption-set.js';
import { linkSignals } from '../util/any-signal.js';
import { emitCreated, emitPost } from '../events/post-events.js';

/** An item's post, as created (or found) by this run. */
interface Sent {
  post: Post;
  replayed: boolean;
  /** When it was created (or this run found it): what following it counts from. */
  created: number;
}

function destinationsOf(post: Post, names: Record<string, string>): DestinationOutcome[] {
  return (post.destinations ?? []).map((d) => ({
    destination_id: d.destination_id,
    name: names[d.destination_id] ?? d.destination_id,
    status: String(d.status ?? post.status ?? 'unknown'),
    ...(d.url ? { url: d.url } : {}),
    ...(d.failure?.message ? { failure: d.failure.message } : {}),
  }));
}

/** What an item says before anything is done: skipped, not posted anywhere. */
function startingOutcome(plan: BatchPlan, it: PlannedItem): ItemOutcome {
  return {
    item: it.n,
    ...(it.line !== undefined ? { line: it.line } : {}),
    status: 'skipped',
    media_id: it.video.kind === 'media' ? it.video.id : null,
    post_id: null,
    review_url: null,
    publish_at: it.when === null ? null : it.when.publishAt === 'now' ? 'now' : it.when.local,
    destinations: it.plans.map((p) => ({ destination_id: p.destination.id, name: plan.names[p.destination.id] ?? p.destination.id, status: 'not posted' })),
  };
}

/**
 * This machine's journal holds the item's post (an earlier run): report it as it is now.
 * The service replays the item's keys for 24 hours only; after that a send would post it again.
 */
async function earlierPost(rc: RunContext, run: ItemRun, created: number, id = run.it.earlierPostId): Promise<Sent | undefined> {
  const { it, out } = run;
  if (!id) return undefined;
  rc.view.state(it.n, 'posted earlier');
  const post = await readWithin(rc, run, () => 'posted earlier', (look) => rc.client.getPost(id, { signal: look })).catch((err: unknown) => {
    if (err instanceof NotFoundError) return undefined; // not at this service (any more): post it
    throw err;
  });
  if (!post) return undefined;
  run.releaseSlot?.();
  out.replayed = true;
  out.post_id = post.id;
  out.media_id = post.media_id ?? out.media_id;
  return { post, replayed: true, created };
}

/** Sends the item's video (an upload, an import, or the video it names); `since` is when its processing began. */
async function sendVideo(rc: RunContext, run: ItemRun): Promise<{ media: Media; since: number }> {
  const { it } = run;
  const v = it.video;
  const since = rc.clock.now();
  const base = { idempotencyBase: it.key, wait: false, deadlineMs: rc.deadlineMs };
  // The flows listen on the item's own signal (run.signal), not on the run's, which as many uploads
  // as --concurrency would otherwise each listen on at once.
  const session = { ...rc.session, signal: run.signal };
  if (v.kind === 'file') {
    rc.view.state(it.n, 'uploading');
    const { uploadFile } = await import('../media/upload-flow.js');
    const media = await uploadFile(session, v.file, { ...base, progress: itemProgress(rc.view, it.n) });
    return { media, since: rc.clock.now() };
  }
  if (v.kind === 'url') {
    run.releaseImport = await rc.imports.take();
    run.step = 'import';
    rc.view.state(it.n, 'importing');
    const { importLink } = await import('../media/import-flow.js');
    return { media: await importLink(session, v.url, base), since };
  }
  return { media: v.media, since };
}

/** The item's video, sent and ready: its place is given up once it is sent, its import's once it is ready. */
async function readyVideo(rc: RunContext, run: ItemRun): Promise<Media> {
  const { it, out } = run;
  const { media, since } = await sendVideo(rc, run);
  out.media_id = media.id;
  await rc.record({ type: 'media', item: it.n, key: it.key, media_id: media.id, status: String(media.status) });
  run.releaseSlot?.();
  rc.view.state(it.n, String(media.status));
  const ready = media.status === 'ready' ? media : await waitReady(rc, run, media, since);
  run.releaseImport?.();
  if (ready.status === 'failed') {
    throw new WorkFailedError(`video ${ready.id} failed: ${sanitize(ready.error?.message ?? 'the service gave no reason')}`);
  }
  return ready;
}

/** Creates the item's post of its ready video; a replayed create is read again for the post as it is now. */
async function createItemPost(rc: RunContext, run: ItemRun, media: Media, what = { caption: run.it.caption, plans: run.it.plans, step: 'post' }): Promise<Sent> {
  const { it, out } = run;
  if (it.when && !it.when.now && it.when.ms <= rc.clock.now()) {
    throw new UsageError(`its time ${it.when.local} (${it.when.utc}) passed while the video was being uploaded; nothing was posted (video ${media.id})`);
  }
  const body: CreatePostRequest = {
    media_id: media.id,
    caption: what.caption,
    destinations: what.plans.map((p) => ({ destination_id: p.destination.id, options: optionsBody(p) })),
  };
  if (it.when) body.publish_at = it.when.publishAt;
  rc.view.state(it.n, it.draft ? 'saving draft' : 'posting');
  run.step = 'post';
  const post = await rc.client.createPost(body, { idempotencyKey: stepKey(it.key, what.step), signal: run.signal });
  const created = rc.clock.now();
  const replayed = responseMeta(post)?.replayed === true;
  out.post_id = post.id;
  if (!replayed) return { post, replayed, created };
  out.replayed = true;
  const now = await readWithin(rc, run, () => 'posted', (look) => rc.client.getPost(post.id, { signal: look }));
  return { post: now, replayed, created };
}

/** Tells the recorder and the journal of the item's post: history shows it and a rerun finds it under the item's key. */
async function keepPost(rc: RunContext, run: ItemRun, { post, replayed }: Sent): Promise<void> {
  const { it, out } = run;
  const v = it.video;
  out.review_url = post.review_url ?? null;
  out.destinations = destinationsOf(post, rc.plan.names);
  await rc.record({ type: 'post', item: it.n, key: it.key, post_id: post.id, replayed });
  const source = v.kind === 'file' ? { file: v.file.path, size: v.file.size, fileId: fileIdentity(v.file) } : v.kind === 'url' ? { link: v.url } : {};
  // The posts of an item with captions of its destinations' own are one set (history, status, retry SET_ID).
  const set = it.groups ? { set: setIdOf(it.key) } : {};
  await rc.session.journal?.post({ post, names: rc.plan.names, idem: it.key, outcome: replayed ? 'replayed' : 'created', ...source, ...set });
  emitCreated(rc.session.events, post, rc.plan.names);
}

/** Follows the post until every destination has ended: published, or failed with the destinations that did not publish. */
async function followToEnd(rc: RunContext, run: ItemRun, sent: Sent): Promise<void> {
  const { it, out } = run;
  if (!postSettled(sent.post)) rc.view.state(it.n, 'publishing');
  const post = await follow(rc, run, sent.post, sent.created);
  out.destinations = destinationsOf(post, rc.plan.names);
  const bad = out.destinations.filter((d) => d.status === 'failed' || d.status === 'cancelled');
  if (bad.length > 0) {
    out.status = 'failed';
    out.error = `${bad.length} of ${out.destinations.length} destinations did not publish: ${bad.map((d) => `${d.name} ${d.status}${d.failure ? ` (${d.failure})` : ''}`).join('; ')}`;
    rc.troubles.set(it.n, 'failed');
  } else out.status = 'published';
  await rc.session.journal?.status(post, out.status);
  emitPost(rc.session.events, post, rc.plan.names);
}

/** How the item ends once its post exists: a draft, blocked, scheduled, followed to its end, or still publishing (--no-wait). */
async function settleStatus(rc: RunContext, run: ItemRun, sent: Sent): Promise<void> {
  const { it, out } = run;
  const { post } = sent;
  const blocking = blockingIssues(post.issues);
  if (it.draft) out.status = 'draft';
  else if (blocking.length > 0) {
    out.status = 'blocked';
    out.error = `${blocking.length} issue(s) of severity error block it; fix them at ${post.review_url}`;
    rc.troubles.set(it.n, 'blocked');
  } else if (post.status === 'scheduled') out.status = 'scheduled';
  else if (postSettled(post) || rc.opts.wait) await followToEnd(rc, run, sent);
  else out.status = 'publishing';
}

/** Whether two lists hold the same ids, in any order. */
const sameIds = (a: string[], b: string[]): boolean => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/** The worse of two item statuses, for an item of several posts. */
const RANK: ItemStatus[] = ['published', 'draft', 'scheduled', 'publishing', 'unknown', 'skipped', 'blocked', 'failed'];
const worse = (a: ItemStatus | undefined, b: ItemStatus): ItemStatus => (a !== undefined && RANK.indexOf(a) > RANK.indexOf(b) ? a : b);

/**
 * An item with captions of its destinations' own (item-captions.ts): a post per caption from its one video,
 * each under a step of the item's key (`post`, `post-2`...: a rerun replays them), the item's line the worst.
 */
async function postGroups(rc: RunContext, run: ItemRun, groups: NonNullable<PlannedItem['groups']>): Promise<void> {
  const { out } = run;
  // The video is sent (or found) only for a caption whose post is still to make.
  let media: Media | undefined;
  const ids: string[] = [];
  const all: DestinationOutcome[] = [];
  const errors: string[] = [];
  let status: ItemStatus | undefined;
  // The set's posts this machine's journal holds (an earlier run's): each caption's post made there is read, not made
  // again, past the service's 24 hours of Idempotency-Keys too, as an item of one post is (earlierPostId).
  const made = (await rc.session.journal?.setPosts(setIdOf(run.it.key)).catch(() => undefined)) ?? [];
  for (const [n, g] of groups.entries()) {
    out.error = undefined;
    const same = (p: (typeof made)[number]) => p.caption === g.caption && sameIds(p.destinations.map((d) => d.id), g.plans.map((pl) => pl.destination.id));
    const sent =
      (await earlierPost(rc, run, rc.clock.now(), made.find(same)?.post_id)) ??
      (await createItemPost(rc, run, (media ??= await readyVideo(rc, run)), { caption: g.caption, plans: g.plans, step: n === 0 ? 'post' : `post-${n + 1}` }));
    await keepPost(rc, run, sent);
    await settleStatus(rc, run, sent);
    ids.push(sent.post.id);
    // Kept as they are made: an item stopped at a later caption still names the posts it made.
    out.posts = [...ids];
    all.push(...out.destinations);
    if (out.error) errors.push(`${sent.post.id}: ${out.error}`);
    status = worse(status, out.status);
  }
  out.post_id = ids[0] ?? null;
  out.posts = ids;
  out.destinations = all;
  out.status = status ?? out.status;
  out.error = errors.length > 0 ? errors.join('; ') : undefined;
}

async function postItem(rc: RunContext, run: ItemRun): Promise<void> {
  const { it } = run;
  // The same video to the same destination (duplicate-items.ts): refused on its own, nothing sent.
  if (it.duplicate) return (await import('./duplicate-items.js')).refuseDuplicate(rc, run, it.duplicate);
  run.releaseSlot = await rc.slots.take();
  await rc.record({ type: 'item-started', item: it.n, key: it.key });
  if (it.groups) return postGroups(rc, run, it.groups);
  const sent = (await earlierPost(rc, run, rc.clock.now())) ?? (await createItemPost(rc, run, await readyVideo(rc, run)));
  await keepPost(rc, run, sent);
  await settleStatus(rc, run, sent);
}

/** Runs one item to its end; whatever happens, its line is told and its places given back. */
export async function runItem(rc: RunContext, it: PlannedItem): Promise<void> {
  // The item's own signal follows the run's until the item ends (util/any-signal.ts).
  const linked = linkSignals([rc.signal]);
  const run: ItemRun = { it, out: startingOutcome(rc.plan, it), step: 'upload', signal: linked.signal };
  const { out } = run;
  try {
    await postItem(rc, run);
  } catch (err) {
    settleTrouble(rc, run, err);
  } finally {
    linked.dispose();
    run.releaseSlot?.();
    run.releaseImport?.();
    const error = out.error && rc.troubles.get(it.n) !== 'interrupted' ? `: ${out.error}` : '';
    rc.view.state(it.n, `${out.status}${out.post_id ? ` ${out.post_id}` : ''}${error}`);
    rc.view.end(it.n);
    await rc.record({ type: 'item-finished', item: it.n, key: it.key, outcome: out });
    rc.opts.onItem?.(out);
  }
}

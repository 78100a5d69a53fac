/**
 * `vidpub batch`, after its flags are read: parse the manifest, check every
 * item (plan.ts; nothing is sent until all pass), check the daily allowance,
 * then show the plan (--dry-run), or confirm once at a terminal and run it
 * (run-batch.ts), and say how each item ended.
 */
import { CancelledError, TimeoutError, isDeadline, sanitize } from '../errors.js';
import { bindDeadline } from '../session/deadline.js';
import type { Session } from '../session/session.js';
import { formatDuration } from '../time/duration.js';
import { ask } from '../posts/options.js';
import type { ManifestFormat } from './manifest.js';
import { pacedClient } from './allowance-gate.js';
import type { BatchPlan } from './plan.js';
import type { BatchRecorder, ItemOutcome, RunStats } from './run-types.js';
import { slotJson, type SlotOpts } from './slot-step.js';
import type { ShardOpts } from './shard-run.js';

export interface BatchOpts {
  /** The manifest's text. */
  text: string;
  format: ManifestFormat;
  /** The manifest as named (a path, or "stdin"). */
  source: string;
  /** Where the manifest's relative paths start. */
  baseDir: string;
  zone: string;
  dryRun: boolean;
  concurrency: number;
  wait: boolean;
  timeoutMs: number;
  yes: boolean;
  waitForQuota: boolean;
  /** --force-new: post the items whose file changed since the run that posted them (changed.ts). */
  forceNew?: boolean;
  /** The journal's hook: told of every item's steps as they happen. */
  recorder?: BatchRecorder;
  /** Told of each item as soon as it has ended. */
  onItem?: (outcome: ItemOutcome) => void;
  /** The whole result is printed at the end (--json's document, a terminal): keep every item's outcome. */
  keepAll?: boolean;
  /** --slots / --every: the times of the items without their own (slot-step.ts). */
  slots?: SlotOpts;
  /** --shard, --report, --skip-done (shard-run.ts); undefined when none is given. */
  shards?: ShardOpts;
  /** The duplicate guard's window (0: off) and --allow-duplicate (duplicate-items.ts). */
  duplicateWindowMs?: number;
  allowDuplicate?: boolean;
}

export interface BatchResult {
  dryRun: boolean;
  source: string;
  plan?: BatchPlan;
  items: ItemOutcome[];
  stats?: RunStats;
}

export async function runBatchCommand(opts: BatchOpts, session: Session): Promise<BatchResult> {
  // A batch allocates without pause while little of it stays alive (the plan, the items under
  // way), and V8 lets the heap grow to several times what is live before it collects: told to
  // favour size, it collects sooner, for a peak a fraction as high (docs/performance.md, batch).
  (await import('node:v8')).setFlagsFromString('--optimize-for-size');
  const { parseManifest } = await import('./manifest.js');
  const { buildPlan, allowanceError, problemsError } = await import('./plan.js');
  const { planLines, outcomeTable } = await import('./batch-view.js');
  const manifest = await parseManifest(opts.text, opts.format);
  // A manifest that does not parse has no items to check against the service.
  if (manifest.items.length === 0 && manifest.problems.length > 0) throw problemsError(manifest.problems, opts.source);
  // This runner's items only (its shard, less those an earlier report has as done), before any is checked.
  const shards = opts.shards ? (await import('./shard-run.js')).openShardRun(manifest, opts.shards, session) : undefined;
  if (shards && manifest.items.length === 0 && manifest.problems.length === 0) {
    if (!opts.dryRun) {
      shards.start();
      await shards.close(true);
    }
    return { dryRun: opts.dryRun, source: opts.source, items: [] };
  }

  const paced = pacedClient(await session.client(), session.clock, session.signal);
  // --timeout covers the checks against the service too: a service that does not answer them
  // cannot hold the batch past it. The time a person takes to confirm does not count.
  const checksStarted = session.clock.now();
  const checks = bindDeadline(session, checksStarted + opts.timeoutMs, opts.timeoutMs);
  paced.within(checks.session.signal);
  let plan: BatchPlan;
  try {
    plan = await buildPlan({ manifest, source: opts.source, baseDir: opts.baseDir, zone: opts.zone, waitForQuota: opts.waitForQuota }, checks.session, paced);
  } catch (err) {
    if (isDeadline(checks.session.signal) && !session.signal.aborted) {
      throw new TimeoutError(`Stopped: the --timeout (${formatDuration(opts.timeoutMs)}) was reached while checking the items with the service; nothing was uploaded or posted.`, {
        cause: err,
        hint: 'Check that the service answers (vidpub me), then run the batch again, with a longer --timeout if it is slow.',
      });
    }
    throw err;
  } finally {
    checks.dispose();
  }
  // The plan holds all the run needs: the items as written (each one's fields) go before it starts.
  manifest.items.length = 0;
  const checksMs = session.clock.now() - checksStarted;
  // Items this machine already posted (the journal, by the item's key) spend no allowance and are
  // not posted again, however old: the service's own replay of the keys lasts 24 hours only.
  // An item whose file is not the one its earlier post was made from is a problem, unless forced (changed.ts).
  const settled = session.journal ? await (await import('./changed.js')).settleChangedFiles(plan.items, session.journal, opts.forceNew === true) : undefined;
  if (settled && settled.problems.length > 0) throw problemsError(settled.problems, opts.source);
  const earlier = !opts.recorder?.wasPosted ? settled?.posted : undefined;
  if (earlier) for (const it of plan.items) it.earlierPostId = earlier.get(it.key);
  const wasPosted = opts.recorder?.wasPosted?.bind(opts.recorder) ?? (earlier ? (key: string) => earlier.has(key) : undefined);
  if (wasPosted) {
    for (const it of plan.items) if ((await wasPosted(it.key)) && !it.draft) it.alreadyPosted = true;
    plan.postsNeeded = plan.items.reduce((n, it) => n + (it.draft || it.alreadyPosted ? 0 : (it.groups?.length ?? 1)), 0);
  }
  const dups = await import('./duplicate-items.js');
  await dups.markDuplicates(plan, session, { windowMs: opts.duplicateWindowMs ?? 0, allowAll: opts.allowDuplicate === true });
  if (opts.slots) await (await import('./slot-step.js')).applySlots(plan, opts.slots, session);
  const short = allowanceError(plan);
  const planned: BatchResult = { dryRun: true, source: opts.source, plan, items: [] };
  if (short && !opts.waitForQuota) throw opts.dryRun ? Object.assign(short, { data: planned }) : short;
  if (short) session.log.warn(`${short.message.replace(/ Nothing was sent\.$/, '')} --wait-for-quota: the rest wait for the reset.`);
  const refused = dups.refusedLine(plan);
  if (refused) session.log.warn(refused);
  if (opts.dryRun) return planned;

  for (const it of plan.items) if (it.when?.note) session.log.warn(`item ${it.n}: ${sanitize(it.when.note)}`);
  if (session.interactive && !opts.yes) {
    for (const line of planLines(plan, opts.source, session.screen.colors)) session.screen.write(line + '\n');
    const prompter = await session.prompter();
    const n = plan.items.length;
    const yes = await ask(() => prompter.confirm({ message: n === 1 ? 'Send this item?' : `Send these ${n} items?`, default: true }));
    if (!yes) throw new CancelledError('Cancelled: nothing was uploaded or posted.');
  } else {
    session.log.info(
      `Sending ${plan.items.length} item${plan.items.length === 1 ? '' : 's'} from ${sanitize(opts.source)} (${plan.postsNeeded} post${plan.postsNeeded === 1 ? '' : 's'} needed${plan.postsLeft !== undefined ? `, ${plan.postsLeft} left today` : ''}), ${opts.concurrency} at a time.`,
    );
  }

  const { runBatch } = await import('./run-batch.js');
  const { troubleError } = await import('./trouble-error.js');
  shards?.start();
  let run: Awaited<ReturnType<typeof runBatch>> | undefined;
  try {
    run = await runBatch(plan, session, paced, { concurrency: opts.concurrency, wait: opts.wait, timeoutMs: opts.timeoutMs, spentMs: checksMs, recorder: opts.recorder, onItem: shards ? shards.onItem(opts.onItem) : opts.onItem, keepAll: opts.keepAll });
  } finally {
    await shards?.close(run !== undefined && !session.signal.aborted);
  }
  if (!session.quiet) {
    session.screen.write('\n');
    for (const line of outcomeTable(run, session.screen.colors, session.screen.tty)) session.screen.write(line + '\n');
  }
  const result: BatchResult = { dryRun: false, source: opts.source, items: run.outcomes, stats: run.stats };
  const err = troubleError(run, result);
  if (err) throw err;
  return result;
}

/** The plan as data (--dry-run --json). */
export function planJson(plan: BatchPlan): unknown {
  return {
    dry_run: true,
    posts_needed: plan.postsNeeded,
    posts_left: plan.postsLeft ?? null,
    zone: plan.zone,
    items: plan.items.map((it) => ({
      item: it.n,
      // No spread per item (see rawItem in manifest.ts): JSON leaves out a line that is undefined.
      line: it.line,
      video: it.video.kind === 'file' ? { file: it.video.shown, size_bytes: it.video.file.size, duration_sec: it.video.durationSec ?? null } : it.video.kind === 'url' ? { url: it.video.url } : { media: it.video.id },
      caption: it.caption,
      captions: it.groups?.map((g) => ({ caption: g.caption, destinations: g.plans.map((p) => p.destination.id) })),
      draft: it.draft,
      publish_at: it.when === null ? null : it.when.publishAt,
      publish_at_utc: it.when === null ? null : it.when.now ? 'now' : it.when.utc,
      destinations: it.plans.map((p) => ({
        destination_id: p.destination.id,
        name: plan.names[p.destination.id] ?? p.destination.id,
        options: Object.fromEntries(p.values.map((v) => [v.key, { value: v.value, from: v.source === 'default' ? 'destination default' : it.fromDefaults.has(v.key) || it.fromDefaults.has(`${p.name}:${v.key}`) ? 'defaults' : 'item' }])),
      })),
      idempotency_key: it.key,
      duplicate: it.duplicate ?? null,
    })),
    ...(plan.slots ? { slots: slotJson(plan.slots) } : {}),
  };
}

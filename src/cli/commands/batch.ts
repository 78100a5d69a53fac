import { UsageError, sanitize } from '../../errors.js';
import { planJson, type BatchOpts, type BatchResult } from '../../batch/batch-flow.js';
import { outcomeLines, planLines } from '../../batch/batch-view.js';
import { readSlotFlags, slotLines } from '../../batch/slot-step.js';
import type { ItemOutcome } from '../../batch/run-types.js';
import type { ManifestFormat } from '../../batch/manifest-types.js';
import { parseTimeout } from '../../session/wait-flags.js';
import { WHEN_FORMATS } from '../../time/at-grammar.js';
import { resolveTimeZone } from '../../time/zones.js';
import { defineCommand, type Invocation } from '../run/command.js';
import { isRehearsal, rehearsalDoc, rehearsalNote, rehearse } from '../rehearsal/rehearse.js';
import { readAll, readNamedFile } from '../io/user-input.js';
import { exactBytes } from '../../util/bytes.js';
import { readDuplicateWindow } from '../run/duplicate-window.js';

const MAX_MANIFEST_BYTES = 10_000_000;
/**
 * A YAML manifest's limit: the YAML parser holds the whole document as a tree, many times the
 * size of its text, so a YAML manifest is refused past this (before it is read) to keep a batch's
 * memory bounded (docs/performance.md); CSV and JSON Lines are read up to MAX_MANIFEST_BYTES.
 */
export const MAX_YAML_MANIFEST_BYTES = 1_000_000;
const MAX_CONCURRENCY = 16;

function yamlTooLong(shown: string): UsageError {
  return new UsageError(`${shown} is a YAML manifest longer than ${exactBytes(MAX_YAML_MANIFEST_BYTES)}, the most vidpub reads as YAML (its parser holds the whole document in memory)`, {
    hint: `Write it as JSON Lines (.jsonl, an item a line) or CSV (.csv), read up to ${exactBytes(MAX_MANIFEST_BYTES)}, or split it into several YAML manifests.`,
  });
}

export async function readManifest(path: string, format: ManifestFormat, inv: Invocation, timeoutMs: number): Promise<{ text: string; baseDir: string; source: string }> {
  const { dirname, resolve } = await import('node:path');
  const limit = format === 'yaml' ? MAX_YAML_MANIFEST_BYTES : MAX_MANIFEST_BYTES;
  if (path === '-') {
    if (inv.ctx.io.stdinIsTTY) inv.log.info('Reading the manifest from the terminal; end it with Ctrl-D.');
    const text = await readAll(inv.ctx.io.stdin, limit, 'the manifest on stdin', { signal: inv.ctx.signal, clock: inv.ctx.clock, timeoutMs }).catch((err: unknown) => {
      // Stopped as soon as it passed the limit: the rest was not read.
      throw format === 'yaml' && err instanceof UsageError && /is longer than/.test(err.message) ? yamlTooLong('the manifest on stdin') : err;
    });
    return { text, baseDir: inv.ctx.cwd, source: 'stdin' };
  }
  const abs = resolve(inv.ctx.cwd, path);
  const text = await readNamedFile(abs, sanitize(path), (st) => {
    // From the file's size, before any of it is read.
    if (format === 'yaml' && st.size > limit) throw yamlTooLong(sanitize(path));
    if (st.size > limit) throw new UsageError(`${sanitize(path)} is longer than ${exactBytes(limit)}`);
  });
  return { text, baseDir: dirname(abs), source: path };
}

/** The items whose line an invocation has printed already. */
const STREAMED = new WeakMap<Invocation, Set<number>>();

export default defineCommand<'batch', BatchOpts & { rehearse: boolean }, BatchResult>({
  description:
    'Post many videos from one manifest (YAML, CSV, JSON or JSON Lines): every item is checked first (files, destinations, ' +
    'options, times, duplicate items, the daily allowance) and nothing is sent unless all pass. An item whose video went to the same destination before (within duplicate_window) or earlier in the manifest is refused on its own (exit 2), unless allow_duplicate. Then uploads run a few at a time, ' +
    'each post is created as its video is ready, requests stay within the per-minute allowance, and posts sent now are ' +
    'followed to the end. Rerunning the same manifest creates nothing twice. stdout: a JSON line per item (at a terminal, a few lines per item for a person). ' +
    `Item fields: file | url | media, to, caption | caption_file, options, at, tz, draft, key, force_new, allow_duplicate. AT: ${WHEN_FORMATS}.`,
  examples: [
    'vidpub batch week.yaml --dry-run',
    'vidpub batch week.yaml --yes',
    'vidpub batch week.yaml --slots "mon-fri 09:00,17:00" --from "tomorrow 9:00" --dry-run',
    'vidpub batch week.yaml --rehearse --yes',
    'vidpub batch posts.csv --concurrency 4 --no-wait',
    'generate-items | vidpub batch - --format jsonl --yes --json',
  ],
  // The run's document and the --dry-run plan's: --json FIELDS is checked before anything is sent.
  fields: ['items', 'stats', 'dry_run', 'posts_needed', 'posts_left', 'zone', 'rehearsal', 'slots'],
  async parse(args, flags, inv) {
    const path = args[0].trim();
    if (path === '') throw new UsageError('which manifest? Give its path, or "-" to read it from stdin (with --format)');
    const { formatOfPath, parseFormat } = await import('../../batch/manifest.js');
    const format = flags.format !== undefined ? parseFormat(flags.format) : path === '-' ? undefined : formatOfPath(path);
    if (!format) {
      throw new UsageError(
        path === '-' ? 'reading the manifest from stdin needs --format yaml, csv, json or jsonl' : `cannot tell the format of ${sanitize(path)} from its extension`,
        { hint: 'Name it .yaml, .yml, .csv, .json or .jsonl, or pass --format.' },
      );
    }
    const concurrency = Number(flags.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
      throw new UsageError(`--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, not "${sanitize(flags.concurrency)}"`);
    }
    const timeoutMs = parseTimeout(flags);
    const zone = resolveTimeZone(flags.tz, inv.ctx.env);
    // The slot rule and --from are read before the manifest: a rule that cannot be read sends nothing.
    const slots = readSlotFlags(flags, inv.ctx.clock.now(), zone);
    const shards = await (await import('../io/batch-shards.js')).readShardFlags(flags, inv);
    const { text, baseDir, source } = await readManifest(path, format, inv, timeoutMs);
    return {
      text,
      format,
      source,
      baseDir,
      zone,
      dryRun: flags.dryRun,
      concurrency,
      wait: flags.wait,
      timeoutMs,
      yes: flags.yes,
      waitForQuota: inv.globals.waitForQuota,
      forceNew: flags.forceNew,
      rehearse: flags.rehearse,
      slots,
      shards,
      allowDuplicate: flags.allowDuplicate,
      duplicateWindowMs: await readDuplicateWindow(inv),
    };
  },
  async run(opts, inv) {
    const { runBatchCommand } = await import('../../batch/batch-flow.js');
    // Without --json, each item's line goes out as soon as the item has ended: a batch stopped
    // from outside (a CI job's own timeout) has still said how every finished item went.
    // At a terminal a person reads the live view, then a few lines per item (outcomeLines): JSON
    // lines there, wrapping under the view as it redraws, were cut. They are for pipes and --json (--events: its result line).
    const streamed = new Set<number>();
    STREAMED.set(inv, streamed);
    const onItem = inv.globals.json || inv.out.tty || inv.session.events
      ? undefined
      : (o: ItemOutcome) => {
          inv.out.print(JSON.stringify(o));
          streamed.add(o.item);
        };
    if (opts.rehearse) {
      // The videos items name by id (media:) are read (GET) into the copy. Its lines are printed
      // at the end, marked, without the links to its throwaway emulator (stopped by then).
      const { parseManifest } = await import('../../batch/manifest.js');
      const media = new Set((await parseManifest(opts.text, opts.format)).items.map((it) => it.fields.media).filter((m) => typeof m === 'string'));
      return rehearse(inv, (session) => runBatchCommand({ ...opts, keepAll: true }, session), { media: [...media] as string[] });
    }
    // Lines streamed as items end: the run keeps only what its summary needs (a batch of any length).
    return runBatchCommand({ ...opts, onItem, keepAll: onItem === undefined }, inv.session);
  },
  print(r, inv) {
    if (r.dryRun && r.plan) {
      for (const line of planLines(r.plan, r.source, inv.out.colors)) inv.out.print(line);
      if (r.plan.slots) for (const line of slotLines(r.plan.slots, r.plan.zone, inv.out.colors, inv.out.tty)) inv.out.print(line);
    } else {
      if (inv.out.tty) {
        for (const o of r.items) for (const line of outcomeLines(o, inv.out.colors)) inv.out.print(line);
        rehearsalNote(r, inv);
        return;
      }
      const streamed = STREAMED.get(inv);
      const rehearsal = isRehearsal(r);
      for (const o of r.items) if (!streamed?.has(o.item)) inv.out.print(JSON.stringify(rehearsal ? { ...o, rehearsal: true } : o));
    }
    rehearsalNote(r, inv);
  },
  json(r) {
    if (r.dryRun && r.plan) return rehearsalDoc(r, planJson(r.plan));
    return rehearsalDoc(r, { items: r.items, stats: r.stats ?? null });
  },
});


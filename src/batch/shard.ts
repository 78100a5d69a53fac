/**
 * Shards of a manifest (`batch --shard I/N`): which items one runner of N posts. An item's shard
 * comes from a hash of its identity, what the manifest itself says of it (its fields as written,
 * the defaults merged in, and the manifest's batch_key), never from anything of the machine that
 * reads it (a path made absolute, a file's time, a journal): the split is the same on every
 * machine, an item appended to the manifest moves no other, and each item is in exactly one shard.
 * The manifest's identity names it in the shard reports (report/format.ts).
 */
import { hash as oneShotHash } from 'node:crypto';
import { UsageError, sanitize } from '../errors.js';
import { canonicalJson } from './keys.js';
import type { Manifest, RawItem } from './manifest-types.js';

/** This runner's shard: `index` of `count`, 1-based. */
export interface Shard {
  index: number;
  count: number;
}

/** The most shards a manifest is split into. */
export const MAX_SHARDS = 10_000;

/** The field that says how to run an item, not what it is: left out of its identity. */
const NOT_IDENTITY = 'force_new';

/** sha256 in hex, in one call: no Hash object per item (a 100,000-item split spends most of its time here). */
const hash = (text: string): string => oneShotHash('sha256', text, 'hex');

/**
 * An item's identity: 32 hex digits of the sha256 of canonicalJson({ batch_key, item }), `item`
 * its fields as written (defaults merged in) but force_new. Written out here rather than through
 * canonicalJson of a copy: a 100,000-item split spends most of its time in this function.
 */
export function itemIdentity(item: RawItem, batchKey: string | undefined): string {
  const f = item.fields;
  let out = `{"batch_key":${JSON.stringify(batchKey ?? null)},"item":{`;
  let first = true;
  for (const k of Object.keys(f).sort()) {
    const v = f[k];
    if (v === undefined || k === NOT_IDENTITY) continue;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + (typeof v === 'string' ? JSON.stringify(v) : canonicalJson(v));
    first = false;
  }
  return hash(out + '}}').slice(0, 32);
}

/**
 * The manifest's identity: from its batch_key when it has one, else from its first item's
 * identity (unchanged by items appended; an edit of the first item, or an item put before it,
 * makes it another manifest). `m-` and 16 hex digits.
 */
export function manifestIdentity(batchKey: string | undefined, firstItemId: string | undefined): string {
  return 'm-' + hash(canonicalJson(batchKey !== undefined ? { batch_key: batchKey } : { first_item: firstItemId ?? null })).slice(0, 16);
}

/** The shard (1-based) of `count` an item of this identity belongs to. */
export function shardOf(id: string, count: number): number {
  // 48 bits of the hash: an even split for any count up to MAX_SHARDS.
  return (Number.parseInt(id.slice(0, 12), 16) % count) + 1;
}

/** The identities of a manifest's items, in order, and the manifest's own. */
export function identities(manifest: Manifest): { ids: string[]; manifestId: string } {
  const ids = manifest.items.map((it) => itemIdentity(it, manifest.batchKey));
  return { ids, manifestId: manifestIdentity(manifest.batchKey, ids[0]) };
}

const SHARD_TEXT = /^\s*(\d+)\s*\/\s*(\d+)\s*$/;

/** `I/N` read from a flag or a variable (`from` names it in the message): exit 2 unless 1 <= I <= N <= MAX_SHARDS. */
export function parseShard(text: string, from = '--shard'): Shard {
  const m = SHARD_TEXT.exec(text);
  const shown = from.endsWith('=') ? `${from}${sanitize(text)}` : `${from} ${sanitize(text)}`;
  if (!m) throw new UsageError(`${shown}: a shard is I/N (shard I of N, counted from 1), e.g. 2/4`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1) throw new UsageError(`${shown}: the number of shards must be at least 1`);
  if (count > MAX_SHARDS) throw new UsageError(`${shown}: at most ${MAX_SHARDS} shards`);
  if (index < 1) throw new UsageError(`${shown}: shards are counted from 1 (1/${count} to ${count}/${count}); JOB_COMPLETION_INDEX with --shard-count counts from 0`);
  if (index > count) throw new UsageError(`${shown}: there are only ${count} shards (1/${count} to ${count}/${count})`);
  return { index, count };
}

const WHOLE = /^\s*\d+\s*$/;

/** Kubernetes' JOB_COMPLETION_INDEX (0-based) with --shard-count N. */
function indexedJobShard(index: string | undefined, countText: string): Shard {
  if (!WHOLE.test(countText) || Number(countText) < 1 || Number(countText) > MAX_SHARDS) {
    throw new UsageError(`--shard-count must be a whole number from 1 to ${MAX_SHARDS}, not "${sanitize(countText)}"`);
  }
  const count = Number(countText);
  if (index === undefined) {
    throw new UsageError(`--shard-count ${count} takes this shard from JOB_COMPLETION_INDEX, which is not set`, {
      hint: 'Run it in a Kubernetes Indexed Job (which sets JOB_COMPLETION_INDEX), or give --shard I/N.',
    });
  }
  if (!WHOLE.test(index)) throw new UsageError(`JOB_COMPLETION_INDEX must be a whole number from 0 to ${count - 1} (with --shard-count ${count}), not "${sanitize(index)}"`);
  const i = Number(index);
  if (i >= count) throw new UsageError(`JOB_COMPLETION_INDEX=${i} is not below --shard-count ${count} (it counts from 0: 0 to ${count - 1})`);
  return { index: i + 1, count };
}

const same = (a: Shard, b: Shard) => a.index === b.index && a.count === b.count;
const named = (s: Shard) => `${s.index}/${s.count}`;

/**
 * This run's shard, from --shard, VIDPUB_SHARD, or JOB_COMPLETION_INDEX with --shard-count; null
 * without any. Two of them that are given and disagree are refused (exit 2): a runner that took
 * the wrong one would leave a shard's items unposted.
 */
export function resolveShard(flag: string | undefined, shardCount: string | undefined, env: Readonly<Record<string, string | undefined>>): Shard | null {
  const given: { from: string; shard: Shard }[] = [];
  if (flag !== undefined) given.push({ from: `--shard ${sanitize(flag)}`, shard: parseShard(flag, '--shard') });
  const variable = env.VIDPUB_SHARD;
  if (variable !== undefined && variable.trim() !== '') given.push({ from: `VIDPUB_SHARD=${sanitize(variable)}`, shard: parseShard(variable, 'VIDPUB_SHARD=') });
  if (shardCount !== undefined) {
    const index = env.JOB_COMPLETION_INDEX;
    // --shard I/N with --shard-count N and no Indexed Job: the count is checked against the flag's.
    const job = index === undefined && given.length > 0 ? undefined : indexedJobShard(index, shardCount);
    if (job) given.push({ from: `JOB_COMPLETION_INDEX=${sanitize(index ?? '')} with --shard-count ${job.count} (shard ${named(job)})`, shard: job });
    else if (Number(shardCount) !== given[0]!.shard.count) {
      throw new UsageError(`${given[0]!.from} disagrees with --shard-count ${sanitize(shardCount)}: give one of them`);
    }
  }
  const [first, ...rest] = given;
  if (!first) return null;
  const other = rest.find((g) => !same(g.shard, first.shard));
  if (other) throw new UsageError(`${first.from} disagrees with ${other.from}: give one of them, so that every runner takes the shard it is meant to`);
  return first.shard;
}

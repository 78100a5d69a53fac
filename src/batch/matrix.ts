/**
 * `batch matrix MANIFEST --shards N`: the shards of a manifest as a GitHub Actions matrix,
 * `{"include":[{"shard":"1/N"},…]}`, for `strategy.matrix: ${{ fromJSON(…) }}`, each job running
 * `vidpub batch MANIFEST --shard ${{ matrix.shard }}`. GitHub runs at most 256 jobs of a matrix:
 * more shards are refused. More shards than items are capped at the item count (a job with no
 * item to post is a runner spent on nothing), with a warning: a workflow with a fixed --shards
 * keeps working as its manifest shrinks.
 */
import { UsageError, sanitize } from '../errors.js';

/** GitHub Actions' ceiling of jobs per matrix. */
export const MATRIX_CEILING = 256;

export interface ShardMatrix {
  include: { shard: string }[];
}

/** --shards N read: a whole number from 1 to MATRIX_CEILING (exit 2 otherwise, naming the value). */
export function parseShardCount(text: string | undefined): number {
  if (text === undefined) throw new UsageError('how many shards? Give --shards N (1 to 256)', { hint: 'vidpub batch matrix MANIFEST --shards 4' });
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--shards must be a whole number from 1 to ${MATRIX_CEILING}, not "${sanitize(text)}"`);
  if (n > MATRIX_CEILING) {
    throw new UsageError(`--shards ${n} is more jobs than a GitHub Actions matrix runs (at most ${MATRIX_CEILING})`, {
      hint: `Give --shards ${MATRIX_CEILING} or fewer; each shard can post many items.`,
    });
  }
  return n;
}

/** The shards to print for a manifest of `items` items: `wanted`, at most one per item (at least one). */
export function cappedShards(wanted: number, items: number): number {
  return Math.max(1, Math.min(wanted, items));
}

export function shardMatrix(count: number): ShardMatrix {
  return { include: Array.from({ length: count }, (_, i) => ({ shard: `${i + 1}/${count}` })) };
}

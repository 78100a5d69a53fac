/**
 * `batch --shard I/N`, `--shard-count N` (with JOB_COMPLETION_INDEX), `--report FILE` and
 * `--skip-done FILE…`, read and checked before the manifest is (src/batch/shard.ts has the rules;
 * src/batch/shard-run.ts uses them): undefined when none is given.
 */
import { resolve } from 'node:path';
import { UsageError, sanitize } from '../../errors.js';
import type { ShardOpts } from '../../batch/shard-run.js';
import { resolveShard } from '../../batch/shard.js';
import type { Invocation } from '../run/command.js';
import { exactBytes } from '../../util/bytes.js';
import { readNamedFile } from './user-input.js';

/** A report of 100,000 items is some 30 MB: this leaves room, and bounds what is read. */
const MAX_REPORT_BYTES = 200_000_000;

/** A batch report's text (`batch report FILE…`, `batch --skip-done FILE…`), refused past its bound before it is read. */
export async function readReportText(cwd: string, file: string): Promise<string> {
  const shown = sanitize(file);
  return readNamedFile(resolve(cwd, file), shown, (st) => {
    if (st.size > MAX_REPORT_BYTES) throw new UsageError(`${shown} is longer than ${exactBytes(MAX_REPORT_BYTES)}: not a batch report`);
  });
}

export async function readShardFlags(
  flags: { shard?: string; shardCount?: string; report?: string; skipDone?: readonly string[]; rehearse?: boolean },
  inv: Invocation,
): Promise<ShardOpts | undefined> {
  // A rehearsal's "posted" is the throwaway copy's: as a report, it would make --skip-done skip real posts.
  if (flags.rehearse && (flags.report !== undefined || (flags.skipDone?.length ?? 0) > 0)) {
    throw new UsageError(`--${flags.report !== undefined ? 'report' : 'skip-done'} is for a real run: --rehearse posts nothing to the service`, {
      hint: 'Rehearse without it (a shard with --shard is fine), then run for real with it.',
    });
  }
  const shard = resolveShard(flags.shard, flags.shardCount, inv.ctx.env);
  const skipDone = await Promise.all((flags.skipDone ?? []).map(async (file) => ({ file, text: await readReportText(inv.ctx.cwd, file) })));
  if (!shard && flags.report === undefined && skipDone.length === 0) return undefined;
  return { shard, report: flags.report === undefined ? undefined : resolve(inv.ctx.cwd, flags.report), skipDone };
}

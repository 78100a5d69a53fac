import { UsageError, sanitize } from '../../errors.js';
import { cappedShards, parseShardCount, shardMatrix, type ShardMatrix } from '../../batch/matrix.js';
import { DEFAULT_TIMEOUT } from '../../session/wait-flags.js';
import { parseDuration } from '../../time/duration.js';
import { defineCommand } from '../run/command.js';
import { readManifest } from './batch.js';

interface Opts {
  shards: number;
  items: number;
  source: string;
}

export default defineCommand<'batch matrix', Opts, ShardMatrix>({
  description:
    'Print the shards of a manifest as a GitHub Actions matrix, {"include":[{"shard":"1/N"},...]}, on one line: feed it to ' +
    'strategy.matrix with fromJSON (echo "matrix=$(vidpub batch matrix MANIFEST --shards N)" >> "$GITHUB_OUTPUT") and run ' +
    '"vidpub batch MANIFEST --shard ${{ matrix.shard }}" in each job. ' +
    'N is 1 to 256 (the most jobs a matrix runs); more shards than the manifest has items are cut to one per item, with a warning.',
  examples: ['vidpub batch matrix week.yaml --shards 4', 'vidpub batch matrix posts.csv --shards 2 --json'],
  fields: ['include'],
  async parse(args, flags, inv) {
    // The count is checked before the manifest is read.
    const shards = parseShardCount(flags.shards);
    const path = args[0].trim();
    if (path === '') throw new UsageError('which manifest? Give its path, or "-" to read it from stdin (with --format)');
    const { formatOfPath, parseFormat, parseManifest } = await import('../../batch/manifest.js');
    const format = flags.format !== undefined ? parseFormat(flags.format) : path === '-' ? undefined : formatOfPath(path);
    if (!format) throw new UsageError(path === '-' ? 'reading the manifest from stdin needs --format yaml, csv, json or jsonl' : `cannot tell the format of ${sanitize(path)} from its extension`);
    const { text, source } = await readManifest(path, format, inv, parseDuration(DEFAULT_TIMEOUT, '--timeout'));
    const { items } = await parseManifest(text, format);
    return { shards, items: items.length, source };
  },
  async run(opts, inv) {
    const count = cappedShards(opts.shards, opts.items);
    if (count < opts.shards) {
      inv.log.warn(`${sanitize(opts.source)} has ${opts.items} item${opts.items === 1 ? '' : 's'}: printing ${count} shard${count === 1 ? '' : 's'}, not ${opts.shards} (a shard with no item is a job with nothing to do).`);
    }
    return shardMatrix(count);
  },
  // One line whatever stdout is: what $GITHUB_OUTPUT takes.
  print(m, inv) {
    inv.out.print(JSON.stringify(m));
  },
});

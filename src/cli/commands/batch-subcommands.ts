/**
 * The registry's entries of batch's subcommands (./index.ts spreads them into its list), and the
 * flag they share with batch: data only, as the registry is.
 */
import { MATRIX_CEILING } from '../../batch/matrix.js';
import type { FlagSpec } from '../line/flags.js';

/** --format of batch and batch matrix: how the manifest is written. */
export const MANIFEST_FORMAT = {
  name: 'format',
  value: 'fmt',
  kind: 'choice',
  choices: ['yaml', 'csv', 'json', 'jsonl'],
  description: 'yaml, csv, json or jsonl (default: from the extension; needed for "-")',
} as const satisfies FlagSpec;

export const BATCH_SUBCOMMANDS = [
  {
    name: 'batch report',
    summary: 'Merge the reports of batch shards into one summary',
    group: 'posts',
    args: [{ name: 'file', kind: 'file', required: true, variadic: true }],
    flags: [
      { name: 'markdown', description: 'print a Markdown summary (for $GITHUB_STEP_SUMMARY) instead of the table' },
      { name: 'junit', value: 'file', kind: 'file', description: 'also write the items as JUnit XML to FILE (a testsuite per shard, a testcase per item)' },
    ],
  },
  {
    name: 'batch matrix',
    summary: "Print a manifest's shards as a GitHub Actions matrix",
    group: 'posts',
    args: [{ name: 'manifest', kind: 'file', required: true }],
    flags: [
      { name: 'shards', value: 'n', kind: 'number', description: `how many shards (1 to ${MATRIX_CEILING}, capped at the number of items)` },
      MANIFEST_FORMAT,
    ],
  },
] as const;

// Shared by the benchmarks: a journal written as vidpub leaves it, the records in time order cut
// into numbered 4 MiB segments (as rotation does) and the active file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SEGMENT_BYTES = 4 * 1024 * 1024;

/** Writes `records` (an iterable, oldest first) into `stateDir`; returns how many segments were cut. */
export function writeJournalSegments(stateDir, records) {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  let segment = [];
  let size = 0;
  let n = 0;
  const flush = (name) => {
    writeFileSync(join(stateDir, name), segment.join(''), { mode: 0o600 });
    segment = [];
    size = 0;
  };
  for (const rec of records) {
    const line = JSON.stringify(rec) + '\n';
    segment.push(line);
    size += Buffer.byteLength(line);
    if (size > SEGMENT_BYTES) flush(`journal.${String(++n).padStart(6, '0')}.jsonl`);
  }
  flush('journal.jsonl');
  return n;
}

/** Shared by the batch tests: a manifest beside the test clip, and the JSON lines a batch prints. */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A JSON Lines manifest (x.jsonl) in a new temporary directory, beside the test clip as a.mp4. */
export function batchManifest(items: Record<string, unknown>[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'vidpub-batch-'));
  copyFileSync('test/fixtures/clip.mp4', join(dir, 'a.mp4'));
  writeFileSync(join(dir, 'x.jsonl'), items.map((it) => JSON.stringify(it)).join('\n') + '\n');
  return join(dir, 'x.jsonl');
}

/** One item's line on a batch's stdout. */
export interface BatchLine {
  item: number;
  status: string;
  media_id: string | null;
  post_id: string | null;
  destinations: { destination_id: string; status: string }[];
  error?: string;
  replayed?: boolean;
}

export const batchLines = (stdout: string): BatchLine[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as BatchLine);

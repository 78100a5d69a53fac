/**
 * The exit codes explained in docs/reliability.md are the ones of the
 * generated reference (docs/commands/exit-codes.md, made from src/errors.ts):
 * none missing, none that vidpub does not use.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

/** The codes of the first table in `text` after `heading`, in their order. */
function tableCodes(path: string, heading: string): number[] {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const section = text.split(`\n${heading}\n`)[1];
  expect(section, `${heading} in ${path}`).toBeDefined();
  const rows = section!.split('\n## ')[0]!.match(/^\| (\d+) \|/gm) ?? [];
  return rows.map((r) => Number(/\d+/.exec(r)![0]));
}

describe('exit codes', () => {
  it('docs/reliability.md explains each code of the reference, and no other', () => {
    const reference = tableCodes('docs/commands/exit-codes.md', '# Exit codes');
    expect(reference).toEqual(expect.arrayContaining([0, 2, 9, 130]));
    expect([...tableCodes('docs/reliability.md', '## Exit codes')].sort((a, b) => a - b)).toEqual([...reference].sort((a, b) => a - b));
  });
});

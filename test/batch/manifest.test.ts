import { describe, expect, it } from 'vitest';
import { formatOfPath, parseFormat, parseManifest } from '../../src/batch/manifest.js';
import { canonicalJson, itemKey } from '../../src/batch/keys.js';
import { expectError } from '../support/errors.js';
import { UsageError } from '../../src/errors.js';

describe('batch manifests', () => {
  it('the format follows the extension; --format names one', () => {
    expect(['a.yaml', 'a.YML', 'a.csv', 'a.json', 'a.jsonl', 'a.txt'].map(formatOfPath)).toEqual(['yaml', 'yaml', 'csv', 'json', 'jsonl', undefined]);
    expect(parseFormat('YML')).toBe('yaml');
  });

  it('an unknown --format is refused', async () => {
    const err = await expectError(UsageError, async () => parseFormat('xml'));
    expect(err.message).toBe('unknown --format "xml": give yaml, csv, json or jsonl');
  });

  it('YAML: a bare list works; each item keeps its line; defaults merge option by option, the item winning', async () => {
    const m = await parseManifest('- file: a.mp4\n  to: x\n\n- file: b.mp4\n  to: y\n', 'yaml');
    expect(m.problems).toEqual([]);
    expect(m.items.map((i) => [i.n, i.line])).toEqual([
      [1, 1],
      [2, 4],
    ]);
    const d = await parseManifest('defaults:\n  caption: hi\n  options: { a: 1, b: 2 }\nitems:\n  - file: a.mp4\n    options: { b: 3 }\n', 'yaml');
    expect(d.items[0]!.fields).toMatchObject({ caption: 'hi', options: { a: 1, b: 3 } });
    expect([...d.items[0]!.fromDefaults]).toEqual(['a']);
  });

  it('unknown fields, a default video and a bad top level are problems, with where they are', async () => {
    const m = await parseManifest('defaults:\n  file: x.mp4\nitems:\n  - file: a.mp4\n    colour: red\n', 'yaml');
    expect(m.problems.map((p) => [p.n, p.line, p.message])).toEqual([
      [undefined, undefined, 'defaults may not hold file, url, media or key: each item has its own'],
      [1, 4, 'unknown field "colour" (fields: file, url, media, to, caption, caption_file, captions, options, at, tz, draft, key, force_new, allow_duplicate)'],
    ]);
    const j = await parseManifest('{"items": 3}', 'json');
    expect(j.problems.map((p) => p.message)).toEqual(['"items" must be a list']);
    const bad = await parseManifest('[1, {"file": "a.mp4"}', 'json');
    expect(bad.problems[0]!.message).toMatch(/^not valid JSON: /);
  });

  it('JSON Lines: blank lines skipped, numbers count items, lines count lines; a bad line is a problem', async () => {
    const m = await parseManifest('{"file":"a.mp4"}\n\n[1]\n{"file":"b.mp4"}\n', 'jsonl');
    expect(m.items.map((i) => [i.n, i.line])).toEqual([
      [1, 1],
      [3, 4],
    ]);
    expect(m.problems).toEqual([{ n: 2, line: 3, message: 'each line must be one JSON object (an item)' }]);
  });

  it('CSV: empty cells are absent, option columns become options, draft reads yes/no', async () => {
    const m = await parseManifest('file,to,draft,option:privacy,option:@x:allow_comments\na.mp4,x,yes,SELF_ONLY,\nb.mp4,y,maybe,,false\n', 'csv');
    expect(m.items[0]!.fields).toEqual({ file: 'a.mp4', to: 'x', draft: true, options: { privacy: 'SELF_ONLY' } });
    expect(m.items[1]!.fields).toEqual({ file: 'b.mp4', to: 'y', options: { '@x:allow_comments': 'false' } });
    expect(m.problems).toEqual([{ n: 2, line: 3, message: 'draft must be true or false, not "maybe"' }]);
  });
});

describe('batch keys', () => {
  it('canonical JSON sorts keys at every level and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: undefined }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"f":2}]},"b":1}');
  });
  it('a key depends on the content and the batch key, not on the order of fields', () => {
    expect(itemKey({ a: 1, b: 2 }, 'w')).toBe(itemKey({ b: 2, a: 1 }, 'w'));
    expect(itemKey({ a: 1 }, 'w')).not.toBe(itemKey({ a: 1 }, 'v'));
    expect(itemKey({ a: 1 }, undefined)).toMatch(/^batch-[0-9a-f]{32}$/);
  });
});

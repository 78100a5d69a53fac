/**
 * A user's own fixture (`vidpub emulator --fixture FILE`, or the `fixture`
 * option of startEmulator): read, checked against fixture-schema.ts, and
 * normalized. Every problem is reported at once, one line each naming the
 * file and the field: `my.json: workspaces[0].keys[0].access must be ...`.
 */
import { readUserFile, unreadableFile } from '../util/user-file.js';
import type { Fixture } from './fixture.js';
import { checkReferences, isRecord, pathText } from './fixture-references.js';
import { fixtureSchema } from './fixture-schema.js';

export interface FixtureProblem {
  /** Where, as `workspaces[0].keys[0].access`; empty for the whole file. */
  path: string;
  /** What is wrong there, as `must be "read" or "read_write", got "write"`. */
  message: string;
}

/** A fixture that cannot be used: its message holds one line per problem. */
export class FixtureError extends Error {
  readonly problems: FixtureProblem[];
  constructor(source: string, problems: FixtureProblem[]) {
    super(problems.map((p) => `${source}: ${p.path ? `${p.path} ` : ''}${p.message}`).join('\n'));
    this.name = 'FixtureError';
    this.problems = problems;
  }
}

/** A copy without the comment fields (`_x`, `$x`), at every depth. */
function withoutComments(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutComments);
  if (!isRecord(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([k]) => !k.startsWith('_') && !k.startsWith('$')).map(([k, x]) => [k, withoutComments(x)]));
}

/** Gives each record of `list` the default its position gives it, for a field left out. */
function byPosition(list: unknown, field: string, value: (n: number) => string): void {
  if (!Array.isArray(list)) return;
  list.forEach((x, i) => {
    if (isRecord(x) && x[field] === undefined) x[field] = value(i + 1);
  });
}

/** The file without comments, with the defaults that depend on a record's position: ids, key names. */
function prepared(raw: unknown): unknown {
  const root = withoutComments(raw);
  if (!isRecord(root)) return root;
  byPosition(root.accounts, 'id', (n) => `acct_${n}`);
  byPosition(root.workspaces, 'id', (n) => `ws_${n}`);
  for (const w of Array.isArray(root.workspaces) ? root.workspaces : []) {
    if (!isRecord(w)) continue;
    const ws = String(w.id);
    byPosition(w.keys, 'name', (n) => `Key ${n}`);
    byPosition(w.destinations, 'id', (n) => `dst_${ws}_${n}`);
    byPosition(w.media, 'id', (n) => `med_${ws}_${n}`);
  }
  return root;
}

/** Checks and normalizes a parsed fixture. Throws a FixtureError listing every problem, each as "<source>: <path> <problem>". */
export function validateFixture(raw: unknown, source = 'fixture'): Fixture {
  const input = prepared(raw);
  const result = fixtureSchema().safeParse(input);
  const fields = result.success ? [] : result.error.issues.flatMap((issue): FixtureProblem[] =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((k) => ({ path: pathText([...issue.path, k]), message: issue.message }))
      : [{ path: pathText(issue.path), message: issue.message }]);
  const references = isRecord(input) ? checkReferences(input).map((p) => ({ path: pathText(p.path), message: p.message })) : [];
  if (result.success && references.length === 0) return result.data;
  throw new FixtureError(source, [...fields, ...references]);
}

/** Reads and validates a JSON fixture file. Throws a FixtureError naming the file. */
export async function loadFixtureFile(path: string): Promise<Fixture> {
  let text: string;
  try {
    // Without blocking: a FIFO or a directory in its place is refused at once (src/util/user-file.ts).
    text = (await readUserFile(path)).toString('utf8');
  } catch (err) {
    throw new FixtureError(path, [{ path: '', message: unreadableFile('the fixture', err) }]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new FixtureError(path, [{ path: '', message: `is not valid JSON (${(err as Error).message})` }]);
  }
  return validateFixture(raw, path);
}

/**
 * The rules of a fixture file across its records: an id, a key or an account
 * used once, a workspace's account among `accounts`, and the one-workspace
 * account that `plan` gives a workspace. The checks read the records as parsed
 * so far, so a record with a wrong field still has its id checked: every
 * problem of the file is reported at once.
 */
import type { PlanName } from '../contract/wire-types.js';
import type { Fixture, FixtureAccount, FixtureWorkspace } from './fixture.js';

/** A value as a problem quotes it: JSON, cut at 40 characters. */
export function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/** `workspaces[0].keys[1].access` */
export function pathText(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

type Path = (string | number)[];
export interface ReferenceProblem {
  path: Path;
  message: string;
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The records of a list that are objects, with their index. */
function records(v: unknown): [Record<string, unknown>, number][] {
  return Array.isArray(v) ? v.flatMap((x, i): [Record<string, unknown>, number][] => (isRecord(x) ? [[x, i]] : [])) : [];
}

const implicitAccount = (workspaceId: string): string => `acct_${workspaceId}`;

/**
 * Ids used twice, and each workspace's account: `account` (defined before it) or `plan`, one of
 * them. Reads the file as given (comments dropped, default ids given), whatever else is wrong in it.
 */
export function checkReferences(fixture: Record<string, unknown>): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  const seen = new Map<string, Path>();
  const unique = (kind: string, value: unknown, path: Path): void => {
    if (typeof value !== 'string') return; // its own field's problem
    const first = seen.get(`${kind}:${value}`);
    if (first) problems.push({ path, message: `duplicates ${kind} ${show(value)} already used at ${pathText(first)}` });
    else seen.set(`${kind}:${value}`, path);
  };
  const accounts: string[] = [];
  const accountsListed = fixture.accounts === undefined || Array.isArray(fixture.accounts); // else that is the problem
  for (const [a, i] of records(fixture.accounts)) {
    unique('account id', a.id, ['accounts', i, 'id']);
    if (typeof a.id === 'string') accounts.push(a.id);
  }
  for (const [w, wi] of records(fixture.workspaces)) {
    const at: Path = ['workspaces', wi];
    unique('workspace id', w.id, [...at, 'id']);
    if (w.account !== undefined && w.plan !== undefined) {
      problems.push({ path: at, message: 'must have either "account" (an id from accounts) or "plan", not both' });
    } else if (w.account === undefined && w.plan === undefined) {
      problems.push({ path: at, message: 'needs "account" (an id from accounts) or "plan" ("free", "standard" or "studio")' });
    }
    if (typeof w.account === 'string' && w.account.trim() !== '' && accountsListed && !accounts.includes(w.account)) {
      const ids = accounts.map((id) => `"${id}"`).join(', ') || 'none defined';
      problems.push({ path: [...at, 'account'], message: `must be the id of an entry of accounts (${ids}), got ${show(w.account)}` });
    } else if (w.account === undefined && w.plan !== undefined && typeof w.id === 'string') {
      unique('account id', implicitAccount(w.id), [...at, 'plan']);
      accounts.push(implicitAccount(w.id));
    }
    for (const [k, ki] of records(w.keys)) unique('key', k.key, [...at, 'keys', ki, 'key']);
    for (const [d, di] of records(w.destinations)) unique('destination id', d.id, [...at, 'destinations', di, 'id']);
    for (const [m, mi] of records(w.media)) unique('media id', m.id, [...at, 'media', mi, 'id']);
    problems.push(...postReferences(w, at));
  }
  return problems;
}

type ParsedWorkspace = Omit<FixtureWorkspace, 'account'> & { account?: string; plan?: PlanName };

/** The fixture with an account of its own for each workspace given a `plan`, after the accounts listed. */
export function withImplicitAccounts(parsed: { accounts: FixtureAccount[]; workspaces: ParsedWorkspace[] }): Fixture {
  const accounts = [...parsed.accounts];
  const workspaces = parsed.workspaces.map(({ plan, account, ...w }): FixtureWorkspace => {
    if (account !== undefined || plan === undefined) return { ...w, account: account! };
    accounts.push({ id: implicitAccount(w.id), name: w.name, plan });
    return { ...w, account: implicitAccount(w.id) };
  });
  return { accounts, workspaces };
}

/** A post's video and destinations are the workspace's own. */
function postReferences(w: Record<string, unknown>, at: Path): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  const ids = (list: unknown) => records(list).map(([x]) => x.id);
  const media = ids(w.media);
  const destinations = ids(w.destinations);
  for (const [p, pi] of records(w.posts)) {
    if (typeof p.media_id === 'string' && !media.includes(p.media_id)) {
      problems.push({ path: [...at, 'posts', pi, 'media_id'], message: `must be the id of an entry of the workspace's media, got ${show(p.media_id)}` });
    }
    for (const [d, di] of records(p.destinations)) {
      if (typeof d.destination_id === 'string' && !destinations.includes(d.destination_id)) {
        problems.push({ path: [...at, 'posts', pi, 'destinations', di, 'destination_id'], message: `must be the id of one of the workspace's destinations, got ${show(d.destination_id)}` });
      }
    }
  }
  return problems;
}

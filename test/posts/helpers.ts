/**
 * Helpers of the posting tests: a Prompter that answers from a script and
 * records what was asked (an Error in the script is thrown from that prompt).
 */
import { expect } from 'vitest';
import { UsageError } from '../../src/errors.js';
import type { Choice, Prompter } from '../../src/cli/context.js';

export interface Asked {
  kind: 'select' | 'confirm' | 'input' | 'password';
  message: string;
  choices?: Choice<unknown>[];
  default?: unknown;
}

export function scriptedPrompter(answers: unknown[]): { prompter: Prompter; asked: Asked[] } {
  const asked: Asked[] = [];
  const answer = <T>(q: Asked): Promise<T> => {
    asked.push(q);
    if (answers.length === 0) return Promise.reject(new Error(`test: no answer left for "${q.message}"`));
    const a = answers.shift();
    return a instanceof Error ? Promise.reject(a) : Promise.resolve(a as T);
  };
  const prompter: Prompter = {
    password: (o) => answer({ kind: 'password', message: o.message }),
    confirm: (o) => answer({ kind: 'confirm', message: o.message, default: o.default }),
    input: (o) => answer({ kind: 'input', message: o.message, default: o.default }),
    select: (o) => answer({ kind: 'select', message: o.message, choices: o.choices as Choice<unknown>[], default: o.default }),
  };
  return { prompter, asked };
}

/** Runs `fn`, expects it to throw a UsageError (exit 2), and returns it. */
export function expectUsageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError');
}

/** Minimal view of the emulator fixture the posting tests use (test/helpers/emulator.ts). */
interface Emu {
  baseUrl: string;
  key(workspace?: string, access?: 'read' | 'read_write'): string;
  advance(seconds: number): Promise<void>;
  admin(method: string, path: string, body?: unknown): Promise<unknown>;
}

/** A request straight to the emulated service (not through vidpub), for setting up a test. */
export async function api<T = Record<string, unknown>>(emu: Emu, method: string, path: string, body?: unknown, workspace = 'Demo'): Promise<{ status: number; body: T }> {
  const res = await fetch(emu.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${emu.key(workspace)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/**
 * Spends the Demo account's whole daily post allowance (Standard: 30, shared
 * by the Demo and Demo Second workspaces) with direct API calls, 20 + 10 to
 * stay under each key's 20 writes a minute, moving the emulator clock a
 * minute on before and after so the per-minute counters start afresh.
 */
export async function exhaustDailyAllowance(emu: Emu): Promise<void> {
  const spend = async (workspace: string, media: string, destination: string, n: number) => {
    for (let i = 0; i < n; i++) {
      const r = await api(emu, 'POST', '/posts', { media_id: media, caption: `filler ${i}`, destinations: [{ destination_id: destination }], publish_at: 'now' }, workspace);
      if (r.status !== 201) throw new Error(`filler post ${workspace} ${i}: ${r.status} ${JSON.stringify(r.body)}`);
    }
  };
  // Close to midnight UTC the allowance would reset under the test: start just after it instead.
  const { now } = (await emu.admin('GET', '/clock')) as { now: string };
  const toMidnight = 86_400 - ((Date.parse(now) / 1000) % 86_400);
  if (toMidnight < 600) await emu.advance(Math.ceil(toMidnight) + 5);
  await emu.advance(61); // writes made before this minute do not count
  await spend('Demo', 'med_demo_sample', 'dst_demo_linkedin', 20);
  await spend('Demo Second', 'med_second_sample', 'dst_second_youtube', 10);
  const last = await api(emu, 'POST', '/posts', { media_id: 'med_second_sample', caption: 'x', destinations: [{ destination_id: 'dst_second_youtube' }], publish_at: 'now' }, 'Demo Second');
  expect(last.status).toBe(429);
  await emu.advance(61);
}

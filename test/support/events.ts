/**
 * The events' JSON Schema as committed (docs/commands/events.schema.json), compiled by ajv: every
 * event a test sees is checked against it (expectEvents), so an event the schema does not
 * describe fails the test that produced it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { ROOT } from './build.js';
import { waitFor } from './poll.js';
import type { VidpubEvent } from '../../src/events/event.js';

export const SCHEMA_PATH = join(ROOT, 'docs', 'commands', 'events.schema.json');

let compiled: ReturnType<Ajv2020['compile']> | undefined;

function validator(): ReturnType<Ajv2020['compile']> {
  compiled ??= new Ajv2020({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object);
  return compiled;
}

/** The ajv errors of `doc` against the schema ([] when it is a valid event). */
export function eventErrors(doc: unknown): string[] {
  const validate = validator();
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

/** Parses JSON lines of events, failing the test on a line that is not a valid event. */
export function expectEvents(text: string): VidpubEvent[] {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return lines.map((line) => {
    const doc = JSON.parse(line) as unknown;
    expect(eventErrors(doc), line).toEqual([]);
    return doc as VidpubEvent;
  });
}

/** Until the service has finished publishing each of `ids` (its clock moved past them): what watch then reads is their end. */
export async function publishedAtService(rest: { get(path: string): Promise<{ body: unknown }> }, ids: string[]): Promise<void> {
  for (const id of ids) {
    await waitFor(
      async () => ((await rest.get(`/posts/${id}`)).body as { status?: string }).status,
      (s) => s === 'completed',
    );
  }
}

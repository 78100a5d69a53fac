/**
 * The event model (src/events/): the committed JSON Schema is the one generated from the code,
 * ajv takes it in strict mode, the emitter's events validate against it, an event the schema
 * does not describe is refused, and an event's id is the same for the same change on every run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEmitter, eventId, stampEvent } from '../../src/events/event.js';
import { EVENT_TYPES, eventJsonSchema } from '../../src/events/event-schema.js';
import { SCHEMA_PATH, eventErrors } from '../support/events.js';

describe('the event model', () => {
  it('the committed schema is the one generated from the code (npm run docs:gen)', () => {
    expect(readFileSync(SCHEMA_PATH, 'utf8')).toBe(eventJsonSchema());
  });

  it('stamps v, id, at, profile and workspace; every type validates', () => {
    const seen: unknown[] = [];
    const emitter = createEmitter({ profile: 'default', workspace: () => 'Demo', clock: { now: () => Date.UTC(2026, 10, 29, 9) }, sink: (e) => seen.push(e) });
    for (const type of EVENT_TYPES) emitter.emit({ type, post_id: 'post_1', destination_id: 'dst_1', status: 'published', url: 'https://x.test/1' });
    expect(seen).toHaveLength(EVENT_TYPES.length);
    for (const e of seen) expect(eventErrors(e)).toEqual([]);
    expect(seen[0]).toMatchObject({ v: 1, type: 'media.uploading', at: '2026-11-29T09:00:00.000Z', profile: 'default', workspace: 'Demo' });
  });

  it('refuses what is not an event: an unknown type, a missing id, an unknown field', () => {
    const good = stampEvent({ type: 'post.completed', post_id: 'post_1' }, { profile: 'p', now: 0 });
    expect(eventErrors(good)).toEqual([]);
    expect(eventErrors({ ...good, type: 'post.exploded' }).join()).toMatch(/\/type must be equal to one of the allowed values/);
    const { id: _id, ...noId } = good;
    expect(eventErrors(noId).join()).toMatch(/must have required property 'id'/);
    expect(eventErrors({ ...good, key: 'vp_live_x' }).join()).toMatch(/must NOT have additional properties/);
  });

  it("the same change has the same id on every run; progress events are each new; a sink that throws stops nothing", () => {
    const a = eventId('p', { type: 'post.destination.failed', post_id: 'post_1', destination_id: 'dst_1' });
    expect(eventId('p', { type: 'post.destination.failed', post_id: 'post_1', destination_id: 'dst_1' })).toBe(a);
    expect(eventId('p', { type: 'post.destination.failed', post_id: 'post_1', destination_id: 'dst_2' })).not.toBe(a);
    expect(eventId('other', { type: 'post.destination.failed', post_id: 'post_1', destination_id: 'dst_1' })).not.toBe(a);
    expect(eventId('p', { type: 'media.uploading', media_id: 'med_1' })).not.toBe(eventId('p', { type: 'media.uploading', media_id: 'med_1' }));
    const emitter = createEmitter({ profile: 'p', clock: { now: () => 0 }, sink: () => { throw Object.assign(new Error('EPIPE'), { code: 'EPIPE' }); } });
    expect(emitter.emit({ type: 'post.created', post_id: 'post_1' }).type).toBe('post.created');
  });
});

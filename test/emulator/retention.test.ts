/**
 * The emulator's state stays bounded: finished records beyond the retention
 * limit are dropped, oldest first; fixture records, unfinished records and
 * videos that an unfinished post uses are kept.
 */
import { describe, expect, test } from 'vitest';
import { defaultFixture } from '../../src/emulator/default-fixture.js';
import { RETAINED_FINISHED_RECORDS, RetainedRecords, State, type MediaState, type PostState } from '../../src/emulator/state.js';

function media(id: string, status: MediaState['status']): MediaState {
  return {
    id, workspaceId: 'ws_demo', status, filename: `${id}.mp4`, content_type: 'video/mp4', size_bytes: 16, source: 'upload', phase: null, percent: 100,
    receivedBytes: 16, bytesComplete: true, error: null, duration_sec: 1, created_at: '2030-01-01T00:00:00Z', upload: null, importUrl: null,
  };
}

function post(id: string, mediaId: string, status: PostState['status']): PostState {
  return { id, workspaceId: 'ws_demo', status, caption: '', media_id: mediaId, publish_at: null, dueAtMs: null, issues: [], destinations: [], created_at: '2030-01-01T00:00:00Z', counted: false };
}

describe('retention of finished records', () => {
  test('the default limit is 1,000 finished records per workspace and kind', () => {
    expect(RETAINED_FINISHED_RECORDS).toBe(1000);
  });

  test('beyond the limit the oldest finished records go; unfinished ones stay, whatever their age', () => {
    const m = new RetainedRecords<{ done: boolean }>(() => (v) => v.done, 100);
    m.set('old-unfinished', { done: false });
    for (let i = 0; i < 1000; i++) m.set(`r${i}`, { done: true });
    const finished = [...m.values()].filter((v) => v.done).length;
    expect(finished).toBeGreaterThanOrEqual(100);
    expect(finished).toBeLessThanOrEqual(110);
    expect(m.has('old-unfinished')).toBe(true);
    expect(m.has('r0')).toBe(false);
    expect(m.has('r999')).toBe(true);
    expect(m.dropped).toBe(1000 - finished);
  });

  test('a record set again (an update) does not count as new', () => {
    const m = new RetainedRecords<{ done: boolean }>(() => (v) => v.done, 10);
    for (let i = 0; i < 10; i++) m.set(`r${i}`, { done: true });
    for (let k = 0; k < 100; k++) m.set('r0', { done: true });
    expect(m.size).toBe(10);
    expect(m.dropped).toBe(0);
  });

  test('in a workspace: fixture videos, processing videos and videos of unfinished posts are kept; completed posts beyond the limit go', () => {
    const state = new State(defaultFixture(), 20);
    const ws = state.workspace('ws_demo');
    const fixtureIds = [...ws.media.keys()];
    ws.media.set('med_processing', media('med_processing', 'processing'));
    ws.media.set('med_drafted', media('med_drafted', 'ready'));
    ws.posts.set('post_draft', post('post_draft', 'med_drafted', 'draft'));
    for (let i = 0; i < 200; i++) {
      ws.media.set(`med_${i}`, media(`med_${i}`, i % 2 ? 'ready' : 'failed'));
      ws.posts.set(`post_${i}`, post(`post_${i}`, `med_${i}`, 'completed'));
    }
    for (const id of fixtureIds) expect(ws.media.has(id)).toBe(true);
    expect(ws.media.has('med_processing')).toBe(true);
    expect(ws.media.has('med_drafted')).toBe(true);
    expect(ws.posts.has('post_draft')).toBe(true);
    expect(ws.media.has('med_0')).toBe(false);
    expect(ws.media.has('med_199')).toBe(true);
    expect(ws.posts.has('post_0')).toBe(false);
    expect(ws.posts.has('post_199')).toBe(true);
    // At most the limit plus one pruning step (a tenth of it, at least 10) of finished records.
    expect(ws.media.size).toBeLessThanOrEqual(fixtureIds.length + 2 + 20 + 10);
    expect(ws.posts.size).toBeLessThanOrEqual(1 + 20 + 10);
  });
});

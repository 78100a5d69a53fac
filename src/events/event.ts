/**
 * One event model for every flow: what vidpub saw happen to a video, a post or
 * one of its destinations, as one JSON object (its schema: ./event-schema.ts).
 * A flow says what happened (EventInput) to the Session's emitter; the emitter
 * stamps it (v, id, at, profile, workspace) and hands it to its sink: --events
 * lines on stdout, `vidpub watch`'s report, an MCP progress notification.
 */
import type { Clock } from '../core/clock.js';
import { nodeCrypto } from '../util/lazy-builtins.js';
import type { EventShape } from './event-schema.js';

export type VidpubEvent = EventShape;
export type EventType = VidpubEvent['type'];

/** What a flow says: the type, the ids it concerns, what is known. The emitter fills in the rest. */
export type EventInput = Omit<VidpubEvent, 'v' | 'id' | 'at' | 'profile' | 'workspace'>;

export interface EventEmitter {
  /** Stamps `e` and hands it on; never throws (a reader that went away does not stop the work). */
  emit(e: EventInput): VidpubEvent;
}

/**
 * The id of an event: the same change of the same thing (the type, the video, the post, the destination) gets the same
 * id on every run and every machine of the profile, so that a receiver (and `watch --once`) drops a repeat. Progress
 * events (media.uploading, media.processing) are each new.
 */
export function eventId(profile: string, e: Pick<EventInput, 'type' | 'media_id' | 'post_id' | 'destination_id'>): string {
  if (e.type === 'media.uploading' || e.type === 'media.processing') return `evt_${nodeCrypto().randomBytes(10).toString('hex')}`;
  const key = [profile, e.type, e.media_id ?? '', e.post_id ?? '', e.destination_id ?? ''].join('\n');
  return `evt_${nodeCrypto().createHash('sha256').update(key).digest('hex').slice(0, 20)}`;
}

/** Stamps an event as `profile` (in `workspace` when known) sees it at the clock's time. */
export function stampEvent(e: EventInput, ctx: { profile: string; workspace?: string; now: number }): VidpubEvent {
  const out: VidpubEvent = { v: 1, id: eventId(ctx.profile, e), type: e.type, at: new Date(ctx.now).toISOString(), profile: ctx.profile };
  if (ctx.workspace !== undefined) out.workspace = ctx.workspace;
  for (const [k, v] of Object.entries(e)) if (v !== undefined && k !== 'type') (out as Record<string, unknown>)[k] = v;
  return out;
}

/** An emitter that stamps each event and gives it to `sink` (whose failures are its own), each change once. */
export function createEmitter(opts: { profile: string; workspace?: () => string | undefined; clock: Pick<Clock, 'now'>; sink(e: VidpubEvent): void }): EventEmitter {
  // A change told twice in one run (each look at a post tells all it sees) is handed on once.
  const told = new Set<string>();
  return {
    emit(e) {
      const event = stampEvent(e, { profile: opts.profile, workspace: opts.workspace?.(), now: opts.clock.now() });
      if (told.has(event.id)) return event;
      told.add(event.id);
      try {
        opts.sink(event);
      } catch {
        // the sink's reader went away: the work goes on
      }
      return event;
    },
  };
}

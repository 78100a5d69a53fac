/**
 * What an event is, as a zod schema: the one definition the TypeScript type
 * (VidpubEvent, ./event.ts) is inferred from and the JSON Schema published in
 * docs/commands/events.schema.json is generated from (eventJsonSchema, by
 * `npm run docs:gen`). Loaded by the generator and the tests, never by a
 * command: a flow imports only the type.
 */
import { z } from 'zod';

/** Every type of event, in the order a run meets them. */
export const EVENT_TYPES = [
  'media.uploading',
  'media.processing',
  'media.ready',
  'media.failed',
  'post.created',
  'post.scheduled',
  'post.publishing',
  'post.destination.published',
  'post.destination.failed',
  'post.destination.cancelled',
  'post.completed',
  'post.failed',
] as const;

const notice = z.object({ code: z.string(), message: z.string() }).strict();

export const eventSchema = z
  .object({
    v: z.literal(1).describe('Version of the event format.'),
    id: z.string().regex(/^evt_[0-9a-f]{20}$/).describe('Unique id: the same change of the same thing always has the same id, so a receiver can drop a repeat.'),
    type: z.enum(EVENT_TYPES),
    at: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/).describe('When vidpub saw it (ISO 8601, UTC).'),
    profile: z.string().describe('The vidpub profile whose key saw it.'),
    workspace: z.string().optional().describe("The key's workspace, when known."),
    media_id: z.string().optional(),
    post_id: z.string().optional(),
    destination_id: z.string().optional(),
    destination: z.string().optional().describe('The destination\'s name: "@handle (platform)".'),
    status: z.string().optional().describe("The video's, post's or destination's status at the service."),
    url: z.string().optional().describe('Where a published destination can be seen.'),
    warning: notice.optional(),
    failure: notice.optional(),
    progress: z.number().min(0).max(100).optional().describe('Percent done (media.uploading, media.processing).'),
    publish_at: z.string().nullable().optional().describe("The post's publication time (post.scheduled, post.created)."),
  })
  .strict();

export type EventShape = z.infer<typeof eventSchema>;

/** The JSON Schema of an event (draft 2020-12), as text with a trailing newline. */
export function eventJsonSchema(): string {
  const schema = {
    $id: 'https://vidpub.dev/schemas/event-v1.json',
    title: 'vidpub event',
    description: 'One event of vidpub --events, vidpub watch --json, a --exec hook\'s stdin and a --forward-to webhook\'s body.',
    ...z.toJSONSchema(eventSchema, { target: 'draft-2020-12' }),
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

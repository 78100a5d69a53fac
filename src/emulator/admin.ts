/**
 * Test controls under /_emulator (no key needed): request log, clock,
 * faults, reset, settings, state summary, destination status, web-app
 * cancel, and the page behind a published url (the web app, review_url's
 * page included, is registered by webapp/routes.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { EmulatorStartInfo } from '../contract/wire-types.js';
import type { Core } from './core.js';
import { ServiceError, errorBody } from './service-errors.js';
import { cancelPost, releaseDuePosts } from './posting.js';
import { postRecord } from './records.js';
import { esc as escapeHtml, page, raw } from './webapp/html.js';
import { asObject, parseJsonBody } from './validate.js';

export const ADMIN_PREFIX = '/_emulator';

function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof ServiceError) return reply.code(err.status).send(err.toBody());
  throw err;
}

function readJson(body: unknown, contentType: string | undefined): unknown {
  return parseJsonBody(typeof body === 'string' ? body : '', contentType ?? 'application/json');
}

const invalid = (message: string, param?: string): ServiceError =>
  new ServiceError(400, 'invalid_field', message, param === undefined ? {} : { param });

function nonNegInt(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || !Number.isInteger(v)) throw invalid(`${name} must be a whole number of at least 0.`, name);
  return v;
}


/** Checks `options` of POST /_emulator/destinations/{id}: a list of changes to options the destination has. */
function optionChanges(raw: unknown, keys: string[]): { key: string; set: Record<string, unknown> }[] {
  if (!Array.isArray(raw)) throw invalid('options must be an array of {"key", "values", "default", "required"}.', 'options');
  return raw.map((entry, i) => {
    const at = `options[${i}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw invalid(`${at} must be an object {"key", "values", "default", "required"}.`, at);
    const e = entry as Record<string, unknown>;
    if (typeof e.key !== 'string' || !keys.includes(e.key)) throw invalid(`${at}.key must name an option of the destination (${keys.join(', ')}).`, `${at}.key`);
    const set: Record<string, unknown> = {};
    if (e.values !== undefined) {
      const ok = e.values === null || (Array.isArray(e.values) && e.values.every((v) => typeof v === 'string' || typeof v === 'boolean'));
      if (!ok) throw invalid(`${at}.values must be null or an array of strings or booleans.`, `${at}.values`);
      set.values = e.values;
    }
    if (e.default !== undefined) {
      if (e.default !== null && typeof e.default !== 'string' && typeof e.default !== 'boolean') throw invalid(`${at}.default must be a string, a boolean or null.`, `${at}.default`);
      set.default = e.default;
    }
    if (e.required !== undefined) {
      if (typeof e.required !== 'boolean') throw invalid(`${at}.required must be true or false.`, `${at}.required`);
      set.required = e.required;
    }
    return { key: e.key, set };
  });
}

export function registerAdmin(app: FastifyInstance, core: Core, info: () => EmulatorStartInfo): void {
  app.get(ADMIN_PREFIX, async () => ({
    ...info(),
    controls: [
      'GET /_emulator/requests', 'DELETE /_emulator/requests',
      'GET /_emulator/clock', 'POST /_emulator/clock {"advance_sec": N}',
      'GET /_emulator/faults', 'POST /_emulator/faults {...}', 'DELETE /_emulator/faults',
      'POST /_emulator/reset', 'GET /_emulator/state',
      'GET /_emulator/settings', 'POST /_emulator/settings {"processing_ms", "publish_ms", "upload_link_ttl_sec"}',
      'POST /_emulator/destinations/{id} {"status": "active" | "disconnected" | "expired", "options": [{"key", "values", "default", "required"}]}',
      'DELETE /_emulator/destinations/{id}',
      'POST /_emulator/posts/{id}/cancel',
    ],
  }));

  // ---------------------------------------------------------------- request log
  app.get(`${ADMIN_PREFIX}/requests`, async () => core.log.entries());
  app.delete(`${ADMIN_PREFIX}/requests`, async () => {
    core.log.clear();
    return { cleared: true };
  });

  // ---------------------------------------------------------------- clock
  const clockBody = () => ({ now: core.clock.iso(), offset_sec: core.clock.offsetSec });
  app.get(`${ADMIN_PREFIX}/clock`, async () => clockBody());
  app.post(`${ADMIN_PREFIX}/clock`, async (req, reply) => {
    try {
      const o = asObject(readJson(req.body, req.headers['content-type']));
      const n = o.advance_sec;
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > 10 * 365 * 86_400) {
        throw invalid('advance_sec must be a number of seconds from 0 to 315360000 (the clock only moves forward).', 'advance_sec');
      }
      const target = core.clock.now() + n * 1000;
      let released = 0;
      for (const ws of core.state.workspaces.values()) {
        for (const p of ws.posts.values()) if (p.status === 'scheduled' && p.dueAtMs !== null && p.dueAtMs <= target) released++;
      }
      core.clock.advance(n); // releases the scheduled posts that became due (listener)
      releaseDuePosts(core);
      return { ...clockBody(), released_posts: released };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  // ---------------------------------------------------------------- faults
  app.get(`${ADMIN_PREFIX}/faults`, async () => core.faults.list());
  app.post(`${ADMIN_PREFIX}/faults`, async (req, reply) => {
    try {
      const body = readJson(req.body, req.headers['content-type']);
      const specs = Array.isArray(body) ? body : [body];
      if (specs.length === 0) throw invalid('Send one fault object or an array of them.');
      core.faults.checkRoom(specs.length); // all or nothing when the list would overflow
      const added = specs.map((s) => core.faults.add(s));
      return reply.code(201).send({ added, faults: core.faults.list() });
    } catch (err) {
      return sendError(reply, err);
    }
  });
  app.delete(`${ADMIN_PREFIX}/faults`, async () => {
    core.faults.clear();
    return { faults: core.faults.list() };
  });

  // ---------------------------------------------------------------- reset, settings, state
  app.post(`${ADMIN_PREFIX}/reset`, async () => {
    core.reset();
    return { reset: true, now: core.clock.iso() };
  });

  const settingsBody = () => ({
    processing_ms: core.settings.processingMs,
    publish_ms: core.settings.publishMs,
    upload_link_ttl_sec: core.settings.uploadLinkTtlSec,
  });
  app.get(`${ADMIN_PREFIX}/settings`, async () => settingsBody());
  app.post(`${ADMIN_PREFIX}/settings`, async (req, reply) => {
    try {
      const o = asObject(readJson(req.body, req.headers['content-type']));
      const known = ['processing_ms', 'publish_ms', 'upload_link_ttl_sec'];
      for (const k of Object.keys(o)) if (!known.includes(k)) throw invalid(`Unknown setting "${k}" (known: ${known.join(', ')}).`, k);
      if (o.processing_ms !== undefined) core.settings.processingMs = nonNegInt(o.processing_ms, 'processing_ms');
      if (o.publish_ms !== undefined) core.settings.publishMs = nonNegInt(o.publish_ms, 'publish_ms');
      if (o.upload_link_ttl_sec !== undefined) core.settings.uploadLinkTtlSec = nonNegInt(o.upload_link_ttl_sec, 'upload_link_ttl_sec');
      return settingsBody();
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get(`${ADMIN_PREFIX}/state`, async () => {
    const workspaces = [...core.state.workspaces.values()].map((ws) => {
      const media: Record<string, number> = { total: ws.media.size, uploading: 0, processing: 0, ready: 0, failed: 0, imports_downloading: 0, uploads_receiving: 0 };
      for (const m of ws.media.values()) {
        media[m.status] = (media[m.status] ?? 0) + 1;
        if (m.source === 'import' && m.status === 'uploading') media.imports_downloading! += 1;
        if (m.upload?.state === 'receiving') media.uploads_receiving! += 1;
      }
      const posts: Record<string, number> = { total: ws.posts.size, draft: 0, scheduled: 0, publishing: 0, completed: 0 };
      for (const p of ws.posts.values()) posts[p.status] = (posts[p.status] ?? 0) + 1;
      const daily = core.limits.daily(ws);
      return {
        id: ws.id,
        name: ws.name,
        account: ws.account.id,
        plan: ws.account.plan,
        media,
        posts,
        posts_today: core.limits.postsToday(ws),
        api_posts_per_day: { limit: daily.limit, used: daily.used, remaining: daily.remaining, scope: daily.scope },
        post_ids: [...ws.posts.keys()],
        media_ids: [...ws.media.keys()],
      };
    });
    return { ...clockBody(), settings: settingsBody(), workspaces, requests_logged: core.log.length, background_timers: core.timers.size };
  });

  // ---------------------------------------------------------------- destinations and posts
  const findDestination = (id: string) => {
    for (const ws of core.state.workspaces.values()) {
      const d = ws.destinations.get(id);
      if (d) return { ws, d };
    }
    throw new ServiceError(404, 'not_found', `No destination with id "${id}".`);
  };

  // What the web app changes on a connected account: its status, and the
  // options it takes (the values of an option, its default, whether it is required).
  app.post<{ Params: { id: string } }>(`${ADMIN_PREFIX}/destinations/:id`, async (req, reply) => {
    try {
      const o = asObject(readJson(req.body, req.headers['content-type']));
      const status = o.status;
      if (status === undefined && o.options === undefined) throw invalid('Send "status", "options" or both.');
      if (status !== undefined && status !== 'active' && status !== 'disconnected' && status !== 'expired') {
        throw invalid('status must be "active", "disconnected" or "expired".', 'status');
      }
      const { ws, d } = findDestination(req.params.id);
      const changes = o.options === undefined ? [] : optionChanges(o.options, d.options.map((x) => x.key));
      if (status !== undefined) d.status = status;
      for (const c of changes) Object.assign(d.options.find((x) => x.key === c.key)!, c.set);
      return { id: d.id, workspace: ws.id, status: d.status, ...(changes.length > 0 ? { options: d.options.map((x) => ({ ...x })) } : {}) };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  // The account removed in the web app: GET /v1/destinations no longer lists it, a post naming it is 404.
  app.delete<{ Params: { id: string } }>(`${ADMIN_PREFIX}/destinations/:id`, async (req, reply) => {
    try {
      const { ws, d } = findDestination(req.params.id);
      ws.destinations.delete(d.id);
      return { id: d.id, workspace: ws.id, removed: true };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.post<{ Params: { id: string } }>(`${ADMIN_PREFIX}/posts/:id/cancel`, async (req, reply) => {
    const post = core.state.findPost(req.params.id);
    if (!post) return reply.code(404).send(errorBody('not_found', 'not_found', `No post with id "${req.params.id}".`));
    cancelPost(post);
    return postRecord(post, core.origin);
  });

  // ---------------------------------------------------------------- the page behind a published url (the web app is in webapp/)
  app.get<{ Params: { postId: string; destinationId: string } }>(`${ADMIN_PREFIX}/published/:postId/:destinationId`, async (req, reply) => {
    const post = core.state.findPost(req.params.postId);
    const pd = post?.destinations.find((d) => d.destination_id === req.params.destinationId);
    reply.type('text/html; charset=utf-8');
    if (!post || !pd || pd.status !== 'published') return reply.code(404).send(page('Not published', raw('<p>Nothing was published here.</p>')));
    const d = core.state.workspace(post.workspaceId).destinations.get(pd.destination_id);
    return page(`Published on ${d?.platform ?? 'the platform'} as ${d?.handle ?? pd.destination_id}`, raw(`<p>${escapeHtml(post.caption || '(no caption)')}</p><p>Video: ${escapeHtml(post.media_id)}</p>`));
  });
}

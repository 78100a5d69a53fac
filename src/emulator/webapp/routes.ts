/**
 * The web app's routes, under /_emulator beside the test controls (and, like
 * them, answering loopback peers only; server.ts): the workspace page, the
 * review page behind review_url, the video's bytes, and the actions, each a
 * form POST checked by the guard, done by the service layer's own functions
 * (posts.ts, posting.ts) as the web app (no daily allowance spent), then a
 * redirect to the page that shows the outcome.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Core } from '../core.js';
import { cancelPost, retryDestination } from '../posting.js';
import { createPostIn, editDraft, publishPostIn, refreshIssues, type DraftEdit } from '../posts.js';
import { ServiceError } from '../service-errors.js';
import { webPublishAt } from './publish-at.js';
import type { PostState } from '../state.js';
import { Guard, PAGE_HEADERS, TOKEN_FIELD } from './guard.js';
import { h, page } from './html.js';
import { APP_PATH, REVIEW_PATH, reviewPage, reviewPath, type Flash } from './review-page.js';
import { serveVideo } from './video.js';
import { workspacePage } from './workspace-page.js';

/** What the page says after an action (by a fixed word in the redirect, never text from the request). */
const DONE: Record<string, string> = {
  saved: 'Draft saved.',
  published: 'Publishing started. The web app spent none of the daily API allowance.',
  scheduled: 'Scheduled. The web app spent none of the daily API allowance.',
  cancelled: 'Cancelled.',
  retried: 'Sent again.',
  draft: 'Draft made. Choose its options here, then publish it here or with vidpub publish.',
};

type Params = { Params: { id: string } };

/** An entry of a table by a name from the request (never one of Object's own properties). */
const entry = <T>(table: Record<string, T>, name: unknown): T | undefined => (typeof name === 'string' && Object.hasOwn(table, name) ? table[name] : undefined);

const doneOf = (req: FastifyRequest): Flash => {
  const ok = entry(DONE, (req.query as Record<string, unknown>).done);
  return ok ? { ok } : {};
};

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);
}

function refused(reply: FastifyReply, why: string): FastifyReply {
  return html(reply, 403, page('Refused', h`<p class="box alert" role="alert">${why}</p>`));
}

/** The fields of a form POST (application/x-www-form-urlencoded), or null for another body. */
function formFields(req: FastifyRequest): URLSearchParams | null {
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return null;
  return new URLSearchParams(typeof req.body === 'string' ? req.body : '');
}

/** A textarea's text as typed (browsers send its line breaks as CRLF). */
const text = (v: string | null): string | undefined => (v === null ? undefined : v.replace(/\r\n?/g, '\n'));

/** The edit form: caption, and `option.<destination id>.<key>` fields ('' unsets; yes/no fields are booleans). */
function draftEdit(core: Core, post: PostState, f: URLSearchParams): DraftEdit {
  const ws = core.state.workspace(post.workspaceId);
  const options: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of f) {
    if (!name.startsWith('option.')) continue;
    const dot = name.lastIndexOf('.');
    const destinationId = name.slice('option.'.length, dot);
    const key = name.slice(dot + 1);
    const o = ws.destinations.get(destinationId)?.options.find((x) => x.key === key);
    const v: unknown = value === '' ? null : o?.type === 'boolean' && (value === 'true' || value === 'false') ? value === 'true' : value;
    (options[destinationId] ??= {})[key] = v;
  }
  return { caption: text(f.get('caption')), options };
}

export function registerWebApp(app: FastifyInstance, core: Core): void {
  const guard = new Guard(core.secret, () => core.origin);

  const showReview = (req: FastifyRequest, reply: FastifyReply, post: PostState, flash: Flash, status = 200): FastifyReply => {
    const ws = core.state.workspace(post.workspaceId);
    if (post.status === 'draft' || post.status === 'scheduled') refreshIssues(ws, post);
    return html(reply, status, reviewPage(core, post, guard.session(req, reply), flash));
  };

  app.get(APP_PATH, async (req, reply) => {
    const why = guard.refuseHost(req);
    if (why) return refused(reply, why);
    return html(reply, 200, workspacePage(core, guard.session(req, reply), doneOf(req)));
  });

  app.get<Params>(`${REVIEW_PATH}/:id`, async (req, reply) => {
    const why = guard.refuseHost(req);
    if (why) return refused(reply, why);
    const post = core.state.findPost(req.params.id);
    if (!post) return html(reply, 404, page('Post not found', h`<p>No post ${req.params.id}: it was never made, or the emulator was reset or dropped it.</p><p><a href="${APP_PATH}">See the workspaces</a></p>`));
    return showReview(req, reply, post, doneOf(req));
  });

  app.get<Params>(`${APP_PATH}/videos/:id`, async (req, reply) => {
    const why = guard.refuseHost(req);
    if (why) return refused(reply, why);
    const media = core.state.findMedia(req.params.id);
    const bytes = media && core.videos.get(media.id);
    if (!media || !bytes) return html(reply, 404, page('No video', h`<p>The emulator keeps no bytes of a video ${req.params.id}.</p>`));
    return serveVideo(req, reply, bytes, media.content_type);
  });

  const actions: Record<string, (post: PostState, f: URLSearchParams) => string> = {
    // Saved first, then published or scheduled as the button said: "Publish now" takes what the form holds.
    edit: (post, f) => {
      const ws = core.state.workspace(post.workspaceId);
      editDraft(ws, post.id, draftEdit(core, post, f));
      const then = f.get('then');
      if (then !== 'now' && then !== 'schedule') return 'saved';
      publishPostIn(core, ws, post.id, { publish_at: then === 'now' ? 'now' : webPublishAt(core, f.get('publish_at')) }, 'web');
      return post.status === 'scheduled' ? 'scheduled' : 'published';
    },
    publish: (post, f) => {
      publishPostIn(core, core.state.workspace(post.workspaceId), post.id, { publish_at: webPublishAt(core, f.get('publish_at')) }, 'web');
      return post.status === 'scheduled' ? 'scheduled' : 'published';
    },
    cancel: (post, f) => {
      cancelPost(post, f.get('destination_id') || undefined);
      return 'cancelled';
    },
    retry: (post, f) => {
      retryDestination(core, post, f.get('destination_id') ?? '');
      return 'retried';
    },
  };

  app.post<{ Params: { id: string; action: string } }>(`${APP_PATH}/posts/:id/:action`, async (req, reply) => {
    const f = formFields(req);
    const why = guard.refuseAction(req, f?.get(TOKEN_FIELD) ?? null);
    if (why) return refused(reply, why);
    const act = entry(actions, req.params.action);
    const post = core.state.findPost(req.params.id);
    if (!act || !post || !f) {
      const msg = !act ? `No action "${req.params.action}".` : !post ? `No post ${req.params.id}.` : 'Send the form as application/x-www-form-urlencoded.';
      return html(reply, act && !post ? 404 : 400, page('Not done', h`<p class="box alert" role="alert">${msg}</p>`));
    }
    try {
      const done = act(post, f);
      return reply.code(303).header('Location', `${reviewPath(post.id)}?done=${done}`).send();
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      return showReview(req, reply, post, { error: err.message }, err.status);
    }
  });

  app.post(`${APP_PATH}/drafts`, async (req, reply) => {
    const f = formFields(req);
    const why = guard.refuseAction(req, f?.get(TOKEN_FIELD) ?? null);
    if (why) return refused(reply, why);
    const ws = core.state.workspaces.get(f?.get('workspace_id') ?? '');
    try {
      if (!f || !ws) throw new ServiceError(400, 'invalid_field', 'Choose a workspace, a video and at least one destination.');
      const body = {
        media_id: f.get('media_id') ?? undefined,
        caption: text(f.get('caption')) ?? '',
        destinations: f.getAll('destination_id').map((id) => ({ destination_id: id })),
      };
      const made = createPostIn(core, ws, body, 'web').body as { id: string };
      return reply.code(303).header('Location', `${reviewPath(made.id)}?done=draft`).send();
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      return html(reply, err.status, workspacePage(core, guard.session(req, reply), { error: err.message }));
    }
  });
}

/**
 * The review page behind a post's review_url: the video (played from the
 * uploaded bytes), the caption, each destination with its account, options,
 * the creator to disclose, its status, URL, warning and failure as GET
 * /v1/posts/{id} returns them, the issues and what blocks publishing, and
 * the forms of the actions the post's state allows.
 */
import { createHash } from 'node:crypto';
import type { Issue, OptionValue, Post } from '../../contract/wire-types.js';
import type { Core } from '../core.js';
import { mediaRecord, postRecord } from '../records.js';
import type { DestinationState, MediaState, PostDestState, PostState } from '../state.js';
import { badge, h, join, page, raw, scrollBox, type Html } from './html.js';
import { TOKEN_FIELD } from './guard.js';
import { valueLabel } from '../../contract/option-labels.js';

export const APP_PATH = '/_emulator/app';
/** Where review_url points (records.ts makes the URL). */
export const REVIEW_PATH = '/_emulator/review';
export const reviewPath = (postId: string): string => `${REVIEW_PATH}/${encodeURIComponent(postId)}`;
export const videoPath = (mediaId: string): string => `${APP_PATH}/videos/${encodeURIComponent(mediaId)}`;
export const actionPath = (postId: string, action: string): string => `${APP_PATH}/posts/${encodeURIComponent(postId)}/${action}`;

/** What the page says above its content: the outcome of the last action. */
export interface Flash {
  ok?: string;
  error?: string;
}

export function flashHtml(flash: Flash): Html {
  return join([
    flash.error ? h`<div class="box alert" role="alert" id="flash">${flash.error}</div>` : raw(''),
    flash.ok ? h`<div class="box ok" role="status" id="flash">${flash.ok}</div>` : raw(''),
  ]);
}

/** A POST form with the session token; `body` holds its fields and button. */
export function form(action: string, token: string, body: Html, cls = ''): Html {
  return h`<form method="post" action="${action}" class="${cls}"><input type="hidden" name="${TOKEN_FIELD}" value="${token}">${body}</form>`;
}

const optionText = (v: OptionValue | undefined): string => (v === undefined ? 'not chosen' : String(v));

function videoSection(core: Core, media: MediaState | undefined, mediaId: string): Html {
  if (!media) return h`<p>The video ${mediaId} is no longer kept by the emulator.</p>`;
  const rec = mediaRecord(media);
  const facts = h`<p class="note">${media.filename} · ${media.content_type}${media.size_bytes !== null ? ` · ${media.size_bytes} bytes` : ''}${rec.duration_sec !== undefined ? ` · ${rec.duration_sec} s` : ''} · ${badge(media.status)}${rec.progress ? ` ${rec.progress.phase} ${rec.progress.percent}%` : ''}</p>`;
  let player: Html;
  if (core.videos.get(media.id)) {
    player = h`<video id="player" controls preload="metadata" src="${videoPath(media.id)}" aria-label="${`Video ${media.filename}`}"></video>`;
  } else {
    const why = media.source === 'import'
      ? 'Imports are simulated: the emulator downloads no bytes, so there is nothing to play.'
      : media.upload === null
        ? 'This video came with the fixture: no file was uploaded, so there is nothing to play.'
        : media.bytesComplete
          ? 'The file is larger than the emulator keeps for playback (64 MB), or was dropped to keep its memory bounded.'
          : 'The file has not arrived yet.';
    player = h`<p class="box">${why}</p>`;
  }
  return join([player, facts]);
}

function issuesSection(issues: Issue[], status: string): Html {
  const blocking = issues.filter((i) => i.severity === 'error').length;
  const verdict = status !== 'draft' && status !== 'scheduled'
    ? h`<p>The post has gone out; issues are checked before it does.</p>`
    : blocking > 0
      ? h`<p class="box alert" id="blocking"><strong>${blocking === 1 ? '1 issue blocks' : `${blocking} issues block`} publishing.</strong> Fix ${blocking === 1 ? 'it' : 'them'} below, then publish.</p>`
      : h`<p class="box ok" id="blocking">Nothing blocks publishing.</p>`;
  const items = issues.map((i) => h`<li><span class="badge s-${i.severity}">${i.severity}</span> ${i.message} <span class="note">(${i.code})</span></li>`);
  return join([verdict, items.length ? h`<ul class="issues" id="issues">${items}</ul>` : h`<p id="issues">No issues.</p>`]);
}

function destinationCard(post: PostState, pd: PostDestState, rec: Post['destinations'][number], d: DestinationState | undefined, token: string): Html {
  const name = d ? `${d.handle} (${d.platform})` : pd.destination_id;
  const account = d
    ? h`<p>${d.display_name} · account ${badge(d.status)} <span class="note">${d.id}</span></p>`
    : h`<p class="note">This account is no longer connected to the workspace.</p>`;
  const creator = d?.creator
    ? h`<p><strong>Posting as the creator</strong> ${d.creator.display_name} (${d.creator.handle}): the platform requires that the person posting sees this account.</p>`
    : raw('');
  const options = d && d.options.length
    ? scrollBox(`Options of ${name}`, h`<table><caption class="note">Options</caption><thead><tr><th scope="col">Option</th><th scope="col">Value</th></tr></thead><tbody>${d.options.map((o) => h`<tr><th scope="row">${o.label}${o.required ? ' (required)' : ''}</th><td>${optionText(pd.options[o.key])}</td></tr>`)}</tbody></table>`)
    : h`<p class="note">No options.</p>`;
  const outcome = join([
    h`<p>Status ${badge(pd.status)}</p>`,
    rec.url ? h`<p>Published at <a href="${rec.url}">${rec.url}</a></p>` : raw(''),
    rec.warning ? h`<p class="s-warning">Warning: ${rec.warning.message} <span class="note">(${rec.warning.code})</span></p>` : raw(''),
    rec.failure ? h`<p class="s-failed">Failed: ${rec.failure.message} <span class="note">(${rec.failure.code})</span></p>` : raw(''),
  ]);
  const hidden = h`<input type="hidden" name="destination_id" value="${pd.destination_id}">`;
  const buttons = join([
    (pd.status === 'pending' || pd.status === 'publishing') && post.status !== 'draft'
      ? form(actionPath(post.id, 'cancel'), token, h`${hidden}<button type="submit" class="danger">Cancel ${name}</button>`, 'inline')
      : raw(''),
    (pd.status === 'failed' || pd.status === 'cancelled') && (post.status === 'publishing' || post.status === 'completed')
      ? form(actionPath(post.id, 'retry'), token, h`${hidden}<button type="submit">Retry ${name}</button>`, 'inline')
      : raw(''),
  ]);
  return h`<section class="box" aria-labelledby="${`dest-${pd.destination_id}`}"><h3 id="${`dest-${pd.destination_id}`}">${name}</h3>${account}${creator}${options}${outcome}${buttons}</section>`;
}

function optionField(pd: PostDestState, d: DestinationState): Html[] {
  return d.options.map((o) => {
    const id = `opt-${d.id}-${o.key}`;
    const name = `option.${d.id}.${o.key}`;
    const cur = pd.options[o.key];
    const label = h`<label for="${id}">${o.label}${o.required ? ' (required)' : ''}</label>`;
    if (o.type === 'string') return h`${label}<input type="text" id="${id}" name="${name}" value="${cur === undefined ? '' : String(cur)}">`;
    const values: OptionValue[] = o.type === 'boolean' ? [true, false] : o.values ?? [];
    // Labels, as the CLI shows them: "Only me (SELF_ONLY)".
    const choices = values.map((v) => h`<option value="${String(v)}"${raw(cur === v ? ' selected' : '')}>${o.type === 'boolean' ? (v ? 'yes' : 'no') : `${valueLabel(v)} (${String(v)})`}</option>`);
    const none = h`<option value=""${raw(cur === undefined ? ' selected' : '')}>${o.required ? 'Choose…' : 'not set'}</option>`;
    return h`${label}<select id="${id}" name="${name}"${raw(o.required ? ' required aria-required="true"' : '')}>${none}${choices}</select>`;
  });
}

/** The time field: the words --at takes (publish-at.ts reads them). */
function publishAtField(value: string): Html {
  return h`<label for="publish_at">Publish at (as --at reads it: "in 2h", "tomorrow 9:00", 9:00, or ISO 8601; on the emulator's clock)</label><input type="text" id="publish_at" name="publish_at" value="${value}" inputmode="text" autocomplete="off">`;
}

/**
 * A draft's one form: its caption and options, and what to do with them. "Publish now" and
 * "Schedule" save what the form holds first, then act on it, so a choice made on the page is never
 * dropped for not having been saved.
 */
function editSection(post: PostState, dests: Map<string, DestinationState>, token: string, suggested: string): Html {
  const fieldsets = post.destinations.map((pd) => {
    const d = dests.get(pd.destination_id);
    if (!d || d.options.length === 0) return raw('');
    return h`<fieldset><legend>${d.handle} (${d.platform})</legend>${optionField(pd, d)}</fieldset>`;
  });
  const act = h`<div class="actions"><button type="submit" name="then" value="save" class="secondary">Save draft</button><button type="submit" name="then" value="now" id="publish-now">Publish now</button><button type="submit" name="then" value="schedule" class="secondary">Schedule</button></div>`;
  const body = h`<label for="caption">Caption</label><textarea id="caption" name="caption">${post.caption}</textarea>${fieldsets}${publishAtField(post.publish_at ?? suggested)}${act}`;
  return h`<section aria-labelledby="edit-h"><h2 id="edit-h">Edit and publish the draft</h2><p class="note">${ALLOWANCE_NOTE}</p>${form(actionPath(post.id, 'edit'), token, body)}</section>`;
}

const ALLOWANCE_NOTE = 'Publishing, scheduling, rescheduling, cancelling and retrying here spend none of the daily API allowance (the API counts a post when it starts or schedules it).';

function scheduleForm(post: PostState, token: string, suggested: string, label: string): Html {
  return form(actionPath(post.id, 'publish'), token, h`${publishAtField(post.publish_at ?? suggested)}<button type="submit" class="secondary">${label}</button>`);
}

/** An hour from the emulator's now, on the minute: the time a schedule field offers. */
function suggestedTime(core: Core): string {
  return new Date(Math.ceil((core.clock.now() + 3_600_000) / 60_000) * 60_000).toISOString().replace('.000Z', 'Z');
}

function actionsSection(core: Core, post: PostState, token: string): Html {
  const parts: Html[] = [];
  const suggested = suggestedTime(core);
  const now = (label: string): Html => form(actionPath(post.id, 'publish'), token, h`<input type="hidden" name="publish_at" value="now"><button type="submit" id="publish-now">${label}</button>`);
  // A draft is published from its edit form (editSection), with what the form holds.
  if (post.status === 'scheduled') {
    parts.push(now('Send now'), scheduleForm(post, token, suggested, 'Reschedule'));
  }
  if (post.status !== 'draft' && post.destinations.some((d) => d.status === 'pending' || d.status === 'publishing')) {
    parts.push(form(actionPath(post.id, 'cancel'), token, h`<button type="submit" class="danger" id="cancel-post">Cancel the post</button>`));
  }
  if (parts.length === 0) return raw('');
  return h`<section aria-labelledby="act-h"><h2 id="act-h">Publish</h2><p class="note">${ALLOWANCE_NOTE}</p><div class="actions">${parts}</div></section>`;
}

export function reviewPage(core: Core, post: PostState, token: string, flash: Flash = {}): string {
  const ws = core.state.workspace(post.workspaceId);
  const rec = postRecord(post, core.origin);
  const media = ws.media.get(post.media_id);
  const inProgress = post.status === 'publishing' || post.status === 'scheduled' || media?.status === 'uploading' || media?.status === 'processing';
  const rev = createHash('sha256').update(JSON.stringify([rec, media ? mediaRecord(media) : null])).digest('hex').slice(0, 16);
  const body = join([
    flashHtml(flash),
    h`<p>Status ${badge(post.status)}${post.publish_at ? ` · publish at ${post.publish_at}` : ''} · workspace ${ws.name} · made ${post.created_at}</p>`,
    h`<div class="grid"><section aria-labelledby="video-h"><h2 id="video-h">Video</h2>${videoSection(core, media, post.media_id)}</section>`,
    h`<section aria-labelledby="caption-h"><h2 id="caption-h">Caption</h2><p class="caption" id="caption-text">${post.caption || '(no caption)'}</p>`,
    h`<h2 id="issues-h">Issues</h2>${issuesSection(rec.issues, post.status)}</section></div>`,
    post.status === 'draft' ? editSection(post, ws.destinations, token, suggestedTime(core)) : raw(''),
    actionsSection(core, post, token),
    h`<section aria-labelledby="dests-h"><h2 id="dests-h">Destinations</h2>${post.destinations.map((pd, i) => destinationCard(post, pd, rec.destinations[i]!, ws.destinations.get(pd.destination_id), token))}</section>`,
    h`<details><summary>As GET /v1/posts/${post.id} returns it</summary><pre>${JSON.stringify(rec, null, 2)}</pre></details>`,
  ]);
  return page(`Post ${post.id}`, body, { poll: inProgress, rev });
}

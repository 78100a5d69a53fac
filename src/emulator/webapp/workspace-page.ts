/**
 * The web app's workspace page: every workspace of the emulator with its
 * plan and daily allowance, its destinations, its videos and its posts
 * (linked to their review pages), and the form that makes a draft from a
 * video, as the web app of the service does.
 */
import type { Core } from '../core.js';
import type { WorkspaceState } from '../state.js';
import { badge, h, join, page, raw, scrollBox, stackedTable, type Html } from './html.js';
import { APP_PATH, form, flashHtml, reviewPath, type Flash } from './review-page.js';

/** The newest records listed per workspace and kind (the emulator may hold a thousand). */
export const LISTED = 50;

const newest = <T>(m: Map<string, T>): T[] => [...m.values()].slice(-LISTED).reverse();

function more(total: number, what: string): Html {
  return total > LISTED ? h`<p class="note">The newest ${LISTED} of ${total} ${what}.</p>` : raw('');
}

function destinationsTable(ws: WorkspaceState): Html {
  const rows = [...ws.destinations.values()].map((d) => [h`${d.handle}`, h`${d.platform}`, h`${d.display_name}`, badge(d.status), h`${d.creator ? `${d.creator.display_name} (${d.creator.handle})` : '—'}`, h`<code>${d.id}</code>`]);
  if (rows.length === 0) return h`<p>No connected accounts.</p>`;
  return scrollBox(`Connected accounts of ${ws.name}`, stackedTable('Connected accounts', ['Account', 'Platform', 'Name', 'Status', 'Creator to disclose', 'Id'], rows));
}

function videosTable(ws: WorkspaceState): Html {
  const rows = newest(ws.media).map((m) => [h`${m.filename}`, badge(m.status), h`${m.duration_sec === null ? '—' : `${m.duration_sec} s`}`, h`${m.source}`, h`<code>${m.id}</code>`]);
  if (rows.length === 0) return h`<p>No videos yet.</p>`;
  return h`${more(ws.media.size, 'videos')}${scrollBox(`Videos of ${ws.name}`, stackedTable('Videos', ['File', 'Status', 'Duration', 'Source', 'Id'], rows))}`;
}

function postsTable(ws: WorkspaceState): Html {
  const rows = newest(ws.posts).map((p) => {
    const dests = p.destinations.map((pd) => {
      const d = ws.destinations.get(pd.destination_id);
      return h`<li>${d ? d.handle : pd.destination_id} ${badge(pd.status)}</li>`;
    });
    const caption = p.caption.length > 80 ? `${p.caption.slice(0, 79)}…` : p.caption || '(no caption)';
    return [h`<a href="${reviewPath(p.id)}">${p.id}</a>`, badge(p.status), h`${caption}`, h`<ul class="issues">${dests}</ul>`, h`${p.publish_at ?? '—'}`];
  });
  if (rows.length === 0) return h`<p>No posts yet.</p>`;
  return h`${more(ws.posts.size, 'posts')}${scrollBox(`Posts of ${ws.name}`, stackedTable('Posts', ['Post', 'Status', 'Caption', 'Destinations', 'Publish at'], rows))}`;
}

function draftForm(ws: WorkspaceState, token: string): Html {
  const videos = newest(ws.media).filter((m) => m.status !== 'failed');
  if (videos.length === 0 || ws.destinations.size === 0) return raw('');
  const p = `${ws.id}-`;
  const choices = videos.map((m) => h`<option value="${m.id}">${m.filename} (${m.status}, ${m.id})</option>`);
  const boxes = [...ws.destinations.values()].map((d) => h`<label class="check"><input type="checkbox" name="destination_id" value="${d.id}"> ${d.handle} (${d.platform})${d.status === 'active' ? '' : `, ${d.status}`}</label>`);
  const body = join([
    h`<input type="hidden" name="workspace_id" value="${ws.id}">`,
    h`<label for="${`${p}media`}">Video</label><select id="${`${p}media`}" name="media_id">${choices}</select>`,
    h`<label for="${`${p}caption`}">Caption</label><textarea id="${`${p}caption`}" name="caption"></textarea>`,
    h`<fieldset><legend>Destinations</legend>${boxes}</fieldset><button type="submit">Make a draft</button>`,
  ]);
  return h`<h3>Make a draft</h3><p class="note">The draft opens on its review page, where its options are chosen. Saving it spends nothing; publishing it through the API or MCP counts toward the daily allowance, publishing it here does not.</p>${form(`${APP_PATH}/drafts`, token, body)}`;
}

function workspaceSection(core: Core, ws: WorkspaceState, token: string): Html {
  const daily = core.limits.daily(ws);
  const id = `ws-${ws.id}`;
  const shared = daily.scope === 'account' ? 'shared by the account' : 'this workspace';
  return join([
    h`<section aria-labelledby="${id}"><h2 id="${id}">${ws.name}</h2>`,
    h`<p>${ws.account.name} · plan ${ws.account.plan} · API posts today <span id="${`${ws.id}-used`}">${daily.used}</span> of ${daily.limit} (${shared}) · <code>${ws.id}</code></p>`,
    h`<h3>Destinations</h3>${destinationsTable(ws)}<h3>Videos</h3>${videosTable(ws)}${draftForm(ws, token)}<h3>Posts</h3>${postsTable(ws)}</section>`,
  ]);
}

export function workspacePage(core: Core, token: string, flash: Flash = {}): string {
  const sections = [...core.state.workspaces.values()].map((ws) => workspaceSection(core, ws, token));
  const body = join([
    flashHtml(flash),
    h`<p>What the service's web app shows of each workspace. The emulator's clock says ${core.clock.iso()}. Posts link to their review pages.</p>`,
    ...sections,
  ]);
  return page('Workspaces', body);
}

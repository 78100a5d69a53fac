import { sanitize } from '../../errors.js';
import { openReviewPage } from '../io/browser.js';
import { parseTimeout } from '../../session/wait-flags.js';
import { parsePostId } from '../../posts/flags.js';
import type { Media } from '../../contract/wire-types.js';
import { printPost, withState, type PostResult } from '../../posts/view.js';
import { formatSize } from '../../util/bytes.js';
import type { AnyStatusOpts, StatusData } from '../../posts/status-flow.js';
import { resolveTimeZone } from '../../time/zones.js';
import { renderFields } from '../../ui/table.js';
import { isPostSet, type PostSet } from '../../posts/post/caption-set.js';
import { postSetDocument, printPostSet } from '../../posts/post/set-view.js';
import { defineCommand } from '../run/command.js';
import { MEDIA_FIELDS, POST_DOCUMENT_FIELDS } from '../output/json-fields.js';

/** Errors carry the bare post result or media record as their data: the same printers take both. */
function normalize(d: StatusData | PostResult | Media | PostSet): StatusData {
  if ('kind' in d && (d.kind === 'post' || d.kind === 'media')) return d as StatusData;
  if ('post' in d) return { kind: 'post', result: d };
  return { kind: 'media', media: d as Media };
}

export default defineCommand<'status', AnyStatusOpts & { web: boolean }, StatusData | PostSet>({
  description:
    "Show a post and each destination's status, url, warning and failure (a draft: its caption and each destination's " +
    'options). Without an id, the last post made from this machine with this profile (from the local journal). With a ' +
    "video id (med_...), the video's state, progress and error. With --wait, follow it to its end and exit as post " +
    'does (0 published or ready, 6 failed, 7 timed out).',
  examples: [
    'vidpub status',
    'vidpub status post_123',
    'vidpub status post_123 --wait',
    'vidpub status med_123 --wait',
    'vidpub status post_123 --wait --timeout 10m --json',
  ],
  parse(args, flags, inv) {
    const [raw] = args;
    const id = raw === undefined ? undefined : parsePostId(raw);
    return {
      target: id === undefined ? { kind: 'last' } : id.startsWith('med_') ? { kind: 'media', id } : { kind: 'post', id },
      wait: flags.wait,
      timeoutMs: parseTimeout(flags),
      zone: resolveTimeZone(undefined, inv.ctx.env),
      web: flags.web,
    };
  },
  async run(opts, inv) {
    const { runAnyStatus, runStatus } = await import('../../posts/status-flow.js');
    const sets = await import('../../posts/retry-set.js');
    // A set's id (one post command, a caption each): each of its posts, together.
    const t = opts.target;
    if (t.kind === 'post' && sets.isSetId(t.id)) return (await import('../../posts/post/set-status.js')).statusOfSet(t.id, inv.session, (postId) => runStatus({ ...opts, postId }, inv.session));
    const data = await runAnyStatus(opts, inv.session);
    // One post of a set (one post command, a caption each): its siblings named on stderr.
    if (data.kind === 'post') await sets.setNote(inv.session, data.result.post.id);
    await openReviewPage(opts.web, data.kind === 'post' ? data.result : undefined, inv);
    return data;
  },
  print(data, inv) {
    if (isPostSet(data)) return printPostSet(data, inv.out);
    const d = normalize(data);
    if (d.kind === 'post') return printPost(d.result, inv.out);
    const m = d.media;
    const tty = inv.out.tty;
    const fields: [string, string][] = [
      [tty ? 'Video' : 'id', m.id],
      [tty ? 'Status' : 'status', String(m.status)],
    ];
    const pct = m.progress?.percent;
    if (m.progress && (m.status === 'uploading' || m.status === 'processing')) {
      fields.push([tty ? 'Progress' : 'progress', `${m.progress.phase ?? m.status}${typeof pct === 'number' ? ` ${Math.round(pct)}%` : ''}`]);
    }
    if (m.filename) fields.push([tty ? 'File' : 'filename', m.filename]);
    // A person reads units; a pipe gets the record's numbers.
    if (typeof m.size_bytes === 'number') fields.push(tty ? ['Size', formatSize(m.size_bytes)] : ['size_bytes', String(m.size_bytes)]);
    if (typeof m.duration_sec === 'number') fields.push(tty ? ['Duration', `${m.duration_sec} s`] : ['duration_sec', `${m.duration_sec}`]);
    if (m.error) fields.push([tty ? 'Error' : 'error', sanitize(`${m.error.message ?? ''}${m.error.code ? ` (${m.error.code})` : ''}`)]);
    for (const line of renderFields(fields, { tty, dim: inv.out.colors.dim, width: inv.out.columns })) inv.print(line);
  },
  json: (data) => {
    if (isPostSet(data)) return postSetDocument(data);
    const d = normalize(data);
    return d.kind === 'post' ? withState(d.result.post) : d.media;
  },
  // A post's fields or a video's (the id says which): one the record lacks prints null.
  fields: [...new Set([...POST_DOCUMENT_FIELDS, ...MEDIA_FIELDS, 'set', 'posts'])],
});

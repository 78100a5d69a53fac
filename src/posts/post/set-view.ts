/**
 * How the posts of one `post` run with captions of each destination's own are
 * shown: a line per post (a table at a terminal, tab-separated for a pipe),
 * and with --json one document, `{"posts": [...]}`, each the post's record (or,
 * for a post that was not made, its caption, destinations and error).
 */
import type { DataOut } from '../../ui/output.js';
import { renderTable } from '../../ui/table.js';
import { sanitize } from '../../errors.js';
import type { PostSet, SetPost } from './caption-set.js';
import { postDocument, postState } from '../view.js';

export function printPostSet(set: PostSet, out: DataOut): void {
  const names = (p: SetPost) => p.destinations.map((id) => p.result?.names[id] ?? id).join(', ');
  const rows = renderTable(
    set.posts,
    [
      { header: out.tty ? 'Post' : 'id', value: (p) => p.result?.post.id ?? '-' },
      { header: out.tty ? 'Status' : 'status', value: (p) => (p.result ? postState(p.result.post) : 'not posted') },
      { header: out.tty ? 'To' : 'destinations', value: (p) => sanitize(out.tty ? names(p) : p.destinations.join(',')) },
      { header: out.tty ? 'Caption' : 'caption', value: (p) => sanitize(p.caption.replace(/\s+/g, ' ')), shrink: true },
    ],
    { tty: out.tty, bold: out.colors.bold, width: out.columns },
  );
  for (const line of rows) out.print(line);
}

export function postSetDocument(set: PostSet): { set?: string; posts: unknown[] } {
  return {
    ...(set.set ? { set: set.set } : {}),
    posts: set.posts.map((p) =>
      p.result
        ? { ...postDocument(p.result), ...(p.error ? { error: { message: p.error.message, exit_code: p.error.exitCode } } : {}) }
        : { post: null, caption: p.caption, destinations: p.destinations, error: { message: p.error?.message ?? 'not posted', exit_code: p.error?.exitCode } },
    ),
  };
}

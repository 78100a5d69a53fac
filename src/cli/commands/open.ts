import { parsePostId } from '../../posts/flags.js';
import { lastPostId } from '../../posts/status-flow.js';
import { openInBrowser } from '../io/browser.js';
import { defineCommand } from '../run/command.js';

/** `vidpub open [ID]`: the post's review page in a browser, or its URL on stdout where none can open. */
export default defineCommand<'open', { postId?: string }, { id: string; review_url: string }>({
  description:
    "Open a post's review page (the service's web view of the post, its destinations and issues) in a browser, as gh's " +
    '--web does. Where no browser can open (no display, CI, --no-input) its URL is printed on stdout instead. ' +
    'Without an id, the last post made from this machine with this profile (from the local journal), as status takes it.',
  examples: ['vidpub open post_123', 'vidpub open post_123 --no-input', 'vidpub open'],
  parse: (args) => ({ postId: args[0] === undefined ? undefined : parsePostId(args[0]) }),
  async run(opts, inv) {
    const client = await inv.client();
    const postId = opts.postId ?? (await lastPostId(inv.session, 'open'));
    const post = await client.getPost(postId, { signal: inv.ctx.signal });
    await openInBrowser(post.review_url, inv, { urlIsData: true });
    return { id: post.id, review_url: post.review_url };
  },
  // The URL is printed (or the page opened) by run; --json gives both.
  print: () => undefined,
  json: (r) => r,
});

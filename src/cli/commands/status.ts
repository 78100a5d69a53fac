import { parseTimeout } from '../../flows/wait-flags.js';
import { parsePostId } from '../../posts/flags.js';
import { runStatus, type StatusOpts } from '../../posts/publish-flow.js';
import { printPost, type PostResult } from '../../posts/render.js';
import { resolveTimeZone } from '../../posts/when.js';
import { defineCommand } from '../command.js';

export default defineCommand<StatusOpts, PostResult>({
  description:
    "Show a post and each destination's status, url, warning and failure. With --wait, follow it until every " +
    'destination is published, failed or cancelled, and exit as post does (0 published, 6 failed, 7 timed out).',
  examples: ['vidpub status post_123', 'vidpub status post_123 --wait', 'vidpub status post_123 --wait --timeout 10m --json'],
  parse(args, flags, inv) {
    return {
      postId: parsePostId(args[0]),
      wait: flags.wait === true,
      timeoutMs: parseTimeout(flags),
      zone: resolveTimeZone(undefined, inv.ctx.env),
    };
  },
  run: (opts, inv) => runStatus(opts, inv.session),
  print: (r, inv) => printPost(r, inv.out),
  json: (r) => r.post,
});

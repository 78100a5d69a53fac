/**
 * The review page in a browser, as gh's --web does: the system's opener
 * (xdg-open, open, start) where a browser can open, else the URL printed for
 * the person to open it (no display, CI, --no-input).
 */
import type { Invocation } from '../run/command.js';
import { childEnv } from '../../util/child-env.js';
import { nodeChildProcess } from '../../util/lazy-builtins.js';

/** Starts the platform's opener on `url`, detached, with `env` less vidpub's secrets (childEnv); resolves once it has started. */
export function systemOpen(url: string, platform: string, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const [cmd, args] =
    platform === 'darwin' ? ['open', [url]] : platform === 'win32' ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]] : ['xdg-open', [url]];
  return new Promise((resolve, reject) => {
    const child = nodeChildProcess().spawn(cmd, args, { detached: true, stdio: 'ignore', env: childEnv(env) });
    child.once('error', reject);
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

/** Whether a browser can open here: an opener, a person (not CI, not --no-input), and a display where one is needed. */
export function canOpenBrowser(inv: Pick<Invocation, 'ctx' | 'globals'>): boolean {
  const { ctx } = inv;
  if (!ctx.openBrowser || !inv.globals.input || ctx.env.CI) return false;
  const platform = ctx.runtime?.platform;
  return platform === 'darwin' || platform === 'win32' || Boolean(ctx.env.DISPLAY || ctx.env.WAYLAND_DISPLAY);
}

/**
 * Opens `url` in a browser, saying so on stderr, or prints it where none can
 * open (on stdout when it is the command's data, else on stderr). An opener
 * that fails is said, with the URL.
 */
export async function openInBrowser(url: string, inv: Invocation, opts: { urlIsData?: boolean } = {}): Promise<void> {
  if (canOpenBrowser(inv)) {
    try {
      await inv.ctx.openBrowser!(url);
      inv.log.info(`Opening ${url} in your browser.`);
      return;
    } catch (err) {
      inv.log.warn(`Could not open a browser (${(err as Error).message}); open the page yourself: ${url}`);
      if (opts.urlIsData) inv.print(url);
      return;
    }
  }
  if (opts.urlIsData) inv.print(url);
  else inv.log.info(`Review page (no browser to open here): ${url}`);
}

/** --web after a command whose data is a post: its review page opened (a run that stopped before the post has none). */
export async function openReviewPage(web: boolean | undefined, data: unknown, inv: Invocation): Promise<void> {
  const url = (data as { post?: { review_url?: unknown } } | undefined)?.post?.review_url;
  if (web && typeof url === 'string' && url !== '') await openInBrowser(url, inv);
}

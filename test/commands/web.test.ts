/**
 * --web on post, publish and status, and `vidpub open ID`: the review page
 * opened with the system's opener (injected here: Context.openBrowser), or its
 * URL printed where no browser can open (no display, CI, --no-input).
 */
import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { main } from '../../src/cli/main.js';
import { makeContext, runCli, type RunOptions } from '../support/cli.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

/** Runs vidpub on Linux with an opener that records what it was asked to open. */
async function run(argv: string[], env: Record<string, string> = {}, opts: RunOptions = {}) {
  const opened: string[] = [];
  const { ctx, stdout, stderr } = makeContext({ ...opts, env: { ...emu.env(), ...env } });
  ctx.runtime = { node: process.versions.node, platform: 'linux', arch: 'x64' };
  ctx.openBrowser = async (url) => {
    opened.push(url);
  };
  const code = await main(argv, ctx);
  await new Promise((r) => setImmediate(r));
  return { code, stdout: stdout(), stderr: stderr(), opened };
}

async function draft(): Promise<Post> {
  const r = await runCli(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'hi', '--draft', '--json'], { env: emu.env() });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Post;
}

describe('vidpub open ID', () => {
  it('with a display: opens the review page with the opener and says so on stderr (exit 0)', async () => {
    const d = await draft();
    const r = await run(['open', d.id], { DISPLAY: ':0' });
    expect(r.code).toBe(0);
    expect(r.opened).toEqual([d.review_url]);
    expect(r.stderr).toContain(`Opening ${d.review_url} in your browser.`);
    expect(r.stdout).toBe('');
  });

  it('where no browser can open (no display, CI, --no-input): the URL on stdout, nothing opened', async () => {
    const d = await draft();
    for (const [args, env] of [[[], {}], [[], { DISPLAY: ':0', CI: 'true' }], [['--no-input'], { DISPLAY: ':0' }]] as const) {
      const r = await run(['open', d.id, ...args], env);
      expect(r.code).toBe(0);
      expect(r.opened).toEqual([]);
      expect(r.stdout).toBe(`${d.review_url}\n`);
    }
  });

  it('an opener that fails: a warning with the URL to open by hand, and the URL on stdout', async () => {
    const d = await draft();
    const { ctx, stdout, stderr } = makeContext({ env: { ...emu.env(), DISPLAY: ':0' } });
    ctx.runtime = { node: process.versions.node, platform: 'linux', arch: 'x64' };
    ctx.openBrowser = () => Promise.reject(new Error('spawn xdg-open ENOENT'));
    expect(await main(['open', d.id], ctx)).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(stderr()).toContain(`Could not open a browser (spawn xdg-open ENOENT); open the page yourself: ${d.review_url}`);
    expect(stdout()).toBe(`${d.review_url}\n`);
  });

  it('an unknown post: exit 5, nothing opened', async () => {
    const r = await run(['open', 'post_nope'], { DISPLAY: ':0' });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/Error: .*post_nope/);
    expect(r.opened).toEqual([]);
  });
});

describe('--web', () => {
  it('status ID --web: the status as usual, and the review page opened', async () => {
    const d = await draft();
    const r = await run(['status', d.id, '--web'], { DISPLAY: ':0' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^id\\t${d.id}$`, 'm'));
    expect(r.opened).toEqual([d.review_url]);
  });

  it('post --web and publish --web open the post\'s page once it is made; without a display they print it on stderr', async () => {
    const made = await run(['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'hi', '--draft', '--web', '--json'], { DISPLAY: ':0' });
    expect(made.code).toBe(0);
    const d = JSON.parse(made.stdout) as Post;
    expect(made.opened).toEqual([d.review_url]);
    const published = await run(['publish', d.id, '--yes', '--web']);
    expect(published.code).toBe(0);
    expect(published.opened).toEqual([]);
    expect(published.stderr).toContain(`Review page (no browser to open here): ${d.review_url}`);
  });
});

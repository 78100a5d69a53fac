/**
 * `vidpub config` and the profile's caption defaults: set, get, list, unset a
 * platform's prefix or suffix; post adds them to the caption of that
 * platform's destinations (a post per distinct caption), counts them against
 * its limit, and leaves them out with --no-caption-defaults.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
let env: Record<string, string>;

const run = (args: string[]) => runCli(args, { clock: scaledClock(20), env: { ...emu.env(), TZ: 'UTC', ...env } });
const POST = ['post', '--media', 'med_demo_sample', '--to', 'youtube,linkedin', '--caption', 'base', '--option', 'youtube:visibility=unlisted', '--no-input', '--json'];
const posts = async () => (await emu.requests()).filter((q) => q.method === 'POST' && q.path === '/v1/posts');

beforeEach(() => {
  const base = mkdtempSync(join(tmpdir(), 'vidpub-config-'));
  env = { VIDPUB_CONFIG_DIR: join(base, 'config'), VIDPUB_STATE_DIR: join(base, 'state') };
});

describe('vidpub config', () => {
  it('set, get, list, unset', async () => {
    expect((await run(['config', 'set', 'caption.suffix.linkedin', 'Link in bio'])).code).toBe(0);
    expect((await run(['config', 'set', 'caption.prefix.youtube', 'New:'])).code).toBe(0);
    const got = await run(['config', 'get', 'caption.suffix.linkedin']);
    expect([got.code, got.stdout]).toEqual([0, 'Link in bio\n']);
    const list = await run(['config', 'list']);
    expect(list.stdout).toBe('caption.prefix.youtube\tNew:\ncaption.suffix.linkedin\tLink in bio\n');
    expect(JSON.parse((await run(['config', 'list', '--json'])).stdout)).toEqual({ profile: 'default', settings: { 'caption.prefix.youtube': 'New:', 'caption.suffix.linkedin': 'Link in bio' } });
    expect((await run(['config', 'unset', 'caption.prefix.youtube'])).code).toBe(0);
    const gone = await run(['config', 'get', 'caption.prefix.youtube']);
    expect(gone.stderr).toContain('caption.prefix.youtube is not set for profile "default"');
    expect(gone.code).toBe(5);
  });

  it.each([
    [['config', 'set', 'caption.suffix.myspace', 'x'], 'unknown platform "myspace" in "caption.suffix.myspace": give one of tiktok, youtube, linkedin, instagram'],
    [['config', 'set', 'privacy.tiktok', 'PUBLIC'], 'unknown setting "privacy.tiktok": the settings are caption.prefix.PLATFORM and caption.suffix.PLATFORM'],
    [['config', 'set', 'caption.suffix.tiktok'], 'config set needs a KEY and a VALUE'],
    [['config', 'set', 'caption.suffix.tiktok', ' '], 'config set caption.suffix.tiktok: the value is empty'],
    [['config', 'list', 'caption.suffix.tiktok'], 'config list takes no KEY: "caption.suffix.tiktok" is one too many'],
    [['config', 'drop', 'caption.suffix.tiktok'], 'unknown action "drop": give one of get, set, unset, list'],
  ])('bad input %j: exit 2 naming it', async (args, message) => {
    const r = await run(args);
    expect(r.stderr).toContain(message);
    expect(r.code).toBe(2);
  });
});

describe('post with caption defaults', () => {
  it("a platform's suffix makes its own post, shown before sending; --no-caption-defaults leaves it out", async () => {
    await run(['config', 'set', 'caption.suffix.linkedin', 'Link in bio']);
    const before = (await posts()).length;
    const r = await run(POST);
    expect(r.stderr).toContain('caption for @vidpub-demo (linkedin): "base\\n\\nLink in bio"');
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { posts: { caption: string }[] }).posts.map((p) => p.caption)).toEqual(['base', 'base\n\nLink in bio']);
    expect((await posts()).length).toBe(before + 2);

    const plain = await run([...POST, '--no-caption-defaults']);
    expect(plain.code).toBe(0);
    expect((JSON.parse(plain.stdout) as { caption: string }).caption).toBe('base');
    expect((await posts()).length).toBe(before + 3);
  });

  it("a default that takes a caption over its platform's limit: exit 2 before anything is sent, naming the destination", async () => {
    await run(['config', 'set', 'caption.suffix.linkedin', 'x'.repeat(2995)]);
    const before = (await posts()).length;
    const r = await run(POST);
    expect(r.stderr).toContain("the caption given for @vidpub-demo (linkedin) (with the profile's caption defaults) has 3,001 characters and would be cut: @vidpub-demo (linkedin) takes 3,000; nothing was sent");
    expect(r.code).toBe(2);
    expect((await posts()).length).toBe(before);
  });
});

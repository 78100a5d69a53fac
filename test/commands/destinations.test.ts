import { describe, expect, test } from 'vitest';
import type { Destination } from '../../src/contract/wire-types.js';
import { describeOption, renderDestinationOptions, resolveDestination } from '../../src/posts/destinations.js';
import { UsageError } from '../../src/errors.js';
import { runCli } from '../support/cli.js';
import { expectError } from '../support/errors.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator({ resetEachTest: false });

const d = (id: string, platform: string, handle: string, status = 'active'): Destination => ({ id, platform, handle, display_name: id, status });
const ALL = [
  d('dst_tt', 'tiktok', '@shorts.one'),
  d('dst_yt', 'youtube', '@Channel'),
  d('dst_li', 'linkedin', 'company-page'),
  d('dst_ig', 'instagram', '@shorts.one', 'disconnected'),
  d('dst_yt2', 'youtube', '@other', 'expired'),
];

describe('resolveDestination', () => {
  test('by id, by handle with or without @ in any case, by platform with one active account', () => {
    expect(resolveDestination('dst_li', ALL).id).toBe('dst_li');
    expect(resolveDestination('@channel', ALL).id).toBe('dst_yt');
    expect(resolveDestination('CHANNEL', ALL).id).toBe('dst_yt');
    expect(resolveDestination('@company-page', ALL).id).toBe('dst_li');
    expect(resolveDestination('company-page', ALL).id).toBe('dst_li');
    expect(resolveDestination('youtube', ALL).id).toBe('dst_yt');
    expect(resolveDestination(' TikTok ', ALL).id).toBe('dst_tt');
  });

  test('a handle shared by two platforms resolves to the only active one', () => {
    expect(resolveDestination('@shorts.one', ALL).id).toBe('dst_tt');
  });

  test('a handle shared by two active accounts is ambiguous', () => {
    const both = [d('a', 'tiktok', '@x'), d('b', 'instagram', '@x')];
    expect(() => resolveDestination('@x', both)).toThrow(/"@x" matches 2 destinations; name one by its id/);
  });

  test('unknown: UsageError listing every candidate as id (platform @handle, status)', () => {
    const err = expectError(UsageError, () => resolveDestination('@nobody', ALL));
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe('unknown destination "@nobody": give its id, its @handle, or its platform');
    expect(err.hint).toBe(
      [
        'Candidates:',
        '  dst_tt (tiktok @shorts.one, active)',
        '  dst_yt (youtube @Channel, active)',
        '  dst_li (linkedin @company-page, active)',
        '  dst_ig (instagram @shorts.one, disconnected)',
        '  dst_yt2 (youtube @other, expired)',
      ].join('\n'),
    );
  });

  test('a platform with several active accounts is ambiguous; one with none active says so', () => {
    const two = [...ALL, d('dst_tt2', 'tiktok', '@second')];
    expect(() => resolveDestination('tiktok', two)).toThrow(/"tiktok" is ambiguous: the workspace has 2 active tiktok accounts/);
    // the only account there, inactive: named as its id names it (the caller says whether an inactive one will do)
    expect(resolveDestination('instagram', ALL).id).toBe('dst_ig');
    const twoOff = [...ALL, d('dst_ig2', 'instagram', '@other.reels', 'expired')];
    expect(() => resolveDestination('instagram', twoOff)).toThrow(/no active instagram account in this workspace/);
    expect(() => resolveDestination('', ALL)).toThrow(UsageError);
  });

  test('an inactive destination can still be named by id or handle (the post engineer reports its status)', () => {
    expect(resolveDestination('dst_ig', ALL).status).toBe('disconnected');
    expect(resolveDestination('@other', ALL).id).toBe('dst_yt2');
  });

  test('a server handle with control characters is sanitized in the candidates: the escape shown, not acting', () => {
    expect(expectError(UsageError, () => resolveDestination('zzz', [d('x', 'tiktok', '@ev\u001b[31mil')])).hint).toBe('Candidates:\n  x (tiktok @ev\\e[31mil, active)');
  });
});

describe('option rendering', () => {
  test('each option with values, default and whether required', () => {
    expect(describeOption({ key: 'privacy', label: 'Who', type: 'enum', values: ['PUBLIC', 'SELF_ONLY'], default: null, required: true })).toBe(
      'privacy (required): PUBLIC | SELF_ONLY; no default — Who',
    );
    expect(describeOption({ key: 'title', label: 'title', type: 'string', values: null, default: null, required: false })).toBe('title: any string; no default');
    expect(describeOption({ key: 'c', label: 'c', type: 'boolean', values: null, default: false, required: false })).toBe('c: true | false; default false');
  });

  test('creator, maximum duration and the privacy line for a creator-disclosure destination', () => {
    const lines = renderDestinationOptions({
      options: [{ key: 'privacy', label: 'privacy', type: 'enum', values: ['SELF_ONLY'], default: null, required: true }],
      creator: { handle: '@me', display_name: 'Me', avatar_url: 'https://a.example/me.png' },
      max_duration_sec: 600,
    });
    expect(lines).toEqual([
      '  privacy (required): SELF_ONLY; no default',
      '',
      'Posting as: Me (@me)',
      'Maximum video duration: 600s',
      'Privacy must be chosen by the person posting: it has no default.',
    ]);
    expect(renderDestinationOptions({ options: [] })).toEqual(['No options: this destination takes none.']);
  });
});

describe('vidpub destinations', () => {
  test('pipe: id, platform, handle, status of active accounts, tab-separated; a note about the others on stderr', async () => {
    const r = await runCli(['destinations'], { env: emu.env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      ['dst_demo_tiktok\ttiktok\t@vidpub.demo\tactive', 'dst_demo_youtube\tyoutube\t@vidpubdemo\tactive', 'dst_demo_linkedin\tlinkedin\t@vidpub-demo\tactive', ''].join('\n'),
    );
    expect(r.stderr).toMatch(/1 more not active \(disconnected or expired\): add --all to list them\./);
  });

  test('--all includes disconnected and expired ones', async () => {
    const r = await runCli(['destinations', '--all'], { env: emu.env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^dst_demo_instagram\tinstagram\t@vidpub\.demo\tdisconnected$/m);
    const second = await runCli(['destinations', '--all'], { env: emu.env('Demo Second') });
    expect(second.stdout).toMatch(/^dst_second_tiktok\ttiktok\t@vidpub\.second\texpired$/m);
  });

  test('a terminal: a table with a header', async () => {
    const r = await runCli(['destinations', '--no-color'], { env: emu.env(), tty: true });
    expect(r.stdout.split('\n')[0]).toBe('ID                 PLATFORM  HANDLE        STATUS');
    expect(r.stdout.split('\n')[1]).toBe('dst_demo_tiktok    tiktok    @vidpub.demo  active');
  });

  test('--platform filters, in any case', async () => {
    const r = await runCli(['destinations', '--platform', 'YouTube'], { env: emu.env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('dst_demo_youtube\tyoutube\t@vidpubdemo\tactive\n');
  });

  test('--platform with no account there: nothing on stdout, a note on stderr, exit 0', async () => {
    const r = await runCli(['destinations', '--platform', 'instagram'], { env: emu.env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/No active destinations on instagram\. Add --all to include disconnected or expired ones\./);
    const quiet = await runCli(['destinations', '--platform', 'instagram', '--quiet'], { env: emu.env() });
    expect(quiet.stderr).toBe('');
  });

  test('an invalid --platform: exit 2 before any request', async () => {
    await emu.reset();
    const r = await runCli(['destinations', '--platform', 'no such!'], { env: emu.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: invalid --platform "no such!"/);
    expect(await emu.requests()).toEqual([]);
  });

  test('--json: the array (active only unless --all)', async () => {
    const active = JSON.parse((await runCli(['destinations', '--json'], { env: emu.env() })).stdout);
    expect(active.map((x: Destination) => x.id)).toEqual(['dst_demo_tiktok', 'dst_demo_youtube', 'dst_demo_linkedin']);
    expect(active[0]).toMatchObject({ platform: 'tiktok', handle: '@vidpub.demo', status: 'active', video_limits: { max_duration_sec: 600 } });
    const all = JSON.parse((await runCli(['destinations', '--json', '--all'], { env: emu.env() })).stdout);
    expect(all).toHaveLength(4);
  });
});

describe('vidpub options', () => {
  test('a creator-disclosure destination named by platform: options, creator, maximum duration, privacy line', async () => {
    const r = await runCli(['options', 'tiktok'], { env: { ...emu.env(), NO_COLOR: '1' }, tty: { stdout: true }, columns: 200 });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Options for dst_demo_tiktok (tiktok @vidpub.demo, active):\n');
    expect(r.stdout).toContain(
      '  privacy (required): PUBLIC_TO_EVERYONE | MUTUAL_FOLLOW_FRIENDS | FOLLOWER_OF_CREATOR | SELF_ONLY; no default — Who can view this video\n',
    );
    expect(r.stdout).toContain('  allow_comments: true | false; default true — Allow comments\n');
    expect(r.stdout).toContain('Posting as: vidpub Demo (@vidpub.demo)\n');
    expect(r.stdout).toContain('Maximum video duration: 600s\n');
    expect(r.stdout).toContain('Privacy must be chosen by the person posting: it has no default.\n');
  });

  test('a destination without creator disclosure: options only', async () => {
    const r = await runCli(['options', '@vidpubdemo'], { env: { ...emu.env(), NO_COLOR: '1' }, tty: { stdout: true }, columns: 200 });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  visibility (required): public | unlisted | private; default private — Visibility\n');
    expect(r.stdout).toContain('  title: any string; no default — Title (defaults to the caption)\n');
    expect(r.stdout).not.toMatch(/Posting as|Privacy must/);
  });

  test('by handle without @, in another case, and by id', async () => {
    for (const name of ['VIDPUB.DEMO', 'vidpub.demo', 'dst_demo_tiktok']) {
      const r = await runCli(['options', name], { env: { ...emu.env(), NO_COLOR: '1' }, tty: { stdout: true }, columns: 200 });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Options for dst_demo_tiktok /);
    }
  });

  test('--json: the options record', async () => {
    const r = await runCli(['options', 'tiktok', '--json'], { env: emu.env() });
    expect(r.code).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(o.creator).toMatchObject({ handle: '@vidpub.demo', display_name: 'vidpub Demo' });
    expect(o.max_duration_sec).toBe(600);
    expect(o.options.find((x: { key: string }) => x.key === 'privacy')).toMatchObject({ required: true, default: null });
  });

  test('unknown: exit 2 listing the candidates', async () => {
    const r = await runCli(['options', '@nobody'], { env: emu.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: unknown destination "@nobody": give its id, its @handle, or its platform$/m);
    expect(r.stderr).toMatch(/^ {2}dst_demo_instagram \(instagram @vidpub\.demo, disconnected\)$/m);
  });

  test('ambiguous platform: exit 2 listing the active accounts there', async () => {
    const r = await runCli(['options', 'tiktok'], { env: emu.env('Studio') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/"tiktok" is ambiguous: the workspace has 3 active tiktok accounts/);
    expect(r.stderr).toMatch(/dst_studio_tiktok_1 \(tiktok @studio\.one, active\)/);
    expect(r.stderr).toMatch(/dst_studio_tiktok_3 \(tiktok @studio\.three, active\)/);
  });

  test('the platform of the one (inactive) account there resolves as its id does: options instagram = options dst_demo_instagram', async () => {
    const byPlatform = await runCli(['options', 'instagram'], { env: emu.env() });
    const byId = await runCli(['options', 'dst_demo_instagram'], { env: emu.env() });
    expect(byPlatform.code, byPlatform.stderr).toBe(0);
    expect(byPlatform.stdout).toBe(byId.stdout);
    expect(byPlatform.stdout).toMatch(/share_to_feed/);
    // post still refuses it, as inactive, in the same words as by id
    const post = await runCli(['post', '--media', 'med_demo_sample', '--to', 'instagram', '--caption', 'x', '--no-input'], { env: emu.env() });
    expect(post.code).toBe(2);
    expect(post.stderr).toMatch(/^Error: cannot post to an inactive destination: @vidpub\.demo \(instagram\) is disconnected$/m);
  });

  test('no destination given: exit 2', async () => {
    const r = await runCli(['options'], { env: emu.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing required argument 'destination'/);
  });

  test('a destination the service no longer has: exit 5', async () => {
    await emu.fault({ method: 'GET', path: '/v1/destinations/dst_demo_youtube/options', action: 'status', status: 404, times: 1 });
    const r = await runCli(['options', 'youtube'], { env: emu.env() });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/^Error: Not found: .*\(HTTP 404 not_found\)$/m);
  });
});

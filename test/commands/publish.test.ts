import { describe, expect, it } from 'vitest';
import type { Post } from '../../src/contract/wire-types.js';
import { cliRunner } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { CE_MIDNIGHT_UTC, CE_ZONE, IN_TIME, dayAhead } from '../support/dates.js';
import { exhaustDailyAllowance, useEmulator } from '../support/emulator.js';
import { escapeRegExp } from '../support/regexp.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });

const run = cliRunner(() => ({ clock: scaledClock(50), env: { ...emu.env(), TZ: 'Europe/Paris' } }));

/** A draft made straight through the API. */
async function draft(destinations: { destination_id: string; options?: Record<string, unknown> }[] = [{ destination_id: 'dst_demo_linkedin' }]): Promise<Post> {
  const r = await emu.api.post<Post>('/posts', { media_id: 'med_demo_sample', caption: 'draft', destinations });
  expect(r.status).toBe(201);
  expect(r.body.status).toBe('draft');
  return r.body;
}

const getPost = async (id: string) => (await emu.api.get<Post>(`/posts/${id}`)).body;


describe('vidpub publish', () => {
  it('publishes a draft now and waits until every destination is published (exit 0)', async () => {
    const d = await draft([{ destination_id: 'dst_demo_linkedin' }, { destination_id: 'dst_demo_youtube' }]);
    const r = await run(['publish', d.id]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`Publishing post ${d.id}: now, today [\\d:]+ ${CE_ZONE} \\(\\S+Z\\)`));
    expect(r.stdout).toMatch(/^status\tcompleted$/m);
    expect(r.stdout).toMatch(/^@vidpubdemo \(youtube\)\tpublished\thttp/m);
  });

  it('schedules a draft with --at, then moves it, then sends it now', async () => {
    const d = await draft();
    // a summer day, so Paris is on CEST (UTC+2)
    const day = dayAhead([6, 7, 8]);
    const next = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
    const first = await run(['publish', d.id, '--at', `${day} 10:00`]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^status\tscheduled$/m);
    expect(Date.parse(/^publish_at\t(\S+)$/m.exec(first.stdout)![1]!)).toBe(Date.parse(`${day}T08:00:00Z`));
    expect(Date.parse((await getPost(d.id)).publish_at!)).toBe(Date.parse(`${day}T08:00:00Z`));

    const moved = await run(['publish', d.id, '--at', `${next}T07:30:00Z`, '--json']);
    expect(moved.code).toBe(0);
    expect((JSON.parse(moved.stdout) as Post).status).toBe('scheduled');
    expect(Date.parse((await getPost(d.id)).publish_at!)).toBe(Date.parse(`${next}T07:30:00Z`));

    const now = await run(['publish', d.id, '--json']);
    expect(now.code).toBe(0);
    expect((JSON.parse(now.stdout) as Post).status).toBe('completed');
  });

  it('--no-wait returns while it is publishing', async () => {
    const d = await draft();
    const r = await run(['publish', d.id, '--no-wait']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`Follow it with: vidpub status ${d.id} --wait`));
  });

  it('blocking issues: exit 8 listing them with the review_url; the post stays a draft', async () => {
    const d = await draft([{ destination_id: 'dst_demo_tiktok' }]);
    const r = await run(['publish', d.id]);
    expect(r.code).toBe(8);
    expect(r.stdout).toMatch(/^issue\terror\tmissing_required_option\tdst_demo_tiktok\t.*privacy/m);
    expect(r.stdout).toMatch(new RegExp(`^review_url\\t${escapeRegExp(d.review_url)}$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`Error: Post ${d.id} was not published: 1 issue of severity error blocks it\\nFix it at ${escapeRegExp(d.review_url)}, then run: vidpub publish ${d.id}`));
    expect((await getPost(d.id)).status).toBe('draft');
  });

  it('the daily allowance used up: exit 4 with the reset time, and the draft stays a draft', async () => {
    const d = await draft();
    await exhaustDailyAllowance(emu);
    const r = await run(['publish', d.id]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(new RegExp(`Error: The daily post allowance is used up; post ${d.id} was not published and stays as it was \\(a draft stays a draft\\)\\. It resets at \\S+ ${CE_MIDNIGHT_UTC}, ${IN_TIME} \\(\\S+T00:00:00Z\\)\\.`));
    expect((await getPost(d.id)).status).toBe('draft');
  });

  it('an unknown post: exit 5', async () => {
    const r = await run(['publish', 'post_doesnotexist']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/Error: Not found: No post with id "post_doesnotexist"/);
  });

  it('a past or malformed --at, and a malformed id: exit 2 with no request', async () => {
    const past = await run(['publish', 'post_1', '--at', '2001-01-01 10:00']);
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/is in the past/);
    const bad = await run(['publish', 'post_1', '--at', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid time "soon"/);
    const id = await run(['publish', 'post 1']);
    expect(id.code).toBe(2);
    expect(id.stderr).toMatch(/invalid post id "post 1"/);
    expect((await emu.requests()).filter((q) => q.path.startsWith('/v1/'))).toHaveLength(0);
  });
});

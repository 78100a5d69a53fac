/**
 * A "real service" for the seeding and rehearsal tests: an emulator loaded
 * with a workspace unlike the default fixture's (other ids, handles, options,
 * allowances and a used count), whose key is the one secret the seeded copy
 * must never hold.
 */
import { startTestEmulator, type TestEmulator } from './emulator.js';

/** Its last four characters are not hex digits, so no derived id can hold them by chance. */
export const SOURCE_KEY = 'vp_live_acme_rw_Qz8Rt5Wy3UxZKJM';
export const SOURCE_LAST4 = SOURCE_KEY.slice(-4);

export const SOURCE_FIXTURE = {
  accounts: [{
    id: 'acct_acme',
    name: 'Acme Inc',
    plan: 'standard',
    limits: { requests_per_minute: { read: 90, write: 12 }, api_posts_per_day: { limit: 7, scope: 'workspace', used: 2 } },
  }],
  workspaces: [{
    id: 'ws_acme_prod',
    name: 'Acme Production',
    account: 'acct_acme',
    keys: [{ key: SOURCE_KEY, name: 'CI', access: 'read_write' }],
    destinations: [
      {
        id: 'dst_acme_clips',
        platform: 'tiktok',
        handle: '@acme.clips',
        display_name: 'Acme Clips',
        video_limits: { max_duration_sec: 180, content_types: ['video/mp4'] },
        creator: { handle: '@acme.clips', display_name: 'Acme Clips' },
        options: [
          { key: 'privacy', label: 'Who can watch', type: 'enum', values: ['PUBLIC_TO_EVERYONE', 'SELF_ONLY'], required: true },
          { key: 'allow_duet', type: 'boolean', default: true },
        ],
      },
      {
        id: 'dst_acme_films',
        platform: 'vimeo',
        handle: 'acme-films',
        video_limits: { max_duration_sec: 7200, max_size_bytes: 500_000_000 },
        options: [
          { key: 'license', label: 'License', type: 'enum', values: ['by', 'by-sa', 'cc0'], default: 'by', required: true },
          { key: 'title', type: 'string' },
        ],
      },
      { id: 'dst_acme_old', platform: 'facebook', handle: 'acme.old', status: 'expired' },
    ],
    media: [{ id: 'med_acme_teaser', filename: 'teaser.mp4', content_type: 'video/mp4', size_bytes: 2_000_000, duration_sec: 30 }],
  }],
};

export const SOURCE_DESTINATIONS = ['dst_acme_clips', 'dst_acme_films', 'dst_acme_old'];

/** The source, started; its daily count is 3 once `spendOne` ran (2 from the fixture, 1 post). */
export async function startSource(): Promise<TestEmulator> {
  return startTestEmulator({ fixture: SOURCE_FIXTURE });
}

/** One post at the source (to dst_acme_films, now): its daily count moves from 2 to 3. */
export async function spendOne(source: TestEmulator): Promise<void> {
  const r = await source.api.as(SOURCE_KEY).post('/posts', {
    media_id: 'med_acme_teaser', caption: 'teaser', destinations: [{ destination_id: 'dst_acme_films' }], publish_at: 'now',
  });
  if (r.status !== 201) throw new Error(`source post: ${r.status} ${r.text}`);
}

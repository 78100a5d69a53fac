/**
 * The fixture `vidpub emulator` serves unless `--fixture` is given: the
 * workspaces, keys and destinations the "The default fixture" table of docs/emulator.md
 * describes.
 */
import { MAX_FILE_SIZE_BYTES, PLATFORM_CAPTION_CHARS } from '../contract/service-rules.js';
import { SUPPORTED_CONTENT_TYPES, type DestinationStatus, type KeyAccess, type OptionType, type OptionValue } from '../contract/wire-types.js';
import type { Fixture, FixtureDestination, FixtureKey, FixtureMedia, FixtureOption } from './fixture.js';

export const DEFAULT_KEYS = {
  demo_rw: 'vp_live_demo_rw_k7Qm2Xc4Lp9Hs3Td',
  demo_read: 'vp_live_demo_ro_F4n8Vb2Rz6Wq1Ye5',
  demo_revoked: 'vp_live_demo_revoked_X2v6Bn4Ts8Hj',
  second_rw: 'vp_live_demo2_rw_P3s9Jd5Gk1Mx7Cv2',
  studio_rw: 'vp_live_studio_rw_H8t2Nw6Ya4Lb9Qe3',
  free_rw: 'vp_live_free_rw_Z5c1Rm7Ue3Kp8Dw4',
} as const;

/** When the fixture's keys and videos were made, unless a fixture file says. */
export const FIXTURE_CREATED_AT = '2025-01-15T09:00:00.000Z';
const ALL_TYPES = [...SUPPORTED_CONTENT_TYPES] as string[];

function key(k: string, name: string, access: KeyAccess, revoked = false): FixtureKey {
  return { key: k, name, access, revoked, created_at: FIXTURE_CREATED_AT };
}

const opt = (
  k: string,
  label: string,
  type: OptionType,
  values: OptionValue[] | null,
  def: OptionValue | null,
  required: boolean,
): FixtureOption => ({ key: k, label, type, values, default: def, required });

function shortVideo(id: string, handle: string, name: string, status: DestinationStatus = 'active'): FixtureDestination {
  return {
    id,
    platform: 'tiktok',
    handle,
    display_name: name,
    status,
    video_limits: { max_duration_sec: 600, max_size_bytes: MAX_FILE_SIZE_BYTES, content_types: ['video/mp4', 'video/quicktime', 'video/webm'] },
    options: [
      opt('privacy', 'Who can view this video', 'enum', ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'], null, true),
      opt('allow_comments', 'Allow comments', 'boolean', [true, false], true, false),
      opt('allow_duet', 'Allow duet', 'boolean', [true, false], false, false),
      opt('allow_stitch', 'Allow stitch', 'boolean', [true, false], false, false),
      opt('branded_content', 'Disclose as branded content', 'boolean', [true, false], false, false),
    ],
    creator: { handle, display_name: name, avatar_url: `https://avatars.example.com/${handle.replace(/^@/, '')}.png` },
    caption_max_length: PLATFORM_CAPTION_CHARS.tiktok!,
  };
}

function longForm(id: string, handle: string, name: string, status: DestinationStatus = 'active'): FixtureDestination {
  return {
    id,
    platform: 'youtube',
    handle,
    display_name: name,
    status,
    video_limits: { max_duration_sec: 43_200, max_size_bytes: MAX_FILE_SIZE_BYTES, content_types: ALL_TYPES },
    options: [
      opt('visibility', 'Visibility', 'enum', ['public', 'unlisted', 'private'], 'private', true),
      opt('category', 'Category', 'enum', ['People & Blogs', 'Education', 'Entertainment', 'Science & Technology'], 'People & Blogs', false),
      opt('notify_subscribers', 'Notify subscribers', 'boolean', [true, false], true, false),
      opt('title', 'Title (defaults to the caption)', 'string', null, null, false),
    ],
    creator: null,
    caption_max_length: PLATFORM_CAPTION_CHARS.youtube!,
  };
}

function optionalOnly(id: string, handle: string, name: string): FixtureDestination {
  return {
    id,
    platform: 'linkedin',
    handle,
    display_name: name,
    status: 'active',
    video_limits: { max_duration_sec: 900, max_size_bytes: MAX_FILE_SIZE_BYTES, content_types: ['video/mp4', 'video/quicktime'] },
    options: [
      opt('visibility', 'Visibility', 'enum', ['PUBLIC', 'CONNECTIONS'], 'PUBLIC', false),
      opt('allow_comments', 'Allow comments', 'boolean', [true, false], true, false),
    ],
    creator: null,
    caption_max_length: PLATFORM_CAPTION_CHARS.linkedin!,
  };
}

function reels(id: string, handle: string, name: string, status: DestinationStatus): FixtureDestination {
  return {
    id,
    platform: 'instagram',
    handle,
    display_name: name,
    status,
    video_limits: { max_duration_sec: 900, max_size_bytes: MAX_FILE_SIZE_BYTES, content_types: ['video/mp4', 'video/quicktime'] },
    options: [opt('share_to_feed', 'Also share to feed', 'boolean', [true, false], true, false)],
    creator: null,
    caption_max_length: PLATFORM_CAPTION_CHARS.instagram!,
  };
}

function readyMedia(id: string, filename: string, size: number, duration: number): FixtureMedia {
  return { id, filename, content_type: 'video/mp4', size_bytes: size, duration_sec: duration, status: 'ready', error_message: null, created_at: FIXTURE_CREATED_AT };
}

/** The fixture `vidpub emulator` serves unless --fixture is given. A fresh copy each call. */
export function defaultFixture(): Fixture {
  return {
    accounts: [
      { id: 'acct_demo', name: 'Demo Company', plan: 'standard' },
      { id: 'acct_studio', name: 'Studio Company', plan: 'studio' },
      { id: 'acct_free', name: 'Free Company', plan: 'free' },
    ],
    workspaces: [
      {
        id: 'ws_demo',
        name: 'Demo',
        account: 'acct_demo',
        keys: [
          key(DEFAULT_KEYS.demo_rw, 'Demo read/write', 'read_write'),
          key(DEFAULT_KEYS.demo_read, 'Demo read-only', 'read'),
          key(DEFAULT_KEYS.demo_revoked, 'Demo revoked', 'read_write', true),
        ],
        destinations: [
          shortVideo('dst_demo_tiktok', '@vidpub.demo', 'vidpub Demo'),
          longForm('dst_demo_youtube', '@vidpubdemo', 'vidpub Demo Channel'),
          optionalOnly('dst_demo_linkedin', 'vidpub-demo', 'vidpub Demo Page'),
          reels('dst_demo_instagram', '@vidpub.demo', 'vidpub Demo (old)', 'disconnected'),
        ],
        media: [
          readyMedia('med_demo_sample', 'sample.mp4', 4_200_000, 15),
          readyMedia('med_demo_long', 'long-talk.mp4', 48_000_000, 700),
        ],
      },
      {
        id: 'ws_demo_second',
        name: 'Demo Second',
        account: 'acct_demo',
        keys: [key(DEFAULT_KEYS.second_rw, 'Demo Second read/write', 'read_write')],
        destinations: [
          longForm('dst_second_youtube', '@vidpubsecond', 'vidpub Second Channel'),
          shortVideo('dst_second_tiktok', '@vidpub.second', 'vidpub Second', 'expired'),
        ],
        media: [readyMedia('med_second_sample', 'second.mp4', 3_100_000, 12)],
      },
      {
        id: 'ws_studio',
        name: 'Studio',
        account: 'acct_studio',
        keys: [key(DEFAULT_KEYS.studio_rw, 'Studio read/write', 'read_write')],
        destinations: [
          shortVideo('dst_studio_tiktok_1', '@studio.one', 'Studio One'),
          shortVideo('dst_studio_tiktok_2', '@studio.two', 'Studio Two'),
          shortVideo('dst_studio_tiktok_3', '@studio.three', 'Studio Three'),
          longForm('dst_studio_youtube', '@studiochannel', 'Studio Channel'),
        ],
        media: [readyMedia('med_studio_sample', 'studio.mp4', 5_500_000, 20)],
      },
      {
        id: 'ws_free',
        name: 'Free',
        account: 'acct_free',
        keys: [key(DEFAULT_KEYS.free_rw, 'Free key', 'read_write')],
        destinations: [longForm('dst_free_youtube', '@freechannel', 'Free Channel')],
        media: [],
      },
    ],
  };
}

/**
 * The cells of the fault matrix (fault-matrix.test.ts): each command, phase
 * by phase, with the fault injected in that phase, what it must exit with and
 * print, and how many posts it may leave. Also run in part over TLS and
 * through a proxy (test/net/fault-matrix-tls.test.ts).
 */
import { expect } from 'vitest';
import type { TestEmulator } from '../support/emulator.js';

export const TIMEOUT_S = 4;
export const TIMEOUT_MS = TIMEOUT_S * 1000;

export const T = ['--timeout', `${TIMEOUT_S}s`, '--no-input'];
export const POST_MEDIA = ['post', '--media', 'med_demo_sample', '--to', 'youtube', '--caption', 'x', ...T];
export const POST_FILE = ['post', 'test/fixtures/clip.mp4', '--to', 'youtube', '--caption', 'x', ...T];
/**
 * For a cell that must succeed: its --timeout only keeps a hang from lasting, and is long enough that a loaded
 * machine never runs it out (over TLS and a proxy, 4 s of real time was not always enough for a reset and a retry).
 */
export const T_SETTLE = ['--timeout', '60s', '--no-input'];

/** The --timeout a cell's command runs under, ms. */
export const timeoutOf = (args: string[]): number => Number(args[args.indexOf('--timeout') + 1]!.replace('s', '')) * 1000;
/** The same command line under another --timeout. */
export const withTimeout = (args: string[], value: string): string[] => args.map((a, i) => (args[i - 1] === '--timeout' ? value : a));

const POST_MEDIA_SETTLE = withTimeout(POST_MEDIA, '60s');

export interface Cell {
  command: string;
  phase: string;
  fault: string;
  faults: Record<string, unknown>[];
  args: string[];
  code: number;
  /** What stdout holds (a pattern), or '' for nothing. */
  stdout: RegExp | '';
  stderr: RegExp;
  /** The command must end within the deadline + 1 s (cells that end on their own are checked for the same bound). */
  posts?: number;
  /** Makes what the command acts on (a post); returns its id, put in place of ID in args. */
  setup?: (on: TestEmulator) => Promise<string>;
  /** The command's environment instead of the emulator's key and base URL. */
  env?: (on: TestEmulator) => Record<string, string>;
  /** Fed to stdin. */
  stdin?: (on: TestEmulator) => string;
}

/** A post publishing now (it takes 30 s to publish here), made without faults. */
async function publishingPost(on: TestEmulator): Promise<string> {
  const r = await on.api.post<{ id: string }>('/posts', { media_id: 'med_demo_sample', caption: 'x', publish_at: 'now', destinations: [{ destination_id: 'dst_demo_youtube' }] });
  expect(r.status).toBe(201);
  return r.body.id;
}

/** A draft, for publish. */
async function draftPost(on: TestEmulator): Promise<string> {
  const r = await on.api.post<{ id: string }>('/posts', { media_id: 'med_demo_sample', caption: 'x', destinations: [{ destination_id: 'dst_demo_youtube' }] });
  expect(r.status).toBe(201);
  return r.body.id;
}

const LATE = TIMEOUT_MS + 2000;

export const MATRIX: Cell[] = [
  {
    command: 'post',
    phase: 'resolve destinations',
    fault: 'GET /destinations never answered',
    faults: [{ method: 'GET', path: '/v1/destinations', action: 'hang', times: 10 }],
    args: POST_MEDIA,
    code: 7,
    stdout: '',
    stderr: /Stopped \(--timeout reached\) while reading the destinations; nothing was uploaded or posted/,
    posts: 0,
  },
  {
    command: 'post',
    phase: 'resolve destinations',
    fault: 'GET /destinations body trickled (1 byte/s)',
    faults: [{ method: 'GET', path: '/v1/destinations', action: 'trickle', ms: 1000, times: 10 }],
    args: POST_MEDIA,
    code: 7,
    stdout: '',
    stderr: /Stopped \(--timeout reached\) while reading the destinations/,
    posts: 0,
  },
  {
    command: 'post',
    phase: 'create upload',
    fault: 'POST /media/uploads delayed past the deadline',
    faults: [{ method: 'POST', path: '/v1/media/uploads', action: 'delay', ms: LATE }],
    args: POST_FILE,
    code: 9,
    stdout: '',
    stderr: /The outcome is unknown: the upload of clip\.mp4 may have been created at the service; the --timeout was reached[\s\S]*Rerun to settle it \(nothing is done twice\): vidpub post test\/fixtures\/clip\.mp4 .*--idempotency-key vp-[\w-]+/,
    posts: 0,
  },
  {
    command: 'post',
    phase: 'PUT',
    fault: 'signed-URL PUT hung (body not read, no answer)',
    faults: [{ method: 'PUT', path: '/_uploads/*', action: 'hang', times: 10 }],
    args: POST_FILE,
    code: 7,
    // The video exists (not completed): its id is on stdout.
    stdout: /^med_\w+\n$/,
    stderr: /Stopped \(--timeout reached\) during the upload of clip\.mp4 \(video med_\w+, \d+% sent\); it was not completed/,
    posts: 0,
  },
  {
    command: 'post --json',
    phase: 'PUT',
    fault: 'signed-URL PUT hung (body not read, no answer)',
    faults: [{ method: 'PUT', path: '/_uploads/*', action: 'hang', times: 10 }],
    args: [...POST_FILE, '--json'],
    code: 7,
    stdout: /^\{\n {2}"post": null,\n {2}"media": \{\n {4}"id": "med_\w+"/,
    stderr: /"type":"timeout".*during the upload of clip\.mp4/,
    posts: 0,
  },
  {
    command: 'post',
    phase: 'media wait',
    fault: 'GET /media/{id} never answered',
    faults: [{ method: 'GET', path: '/v1/media/*', action: 'hang', times: 10 }],
    args: POST_FILE,
    code: 7,
    stdout: /^med_\w+\n$/,
    stderr: /Stopped waiting \(--timeout reached\): video med_\w+/,
    posts: 0,
  },
  {
    command: 'post',
    phase: 'complete',
    fault: 'POST /media/{id}/complete delayed past the deadline',
    faults: [{ method: 'POST', path: '/v1/media/med_*', action: 'delay', ms: LATE }],
    args: POST_FILE,
    code: 9,
    stdout: /^med_\w+\n$/,
    stderr: /The outcome is unknown: video med_\w+ \(clip\.mp4\) may or may not have been completed[\s\S]*--idempotency-key vp-/,
    posts: 0,
  },
  {
    command: 'post',
    phase: 'create post',
    fault: 'POST /posts delayed past the deadline',
    faults: [{ method: 'POST', path: '/v1/posts', action: 'delay', ms: LATE }],
    args: POST_MEDIA,
    code: 9,
    stdout: /^med_demo_sample\n$/,
    stderr: /The outcome is unknown: the post may have been created \(video med_demo_sample\); the --timeout was reached before the service answered\.\n.*Rerun to settle it/,
  },
  {
    command: 'post',
    phase: 'create post',
    fault: 'POST /posts reset before handling, every attempt',
    faults: [{ method: 'POST', path: '/v1/posts', action: 'reset_before_handling', times: 10 }],
    args: POST_MEDIA,
    code: 9,
    stdout: /^med_demo_sample\n$/,
    // The retries of the resets run into the deadline: either way nobody knows whether it was handled.
    stderr: /The outcome is unknown: the post may have been created \(video med_demo_sample\); (the connection failed|the --timeout was reached) before the service answered/,
    posts: 0,
  },
  {
    command: 'post',
    phase: 'create post',
    fault: 'POST /posts reset after handling, once',
    faults: [{ method: 'POST', path: '/v1/posts', action: 'reset_after_handling', times: 1 }],
    args: [...POST_MEDIA_SETTLE, '--no-wait'],
    code: 0,
    stdout: /^id\tpost_\w+$/m,
    stderr: /was created by an earlier attempt of this run whose answer was lost/,
    posts: 1,
  },
  {
    command: 'post',
    phase: 'create post',
    fault: 'POST /posts 503 burst (2)',
    faults: [{ method: 'POST', path: '/v1/posts', action: 'status', status: 503, times: 2, retry_after: null }],
    args: [...POST_MEDIA_SETTLE, '--no-wait'],
    code: 0,
    stdout: /^id\tpost_\w+$/m,
    stderr: /Publishing\.|Follow it with/,
    posts: 1,
  },
  {
    command: 'post',
    phase: 'watch',
    fault: 'GET /posts/{id} body trickled (1 byte/s)',
    faults: [{ method: 'GET', path: '/v1/posts/*', action: 'trickle', ms: 1000, times: 10 }],
    args: [...POST_MEDIA, '--json'],
    code: 7,
    stdout: /"id": "post_\w+"/,
    stderr: new RegExp(`Stopped waiting for post post_\\w+ after ${TIMEOUT_S}s \\(--timeout\\); it goes on at the service`),
    posts: 1,
  },
  {
    command: 'me',
    phase: 'read',
    fault: 'GET /me never answered',
    faults: [{ method: 'GET', path: '/v1/me', action: 'hang', times: 10 }],
    args: ['me', ...T],
    code: 7,
    stdout: '',
    stderr: /Stopped: the --timeout of the command was reached\./,
  },
  {
    command: 'me',
    phase: 'read',
    fault: 'GET /me body trickled (1 byte/s)',
    faults: [{ method: 'GET', path: '/v1/me', action: 'trickle', ms: 1000, times: 10 }],
    args: ['me', '--json', ...T],
    code: 7,
    stdout: '',
    stderr: /"type":"timeout".*the --timeout of the command was reached/,
  },
  {
    command: 'me',
    phase: 'read',
    fault: 'GET /me 503 once',
    faults: [{ method: 'GET', path: '/v1/me', action: 'status', status: 503, times: 1, retry_after: null }],
    args: ['me', '--json', ...T_SETTLE],
    code: 0,
    stdout: /"workspace"/,
    // A read retried once is no news.
    stderr: /^$/,
  },
  {
    command: 'destinations',
    phase: 'read',
    fault: 'GET /destinations never answered',
    faults: [{ method: 'GET', path: '/v1/destinations', action: 'hang', times: 10 }],
    args: ['destinations', ...T],
    code: 7,
    stdout: '',
    stderr: /Stopped: the --timeout of the command was reached\./,
  },
  {
    command: 'options',
    phase: 'resolve destination',
    fault: 'GET /destinations body trickled (1 byte/s)',
    faults: [{ method: 'GET', path: '/v1/destinations', action: 'trickle', ms: 1000, times: 10 }],
    args: ['options', 'youtube', ...T],
    code: 7,
    stdout: '',
    stderr: /Stopped: the --timeout of the command was reached\./,
  },
  {
    command: 'options',
    phase: 'read options',
    fault: 'GET /destinations/{id}/options never answered',
    faults: [{ method: 'GET', path: '/v1/destinations/*', action: 'hang', times: 10 }],
    args: ['options', 'dst_demo_youtube', ...T],
    code: 7,
    stdout: '',
    stderr: /Stopped: the --timeout of the command was reached\./,
  },
  {
    command: 'login --with-key',
    phase: 'check the key',
    fault: 'GET /me never answered',
    faults: [{ method: 'GET', path: '/v1/me', action: 'hang', times: 10 }],
    args: ['login', '--with-key', ...T],
    env: (on) => ({ VIDPUB_BASE_URL: on.baseUrl }),
    stdin: (on) => on.key(),
    code: 7,
    stdout: '',
    stderr: /Stopped: the --timeout of the command was reached\./,
  },
  {
    command: 'upload',
    phase: 'poll',
    fault: 'GET /media/{id} never answered',
    faults: [{ method: 'GET', path: '/v1/media/*', action: 'hang', times: 10 }],
    args: ['upload', 'test/fixtures/clip.mp4', ...T],
    code: 7,
    stdout: /^med_\w+\n$/,
    stderr: /Stopped waiting \(--timeout reached\): video med_\w+ is/,
  },
  {
    command: 'upload',
    phase: 'complete',
    fault: 'POST /media/{id}/complete handled, its answer trickled past the deadline',
    faults: [{ method: 'POST', path: '/v1/media/med_*', action: 'trickle', ms: 1000 }],
    args: ['upload', 'test/fixtures/clip.mp4', ...T],
    code: 7,
    // Looked up (GET /media/{id}): completed after all, so the outcome is known.
    stdout: /^med_\w+\n$/,
    stderr: /Stopped \(--timeout reached\): video med_\w+ (was uploaded and is processing|is ready); it goes on at the service\./,
  },
  {
    command: 'import',
    phase: 'import',
    fault: 'POST /media/imports delayed past the deadline',
    faults: [{ method: 'POST', path: '/v1/media/imports', action: 'delay', ms: LATE }],
    args: ['import', 'https://cdn.example.com/videos/launch.mp4', ...T],
    code: 9,
    stdout: '',
    stderr: new RegExp(`The outcome is unknown: the import of https://cdn\\.example\\.com/videos/launch\\.mp4 may have been started[\\s\\S]*Rerun to settle it \\(nothing is done twice\\): vidpub import https://cdn\\.example\\.com/videos/launch\\.mp4 --timeout ${TIMEOUT_S}s --no-input --idempotency-key vp-`),
  },
  {
    command: 'status',
    phase: 'read',
    fault: 'GET /posts/{id} never answered',
    faults: [{ method: 'GET', path: '/v1/posts/*', action: 'hang', times: 10 }],
    args: ['status', 'ID', ...T],
    setup: publishingPost,
    code: 7,
    stdout: '',
    stderr: /Stopped \(--timeout reached\) before post post_\w+ could be read/,
  },
  {
    command: 'status',
    phase: 'read a video',
    fault: 'GET /media/{id} body trickled (1 byte/s)',
    faults: [{ method: 'GET', path: '/v1/media/*', action: 'trickle', ms: 1000, times: 10 }],
    args: ['status', 'med_demo_sample', ...T],
    code: 7,
    stdout: '',
    stderr: /Stopped \(--timeout reached\) before video med_demo_sample could be read/,
  },
  {
    command: 'status --wait',
    phase: 'watch',
    fault: 'GET /posts/{id} never answered',
    faults: [{ method: 'GET', path: '/v1/posts/*', action: 'hang', times: 10 }],
    args: ['status', 'ID', '--wait', ...T],
    setup: publishingPost,
    code: 7,
    stdout: '',
    stderr: /Stopped \(--timeout reached\) before post post_\w+ could be read/,
  },
  {
    command: 'publish',
    phase: 'publish',
    fault: 'POST /posts/{id}/publish delayed past the deadline',
    faults: [{ method: 'POST', path: '/v1/posts/*', action: 'delay', ms: LATE }],
    args: ['publish', 'ID', ...T],
    setup: draftPost,
    code: 9,
    stdout: /^post_\w+\n$/,
    stderr: /The outcome is unknown: post post_\w+ may have been sent to publish; the --timeout was reached[\s\S]*See where it stands with: vidpub status post_\w+/,
  },
  {
    command: 'publish',
    phase: 'publish',
    fault: 'POST /posts/{id}/publish handled, its answer trickled past the deadline',
    faults: [{ method: 'POST', path: '/v1/posts/*', action: 'trickle', ms: 1000 }],
    args: ['publish', 'ID', '--json', ...T],
    setup: draftPost,
    code: 7,
    // Looked up (GET /posts/{id}): no longer a draft, so the outcome is known.
    stdout: /"status": "(publishing|scheduled)"/,
    stderr: /Stopped \(--timeout reached\): post post_\w+ was sent to publish \((publishing|scheduled)\); it goes on at the service\./,
  },
  {
    command: 'publish',
    phase: 'watch',
    fault: 'GET /posts/{id} never answered',
    faults: [{ method: 'GET', path: '/v1/posts/*', action: 'hang', times: 10 }],
    args: ['publish', 'ID', '--json', ...T],
    setup: draftPost,
    code: 7,
    stdout: /"status": "(publishing|scheduled)"/,
    stderr: new RegExp(`Stopped waiting for post post_\\w+ after ${TIMEOUT_S}s \\(--timeout\\)`),
  },
];

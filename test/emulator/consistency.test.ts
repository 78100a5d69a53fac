/**
 * Five inconsistencies an OpenAPI fuzzer found, each answered as docs/api-notes.md says:
 * every method and path that is not an endpoint is 404 (QUERY too, and a trailing slash on any
 * route); the import link check reads a host as a resolver does (trailing dot, IPv4 inside IPv6);
 * a JSON body `null` is not an object; an empty or over-long id is a 400 in any field.
 */
import { describe, expect, it } from 'vitest';
import { isPrivateHost, normaliseHost } from '../../src/contract/addresses.js';
import { V1_ROUTES } from '../../src/emulator/v1-routes.js';
import { useEmulator } from '../support/emulator.js';
import { http, type Json, type Res } from '../support/rest.js';

const emu = useEmulator();

const origin = (): string => emu.baseUrl.replace(/\/v1$/, '');

function expectError(r: Res, status: number, type: string, code: string, param?: string): void {
  expect(r.body?.error).toMatchObject({ type, code, ...(param === undefined ? {} : { param }) });
  expect(r.status).toBe(status);
}

describe('a method that is not an endpoint', () => {
  it('QUERY is 404 not_found like every other, with or without a body and its Content-Type', async () => {
    const auth = { authorization: `Bearer ${emu.key()}` };
    const cases: [string, { headers?: Record<string, string>; body?: string }][] = [
      ['QUERY', { headers: auth }],
      ['QUERY', { headers: { ...auth, 'content-type': 'application/json' }, body: '{}' }],
      ['QUERY', { headers: { ...auth, 'content-type': 'text/plain' }, body: 'q' }],
      ['PROPFIND', { headers: auth }],
      ['PATCH', { headers: auth, body: 'x' }],
      ['DELETE', { headers: auth }],
    ];
    for (const [method, opts] of cases) {
      const r = await http(method, `${emu.baseUrl}/me`, opts);
      expect([method, r.status, r.body.error?.type, r.body.error?.code]).toEqual([method, 404, 'not_found', 'not_found']);
      expect(r.body.error.message).toBe(`No endpoint ${method} /v1/me. The API endpoints are listed in the service contract (e.g. GET /v1/me).`);
      // Answered before authentication: not counted, no rate-limit headers.
      expect(r.headers['x-ratelimit-remaining']).toBeUndefined();
    }
  });

  it('an unknown path is 404 whatever its body (over the 1 MiB limit too)', async () => {
    const r = await emu.api.call('POST', '/nope', { raw: 'x'.repeat(2 * 1024 * 1024) });
    expectError(r, 404, 'not_found', 'not_found');
  });
});

describe('a trailing slash', () => {
  const withId = (path: string, id: string): string => path.replace(':id', id);
  const ids: Record<string, string> = { media: 'med_demo_sample', posts: 'post_x', destinations: 'dst_demo_linkedin' };
  const paths = V1_ROUTES.map((r) => ({ method: r.method, path: withId(r.path, ids[r.path.split('/')[1]!] ?? 'x') }));

  async function everyRouteWithASlash(): Promise<void> {
    expect(paths.length).toBeGreaterThan(5);
    for (const { method, path } of paths) {
      const r = await emu.api.call(method, `${path}/`, method === 'POST' ? { body: {} } : {});
      expect([method, path, r.status, r.body.error?.type, r.body.error?.code]).toEqual([method, path, 404, 'not_found', 'not_found']);
      expect(r.body.error.message).toMatch(new RegExp(`^No endpoint ${method} /v1${path}/\\.`));
    }
  }

  it('is another path on every route: 404 not_found, never the record', async () => {
    await everyRouteWithASlash();
  });

  it('the same while a request fault is held (the requests then all go through the router)', async () => {
    await emu.fault({ method: 'GET', path: '/elsewhere', action: 'status', status: 503 });
    await everyRouteWithASlash();
  });

  it('an empty id segment is no id: /v1/media/ and /v1/posts//publish are 404 not_found, not counted', async () => {
    for (const [method, path] of [['GET', '/media/'], ['POST', '/posts//publish'], ['POST', '/media//complete'], ['GET', '/destinations//options']] as const) {
      const r = await emu.api.call(method, path, method === 'POST' ? { body: {} } : {});
      expect([path, r.status, r.body.error?.code]).toEqual([path, 404, 'not_found']);
      expect(r.body.error.message).toBe(`No endpoint ${method} /v1${path}. The API endpoints are listed in the service contract (e.g. GET /v1/me).`);
      expect(r.headers['x-ratelimit-remaining']).toBeUndefined();
    }
  });

  it('the routes themselves still answer', async () => {
    expect((await emu.api.get('/media/med_demo_sample')).status).toBe(200);
    expect((await emu.api.get('/me')).status).toBe(200);
  });
});

describe('the import link check reads a host as a resolver does', () => {
  it('normalises a trailing dot and an IPv4 address inside an IPv6 one', () => {
    expect(normaliseHost('LOCALHOST.')).toBe('localhost');
    expect(normaliseHost('youtube.com.')).toBe('youtube.com');
    expect(normaliseHost('[::ffff:7f00:1]')).toBe('127.0.0.1');
    expect(normaliseHost('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normaliseHost('[64:ff9b::a00:1]')).toBe('10.0.0.1');
    expect(normaliseHost('[::7f00:1]')).toBe('127.0.0.1');
    expect(normaliseHost('[::1]')).toBe('::1');
    expect(normaliseHost('[2001:db8::1]')).toBe('2001:db8::1');
    expect(isPrivateHost('foo.internal.')).toBe(true);
    expect(isPrivateHost('[fe9f::1]')).toBe(true); // fe80::/10, beyond fe80:
    expect(isPrivateHost('[2001:db8::1]')).toBe(false);
    expect(isPrivateHost('cdn.example.com.')).toBe(false);
  });

  it('refuses local, private and page-site links written with a trailing dot or as IPv4-mapped IPv6: 400 invalid_url', async () => {
    const cases: [string, string][] = [
      ['https://localhost./v.mp4', 'The link must be public: localhost. is a local or private address the service cannot reach.'],
      ['https://foo.internal./v.mp4', 'The link must be public: foo.internal. is a local or private address the service cannot reach.'],
      ['https://[::ffff:127.0.0.1]/v.mp4', 'The link must be public: [::ffff:7f00:1] (127.0.0.1) is a local or private address the service cannot reach.'],
      ['https://[::ffff:192.168.1.1]/v.mp4', 'The link must be public: [::ffff:c0a8:101] (192.168.1.1) is a local or private address the service cannot reach.'],
      ['https://[64:ff9b::10.0.0.1]/v.mp4', 'The link must be public: [64:ff9b::a00:1] (10.0.0.1) is a local or private address the service cannot reach.'],
      ['https://youtube.com./v.mp4', 'youtube.com links open a page that plays the video, not the video file.'],
      ['https://www.vimeo.com../v.mp4', 'vimeo.com links open a page that plays the video, not the video file.'],
    ];
    for (const [url, message] of cases) {
      const r = await emu.api.post('/media/imports', { url });
      expect([url, r.status, r.body.error?.type, r.body.error?.code, r.body.error?.param]).toEqual([url, 400, 'invalid_request', 'invalid_url', 'url']);
      expect(r.body.error.message.startsWith(message)).toBe(true);
    }
  });

  it('still takes a public link written with a trailing dot', async () => {
    const r = await emu.api.post('/media/imports', { url: 'https://cdn.example.com./clips/v.mp4' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'uploading', source: 'import', filename: 'v.mp4' });
  });
});

describe('a JSON body null', () => {
  it('is not an object: 400 invalid_json on every endpoint that reads a body', async () => {
    const draft = await emu.api.post('/posts', { media_id: 'med_demo_sample', caption: 'c', destinations: [{ destination_id: 'dst_demo_linkedin' }] });
    expect(draft.status).toBe(201);
    for (const path of ['/posts', '/media/uploads', '/media/imports', `/posts/${draft.body.id}/publish`]) {
      const r = await emu.api.call('POST', path, { raw: 'null' });
      expect([path, r.status, r.body.error?.type, r.body.error?.code]).toEqual([path, 400, 'invalid_request', 'invalid_json']);
      expect(r.body.error.message).toBe('The request body must be a JSON object.');
    }
  });

  it('and on the test controls that read one', async () => {
    const nullTo = (path: string) => http('POST', `${origin()}/_emulator${path}`, { headers: { 'content-type': 'application/json' }, body: 'null' });
    for (const path of ['/clock', '/settings', '/destinations/dst_demo_linkedin']) {
      const r = await nullTo(path);
      expect([path, r.status, r.body.error?.code]).toEqual([path, 400, 'invalid_json']);
      expect(r.body.error.message).toBe('The request body must be a JSON object.');
    }
    // A fault list takes one fault or an array of them: null is a fault that is not an object.
    const fault = await nullTo('/faults');
    expect([fault.status, fault.body.error?.code, fault.body.error?.message]).toEqual([400, 'invalid_field', 'A fault must be a JSON object.']);
  });

  it('while an empty body still counts as {}', async () => {
    const r = await emu.api.call('POST', '/posts', { raw: '', headers: { 'content-type': 'application/json' } });
    expectError(r, 400, 'invalid_request', 'missing_field', 'media_id');
  });
});

describe('an empty or over-long id in a post body', () => {
  const post = (mediaId: string, destinationId: string) =>
    emu.api.post('/posts', { media_id: mediaId, destinations: [{ destination_id: destinationId }] });

  it('destination_id, like media_id: 400 invalid_field naming the field, the id not echoed', async () => {
    const long = 'd'.repeat(5000);
    const cases: [Json, string, string][] = [
      [await post('med_demo_sample', ''), 'destinations[0].destination_id', 'destinations[0].destination_id must not be empty (the id of a destination, from GET /v1/destinations).'],
      [await post('med_demo_sample', '   '), 'destinations[0].destination_id', 'destinations[0].destination_id must not be empty (the id of a destination, from GET /v1/destinations).'],
      [await post('med_demo_sample', long), 'destinations[0].destination_id', 'destinations[0].destination_id must be at most 200 characters long.'],
      [await post('', 'dst_demo_linkedin'), 'media_id', 'media_id must not be empty (the id of the video to post).'],
      [await post('m'.repeat(5000), 'dst_demo_linkedin'), 'media_id', 'media_id must be at most 200 characters long.'],
    ];
    for (const [r, param, message] of cases) {
      expectError(r, 400, 'invalid_request', 'invalid_field', param);
      expect(r.body.error.message).toBe(message);
    }
  });

  it('a malformed destination_id is a 400 even when the video does not exist (the request is read before ids are looked up)', async () => {
    expectError(await post('med_nope', ''), 400, 'invalid_request', 'invalid_field', 'destinations[0].destination_id');
  });

  it('an id of the right form that is not there is still a 404 naming the field', async () => {
    expectError(await post('med_demo_sample', 'dst_nope'), 404, 'not_found', 'not_found', 'destinations[0].destination_id');
    expectError(await post('med_nope', 'dst_demo_linkedin'), 404, 'not_found', 'not_found', 'media_id');
  });
});

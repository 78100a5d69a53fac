import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { KEYS, http } from '../support/rest.js';

const emu = useEmulator({
  resetEachTest: false,
  plugins: [
    ({ app, service }) => {
      app.post('/mcp', async (req, reply) => {
        const r = await service.getMe({ authorization: req.headers.authorization });
        return reply.code(r.status).headers(r.headers).send({ tool: 'whoami', result: r.body });
      });
    },
  ],
});
describe('service layer shared by REST and other entry points', () => {
  it('in-process calls share the per-minute counters, daily allowance and idempotency with REST', async () => {
    await emu.api.freshMinute(); // one minute window for the two reads counted below
    const auth = { authorization: `Bearer ${KEYS.demo_rw}` };
    const me = await emu.service.getMe(auth);
    expect(me.status).toBe(200);
    expect(me.headers['X-RateLimit-Remaining']).toBe('59');
    const rest = await emu.api.get('/me');
    expect(rest.body.limits.requests_per_minute.read.used).toBe(2);

    const body = { json: { media_id: 'med_demo_sample', caption: 'mcp', destinations: [{ destination_id: 'dst_demo_youtube' }], publish_at: 'now' } };
    const created = await emu.service.createPost({ ...auth, idempotencyKey: 'mcp-1' }, body);
    expect(created.status).toBe(201);
    const replay = await emu.service.createPost({ ...auth, idempotencyKey: 'mcp-1' }, body);
    expect(replay.replayed).toBe(true);
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
    expect((replay.body as { id: string }).id).toBe((created.body as { id: string }).id);
    expect((await emu.api.get('/me')).body.limits.api_posts_per_day.used).toBe(1);

    const noKey = await emu.service.listDestinations({});
    expect(noKey.status).toBe(401);
  });

  it('plugins add routes to the same server; their requests are logged', async () => {
    const r = await http('POST', `http://127.0.0.1:${emu.port}/mcp`, { headers: { authorization: `Bearer ${KEYS.demo_read}` } });
    expect(r.status).toBe(200);
    expect(r.body.result.key.access).toBe('read');
    expect(r.headers['x-ratelimit-limit']).toBe('60');
    expect((await emu.api.requests()).at(-1)).toMatchObject({ method: 'POST', path: '/mcp', status: 200, authorization: true });
  });
});

/**
 * A rehearsal reads as one: the pipe form starts `rehearsal<TAB>true`, the
 * closing line says `Rehearsed: … nothing was posted`, no link to the throwaway emulator (stopped
 * by then) is printed, `--json id,status` keeps the flag and `--json id,rehearsal` is taken; a
 * rehearsal stopped by a signal advises no `vidpub status post_…` and names no throwaway emulator.
 *
 * Two runs of the built bin: the text form end to end (the throwaway emulator loaded from the
 * bundle, dist/emulator.js) and the one stopped by a real SIGINT. The other forms are what main()
 * prints, run in-process (runCli, the same main over real HTTP): a start of the bin each added
 * its CPU, not a state.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, runAsync } from '../support/build.js';
import { runCli } from '../support/cli.js';
import { scaledClock } from '../support/clock.js';
import { useEmulator } from '../support/emulator.js';
import { spawnWatched } from '../support/spawned.js';

const emu = useEmulator({ processingMs: 20, publishMs: 20 });
const env = () => ({ ...emu.env(), NO_COLOR: '1', TZ: 'UTC', VIDPUB_NO_JOURNAL: '1', VIDPUB_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vidpub-rh-')) });
const vidpub = (args: string[]) => runAsync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env() }, timeoutMs: 60_000 });
/**
 * In-process: main(argv, ctx) with the same env, its result in the bin's shape; on a clock ten times as fast (the
 * throwaway emulator keeps its time by it too): the wait for the rehearsed post, a first look a second after it
 * starts, takes a tenth of that.
 */
const inProcess = async (args: string[], more: Record<string, string> = {}) => {
  const r = await runCli(args, { env: { ...env(), ...more }, clock: scaledClock(10) });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
};
const POST = ['post', '--media', 'med_demo_sample', '--to', 'linkedin', '--caption', 'hi', '--rehearse', '--yes'];
/** A loopback URL on a port other than the test emulator's: the throwaway emulator's. */
const throwaway = () => new RegExp(`http://127\\.0\\.0\\.1:(?!${emu.port}\\b)\\d+`);
const writes = async () => (await emu.requests()).filter((q) => q.method !== 'GET');

beforeAll(() => ensureBuilt(), 120_000);

// A rehearsal starts a throwaway emulator: generous on a loaded machine.
describe('a rehearsal reads as one', { timeout: 120_000 }, () => {
  it('text, the built bin: rehearsal<TAB>true first, no links of the stopped emulator, "Rehearsed: … nothing was posted" (exit 0)', async () => {
    const r = await vidpub(POST);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('rehearsal\ttrue');
    expect(lines).toContain('status\tcompleted');
    expect(r.stdout).not.toMatch(/_emulator|review_url/);
    expect(r.stderr).toMatch(new RegExp(`^! Rehearsed: the post was completed \\(@vidpub-demo \\(linkedin\\) published\\) in a throwaway emulator, now stopped with its links; nothing was posted to http://127\\.0\\.0\\.1:${emu.port}/v1\\.$`, 'm'));
    expect(await writes()).toEqual([]);
  });

  it('--json id,status keeps the rehearsal flag; --json id,rehearsal is taken (exit 0)', async () => {
    const picked = await inProcess([...POST, '--json', 'id,status']);
    expect(picked.status, picked.stderr).toBe(0);
    expect(JSON.parse(picked.stdout)).toEqual({ id: expect.stringMatching(/^post_/), status: 'completed', rehearsal: true });
    const asked = await inProcess([...POST, '--json', 'id,rehearsal']);
    expect(asked.status, asked.stderr).toBe(0);
    expect(JSON.parse(asked.stdout)).toEqual({ id: expect.stringMatching(/^post_/), rehearsal: true });
    const whole = await inProcess([...POST, '--json']);
    expect(whole.status).toBe(0);
    const doc = JSON.parse(whole.stdout) as { review_url: unknown; destinations: { url: unknown }[]; rehearsal: boolean };
    expect(doc).toMatchObject({ review_url: null, rehearsal: true });
    expect(doc.destinations.map((d) => d.url)).toEqual([null]);
  });

  it('batch --rehearse: each line marked, no links of the stopped emulator', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-rhb-'));
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'm.jsonl'), '{"media":"med_demo_sample","to":"linkedin","caption":"hi"}\n');
    const r = await inProcess(['batch', join(dir, 'm.jsonl'), '--rehearse', '--yes']);
    expect(r.status, r.stderr).toBe(0);
    const line = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(line).toMatchObject({ item: 1, status: 'published', review_url: null, rehearsal: true });
    expect(r.stdout).not.toMatch(/_emulator/);
    expect(r.stderr).toMatch(/^! Rehearsed: 1 item \(1 published\) in a throwaway emulator, now stopped with its links; nothing was posted to /m);
  });

  it("a read-only key: the rehearsal's hint names the service's base URL, never the throwaway emulator's (exit 3)", async () => {
    const r = await inProcess(POST, { VIDPUB_API_KEY: emu.key('Demo', 'read') });
    expect(r.status).toBe(3);
    const after = r.stderr.slice(r.stderr.indexOf('Rehearsal: running against a copy'));
    expect(after.split('\n').slice(1).join('\n')).not.toMatch(throwaway());
    expect(r.stderr).toMatch(new RegExp(`then run "vidpub login --base-url http://127\\.0\\.0\\.1:${emu.port}/v1"`));
    expect(r.stderr).toMatch(/^That was a rehearsal; nothing was written to /m);
  });

  it('stopped by a real SIGINT, the built bin: no "vidpub status post_…", no hint naming the throwaway emulator (exit 130)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vidpub-rhs-'));
    copyFileSync('test/fixtures/clip.mp4', join(dir, 'clip.mp4'));
    // An upload, its processing and three destinations: steps of the throwaway emulator, long enough to stop it midway.
    const run = spawnWatched(['post', join(dir, 'clip.mp4'), '--to', 'linkedin,youtube,@vidpub.demo', '--option', 'youtube:visibility=private', '--option', '@vidpub.demo:privacy=SELF_ONLY', '--caption', 'hi', '--rehearse', '--yes'], env());
    run.onStderr((all) => {
      if (/Rehearsal: running against a copy/.test(all)) run.kill('SIGINT');
    });
    const end = await run.ended;
    expect(end.code, end.stderr).toBe(130);
    expect(end.stderr).not.toMatch(/vidpub status post_|vidpub login|--media med_/);
    const afterStart = end.stderr.slice(end.stderr.indexOf('Rehearsal: running against a copy'));
    expect(afterStart.split('\n').slice(1).join('\n')).not.toMatch(throwaway());
    expect(end.stderr).toMatch(new RegExp(`^That was a rehearsal, stopped; nothing was written to http://127\\.0\\.0\\.1:${emu.port}/v1\\. Run it again with --rehearse \\(a longer --timeout\\), or without it to post for real\\.$`, 'm'));
    expect(await writes()).toEqual([]);
  });
});

/**
 * --no-input (or VIDPUB_NO_INPUT=1) at a terminal: what would be asked is a
 * usage error (exit 2) that names the real reason, not "there is no
 * terminal" to someone sitting at one. Nothing is asked, nothing is sent.
 */
import { describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { noPrompter } from '../support/prompter.js';
import { useEmulator } from '../support/emulator.js';

const emu = useEmulator();
const run = cliRunner(() => ({ env: { ...emu.env(), NO_COLOR: '1' }, tty: true, prompter: noPrompter }));
const writes = async () => (await emu.requests()).filter((r) => r.method !== 'GET');

describe('post --no-input at a terminal', () => {
  it('a missing caption: exit 2 naming --no-input, nothing written', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'youtube', '--no-input']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: 1 required input is missing, and nothing may be asked \(--no-input, VIDPUB_NO_INPUT, or stdin is not a terminal\)\nPass:\n {2}--caption TEXT /);
    expect(r.stderr).not.toMatch(/no terminal to ask on/);
    expect(await writes()).toEqual([]);
  });

  it('a missing required option (VIDPUB_NO_INPUT=1): exit 2 naming the reason and the flag to pass, nothing written', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'tiktok', '--caption', 'x'], { env: { VIDPUB_NO_INPUT: '1' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Error: 1 required option is missing, and nothing may be asked \(--no-input, VIDPUB_NO_INPUT, or stdin is not a terminal\)\nPass:\n {2}--option tiktok:privacy=VALUE /);
    expect(await writes()).toEqual([]);
  });

  it('without a terminal the message stays as the README shows it', async () => {
    const r = await run(['post', '--media', 'med_demo_sample', '--to', 'tiktok', '--caption', 'x'], { tty: false });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Error: 1 required option is missing, and there is no terminal to ask on\n/m);
  });
});

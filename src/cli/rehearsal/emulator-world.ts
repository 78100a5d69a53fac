/**
 * `vidpub emulator export FILE` and `vidpub emulator reset`: a running
 * emulator's world written to one JSON file (GET /_emulator/export: the
 * fixture it started from, its records, clock, counters, idempotency store
 * and faults; the videos' bytes left out), which `vidpub emulator --import
 * FILE` starts from; and the emulator emptied back to its fixture
 * (POST /_emulator/reset), asked first at a terminal (without --yes).
 */
import { InterruptedError, UsageError, sanitize } from '../../errors.js';
import { ask } from '../../posts/options.js';
import type { Invocation } from '../run/command.js';
import { printJson } from '../output/json-output.js';

/** The control asked for (emulator-controls.ts parsed it). */
interface ControlOpts {
  control: 'export' | 'reset';
  value?: string;
  yes?: boolean;
}

/** The controls' request (emulator-controls.ts), handed in. */
type Call = <T>(inv: Invocation, method: string, path: string) => Promise<T>;

interface World {
  workspaces: { media: unknown[]; posts: unknown[] }[];
  video_bytes?: string;
}

export async function runWorldControl(o: ControlOpts, inv: Invocation, call: Call): Promise<void> {
  if (o.control === 'export') return exportWorld(o.value!, inv, call);
  return reset(o, inv, call);
}

async function exportWorld(file: string, inv: Invocation, call: Call): Promise<void> {
  const world = await call<World>(inv, 'GET', '/export');
  const { writeFileAtomic } = await import('../../util/atomic-write.js');
  const path = (await import('node:path')).resolve(inv.ctx.cwd, file);
  try {
    writeFileAtomic(path, `${JSON.stringify(world, null, 2)}\n`);
  } catch (err) {
    throw new UsageError(`cannot write ${sanitize(file)} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): nothing was exported`, {
      hint: 'Give a file in a directory you can write to.',
    });
  }
  const count = (k: 'media' | 'posts') => world.workspaces.reduce((n, w) => n + w[k].length, 0);
  const summary = { file, workspaces: world.workspaces.length, videos: count('media'), posts: count('posts'), video_bytes: 'left out' };
  if (inv.globals.json) return printJson(summary, inv);
  inv.log.info(`Exported the emulator's world to ${sanitize(file)}: ${summary.workspaces} workspaces, ${summary.videos} videos, ${summary.posts} posts.`);
  inv.log.info('The videos\' bytes are left out (the web app plays none of them after an import). Start from it with: vidpub emulator --import ' + sanitize(file));
}

async function reset(o: ControlOpts, inv: Invocation, call: Call): Promise<void> {
  const what = "its posts, videos, schedules, allowance counters, idempotency keys and faults go, and its clock is this machine's again";
  if (inv.interactive && !o.yes) {
    inv.ctx.io.stderr.write(`Reset the emulator to its fixture: ${what}.\n`);
    const prompter = await inv.session.prompter();
    const yes = await ask(() => prompter.confirm({ message: 'Reset it?', default: false }), 'Cancelled: nothing was reset.');
    if (!yes) throw new InterruptedError('Cancelled: nothing was reset.');
  }
  const done = await call<{ reset: boolean; now: string }>(inv, 'POST', '/reset');
  if (inv.globals.json) return printJson(done, inv);
  inv.log.info(`Emulator reset to its fixture: ${what}.`);
}

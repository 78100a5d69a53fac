import type { EmulatorStartInfo } from '../../contract/wire-types.js';
import type { FixtureError, SavedInfo } from '../../emulator/index.js';
import { sanitize, UsageError, VidpubError } from '../../errors.js';
import { renderTable } from '../../ui/table.js';
import { defineCommand, type Invocation } from '../run/command.js';
import { printJson } from '../output/json-output.js';
import { CONTROLS, logRequests, parseControl, runControl, type ControlOpts } from '../rehearsal/emulator-controls.js';

interface EmulatorOpts {
  host: string;
  exposeControls: boolean;
  port: number;
  processingMs?: number;
  publishMs?: number;
  fixture?: string;
  tls?: 'generate' | { certFile: string; keyFile: string };
  storagePort?: number;
  /** --seed-from PROFILE: a copy of that profile's workspace. */
  seedFrom?: string;
  /** --save-fixture FILE: where to write the copy too. */
  saveFixture?: string;
  /** --state DIR: where the world is kept. */
  state?: string;
  /** --import FILE: an export to start from. */
  importFile?: string;
  verbose: boolean;
}

function unknownControl(control: string): never {
  throw new UsageError(`unknown emulator control "${sanitize(control)}": use clock, fault or requests`, { hint: 'Run "vidpub emulator --help" for what each does.' });
}

/** One problem on the error line; more, one line each under a count (with --json, as "problems"). */
function invalidFixture(err: FixtureError, file: string): UsageError {
  const readme = 'See "Fixture files" in the manual (docs/emulator.md) for the format.';
  const lines = err.message.split('\n');
  if (lines.length === 1) return new UsageError(`invalid fixture: ${lines[0]}`, { hint: readme });
  const error = new UsageError(`invalid fixture: ${lines.length} problems in ${file}`, {
    hint: [...lines.map((line) => `  ${sanitize(line)}`), readme].join('\n'),
  });
  return Object.assign(error, { problems: err.problems });
}

function wholeNumber(value: string, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const text = value.trim();
  if (!/^\d+$/.test(text) || Number(text) > max) {
    throw new UsageError(`${flag} must be a whole number from 0 to ${max}, got "${text}"`);
  }
  return Number(text);
}

/** --tls, or --tls-cert with --tls-key (not both ways at once). */
function tlsOf(flags: { tls: boolean; tlsCert?: string | undefined; tlsKey?: string | undefined }): EmulatorOpts['tls'] {
  const cert = flags.tlsCert;
  const key = flags.tlsKey;
  if ((cert === undefined) !== (key === undefined)) throw new UsageError('--tls-cert and --tls-key go together: the certificate and its private key, both PEM files');
  if (cert !== undefined && flags.tls === true) throw new UsageError('--tls makes its own certificates: give either --tls or --tls-cert with --tls-key');
  if (cert !== undefined) return { certFile: cert, keyFile: key! };
  return flags.tls === true ? 'generate' : undefined;
}

async function readTlsFiles(o: { certFile: string; keyFile: string }): Promise<{ cert: string; key: string }> {
  const { readUserFile, unreadableFile } = await import('../../util/user-file.js');
  const read = async (file: string, flag: string) => {
    // Without blocking: a FIFO or a directory in its place is refused at once.
    const bytes = await readUserFile(file).catch((err: unknown) => {
      throw new UsageError(unreadableFile(`${flag} ${sanitize(file)}`, err));
    });
    const text = bytes.toString('utf8');
    if (!text.includes('-----BEGIN ')) throw new UsageError(`${flag} ${sanitize(file)} is not a PEM file (it has no "-----BEGIN" line)`);
    return text;
  };
  return { cert: await read(o.certFile, '--tls-cert'), key: await read(o.keyFile, '--tls-key') };
}

/** --seed-from PROFILE and --save-fixture FILE: the one with the other, not with --fixture. */
function seedFlags(flags: { seedFrom?: string; saveFixture?: string; fixture?: string }): Pick<EmulatorOpts, 'seedFrom' | 'saveFixture'> {
  const { seedFrom, saveFixture } = flags;
  if (saveFixture !== undefined && seedFrom === undefined) {
    throw new UsageError('--save-fixture writes the copy that --seed-from PROFILE reads: give --seed-from too');
  }
  if (seedFrom !== undefined && flags.fixture !== undefined) {
    throw new UsageError('--seed-from and --fixture both say what the emulator holds: give one of them');
  }
  if (seedFrom !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(seedFrom)) {
    throw new UsageError(`invalid profile name "${sanitize(seedFrom)}" (from --seed-from): use letters, digits, "-" and "_" (at most 64)`);
  }
  if (saveFixture !== undefined && saveFixture.trim() === '') throw new UsageError('--save-fixture is empty: give the path of the file to write');
  return { seedFrom, saveFixture };
}

export default defineCommand<'emulator', EmulatorOpts | ControlOpts, void>({
  description:
    'Run the local emulator of the Video Publishing Service: the whole v1 contract in memory, ' +
    'with demo keys, allowances, idempotency, signed uploads and background processing. ' +
    'It runs until Ctrl-C (SIGINT) or SIGTERM. With a control it drives a running emulator (--base-url, VIDPUB_BASE_URL, ' +
    "the active profile's base URL when it is on this machine, else 127.0.0.1:4010) instead: " +
    '"clock" shows its clock, "clock +2h" moves it forward; "fault KEY=VALUE,..." adds ' +
    'a fault, "fault list" and "fault clear"; "requests" prints the request log, --follow as they arrive; ' +
    '"export FILE" writes its world to one JSON file (the videos\' bytes left out), which --import FILE starts from; ' +
    '"reset" empties it back to its fixture (asked first at a terminal). With --state DIR the world is kept in DIR as it changes ' +
    'and comes back when an emulator starts on DIR again, after a stop or a kill.',
  examples: [
    'vidpub emulator',
    'vidpub emulator --port 0 --json',
    'vidpub emulator --processing-ms 200 --publish-ms 200',
    'vidpub emulator --fixture my-accounts.json',
    'vidpub emulator --tls --port 0 --json',
    'vidpub emulator --seed-from default --save-fixture my-workspace.json',
    'vidpub emulator fault path=/v1/posts,method=POST,status=503,times=2',
    'vidpub emulator clock +2h',
    'vidpub emulator requests --follow',
    'vidpub emulator --state ~/.vidpub-emulator',
    'vidpub emulator export world.json',
    'vidpub emulator --import world.json',
    'vidpub emulator reset --yes',
  ],
  parse(args, flags) {
    const [control, value] = args;
    if (control !== undefined) return parseControl(CONTROLS.find((c) => c === control) ?? unknownControl(control), value, flags.follow, flags.yes);
    if (value !== undefined || flags.follow || flags.yes) throw new UsageError('--follow, --yes and a value go with a control: vidpub emulator clock|fault|requests|export|reset');
    if (flags.state !== undefined && flags.state.trim() === '') throw new UsageError('--state is empty: give the directory that keeps the emulator\'s world');
    if (flags.import !== undefined && (flags.fixture !== undefined || flags.seedFrom !== undefined)) {
      throw new UsageError('--import and --fixture (or --seed-from) both say what the emulator holds: give one of them');
    }
    return {
      host: flags.host,
      exposeControls: flags.exposeControls,
      port: wholeNumber(flags.port, '--port', 65535),
      processingMs: flags.processingMs === undefined ? undefined : wholeNumber(flags.processingMs, '--processing-ms'),
      publishMs: flags.publishMs === undefined ? undefined : wholeNumber(flags.publishMs, '--publish-ms'),
      fixture: flags.fixture,
      tls: tlsOf(flags),
      storagePort: flags.storagePort === undefined ? undefined : wholeNumber(flags.storagePort, '--storage-port', 65535),
      verbose: flags.verbose,
      state: flags.state,
      importFile: flags.import,
      ...seedFlags(flags),
    };
  },
  async run(opts, inv) {
    if ('control' in opts) return runControl(opts, inv);
    const { ctx } = inv;
    const emulator = await import('../../emulator/index.js');
    let fixture: unknown;
    if (opts.seedFrom !== undefined) {
      const { seedFromProfile } = await import('../rehearsal/seed-profile.js');
      fixture = await seedFromProfile(opts.seedFrom, opts.saveFixture, inv);
    } else if (opts.fixture) {
      try {
        fixture = await emulator.loadFixtureFile(opts.fixture);
      } catch (err) {
        throw invalidFixture(err as FixtureError, opts.fixture);
      }
    }
    const world = opts.importFile === undefined ? undefined : await readWorld(opts.importFile);
    let handle: Awaited<ReturnType<typeof emulator.startEmulator>>;
    try {
      handle = await emulator.startEmulator({
        host: opts.host,
        exposeControls: opts.exposeControls,
        port: opts.port,
        processingMs: opts.processingMs,
        publishMs: opts.publishMs,
        fixture,
        tls: opts.tls === undefined || opts.tls === 'generate' ? opts.tls : await readTlsFiles(opts.tls),
        storagePort: opts.storagePort,
        state: opts.state,
        world,
        worldSource: opts.importFile,
      });
    } catch (err) {
      if (err instanceof emulator.StateDirError) throw new UsageError(sanitize(err.message), { hint: sanitize(err.hint) });
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') {
        throw new VidpubError(`port ${opts.port} on ${opts.host} is already in use`, {
          hint: 'Pick another with --port, or --port 0 for a free one.',
        });
      }
      // Another reason to refuse the address (EADDRNOTAVAIL, ENOTFOUND, EACCES...): the flags, not a bug.
      if (code) {
        throw new VidpubError((err as Error).message, {
          hint: '--host takes an address of this machine (default 127.0.0.1; 0.0.0.0 for all of them); --port 0 takes a free port.',
        });
      }
      throw err;
    }
    // Listening beyond this machine is said first, on stderr (the keys stay on this terminal).
    if (handle.warning) inv.log.warn(handle.warning);
    if (handle.saved) inv.log.info(savedLine(handle.saved, opts));
    if (handle.saved?.dir !== undefined && handle.saved.restored && (opts.fixture !== undefined || opts.seedFrom !== undefined)) {
      inv.log.warn(`${opts.fixture !== undefined ? '--fixture' : '--seed-from'} was not used: ${handle.saved.dir} holds a state already (vidpub emulator reset goes back to the fixture it started from; a new --state DIR starts from yours).`);
    }
    // One line (scripts read it as the emulator starts), through --json FIELDS and --jq like any document.
    if (inv.globals.json) await printJson(handle.info, inv, { compact: true });
    else printHuman(handle.info, inv);

    const logging = opts.verbose ? logRequests(inv, handle.adminUrl, ctx.signal) : undefined;
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await logging;
    inv.log.info('Stopping the emulator.');
    await handle.close();
  },
});

/** --import FILE, read and parsed (what it holds is checked by the emulator). */
async function readWorld(file: string): Promise<unknown> {
  const { readUserFile, unreadableFile } = await import('../../util/user-file.js');
  const bytes = await readUserFile(file).catch((err: unknown) => {
    throw new UsageError(unreadableFile(`--import ${sanitize(file)}`, err));
  });
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (err) {
    throw new UsageError(`--import ${sanitize(file)} is not valid JSON (${(err as Error).message})`, { hint: 'Give a file written by "vidpub emulator export FILE".' });
  }
}

/** Where the world comes from and is kept, on stderr. */
function savedLine(saved: SavedInfo, opts: EmulatorOpts): string {
  const from = opts.importFile !== undefined ? `started from ${opts.importFile}` : saved.restored ? 'restored from it' : 'new';
  const torn = saved.droppedTorn ? '; the change a kill cut short was dropped (its request was never answered)' : '';
  return saved.dir === undefined ? `World ${from} (the videos' bytes were not in it).` : `State kept in ${saved.dir} (${from})${torn}.`;
}

function printHuman(info: EmulatorStartInfo, inv: Invocation): void {
  const c = inv.colors.stdout;
  const tty = inv.ctx.io.stdoutIsTTY;
  inv.print(`${c.bold('Emulator listening')}: ${info.base_url}`);
  inv.print(`Web app: ${info.admin_url}/app`);
  inv.print(`Test controls: ${info.admin_url}`);
  if (info.storage_url) inv.print(`Upload links: ${info.storage_url}`);
  if (info.ca_file) inv.print(`CA file: ${info.ca_file}`);
  inv.print('');
  for (const line of renderTable(info.keys, [
    { header: 'Key', value: (k) => k.key },
    { header: 'Workspace', value: (k) => k.workspace },
    { header: 'Plan', value: (k) => k.plan },
    { header: 'Access', value: (k) => k.access },
  ], { tty, bold: c.bold })) {
    inv.print(line);
  }
  const first = info.keys.find((k) => k.access === 'read_write') ?? info.keys[0];
  if (first) {
    inv.log.info('');
    const ca = info.ca_file ? ` VIDPUB_CA_FILE=${info.ca_file}` : '';
    inv.log.info(`Try it: VIDPUB_BASE_URL=${info.base_url}${ca} VIDPUB_API_KEY=${first.key} vidpub me`);
  }
  inv.log.info('Press Ctrl-C to stop.');
}

import { resolve as resolvePath } from 'node:path';
import { KEY_PREFIX_MARKER, LIVE_KEY_LOOSELY } from '../../core/key-format.js';
import { AuthError, CancelledError, DeadlineReached, InterruptedError, TimeoutError, UsageError, sanitize } from '../../errors.js';
import { bindDeadline } from '../../session/deadline.js';
import { formatDuration } from '../../time/duration.js';
import { renderFields } from '../../ui/table.js';
import { defineCommand, type Invocation } from '../run/command.js';
import { readKeyFile } from '../../api/credentials.js';
import { keyCharacterError } from '../../api/send/http-errors.js';
import { maskKey } from './me.js';
import { saveKey } from '../../config/key-store.js';
import { keychainName, profileCommand, storageName, type KeyStorage } from '../../config/key-storage.js';

interface LoginOpts {
  withKey: boolean;
  /** --api-key-file: the key is read from this file instead. */
  keyFile?: string;
  /** --insecure-storage: the config file, not the OS store. */
  fileOnly: boolean;
}

export interface LoginResult {
  profile: string;
  base_url: string;
  workspace: string;
  workspace_id?: string;
  plan: string;
  access: string;
  key: string;
  /** Where the key is kept: the OS store (`keychain`) or the config file (`file`). */
  storage: KeyStorage;
  config_path: string;
}

export function checkKeyShape(key: string, source = 'the key'): void {
  if (key === '') throw new UsageError('no API key was given', { hint: 'Paste the key at the prompt, or pipe it: vidpub login --with-key < key.txt' });
  // A space, a curly quote or a control character inside the key gets its own sentence.
  const characters = keyCharacterError(key, source);
  if (characters) throw characters;
  if (!LIVE_KEY_LOOSELY.test(key)) {
    // Never echo what was given: it may be a real secret pasted in the wrong place.
    throw new AuthError(`that is not a live API key: keys start with a prefix ending in "${KEY_PREFIX_MARKER}" (such as vp${KEY_PREFIX_MARKER}…)`, {
      hint: 'Copy the key from the API settings of the workspace in the web app; it is shown once, when created.',
    });
  }
}

/**
 * stdin to its end, trimmed. A stdin that never ends (left open by the caller) does not hang
 * login: Ctrl-C stops the read, and so does --timeout when stdin is not a terminal.
 */
async function readStdin(inv: Invocation): Promise<string> {
  const { ctx, globals } = inv;
  const timeoutMs = ctx.io.stdinIsTTY ? undefined : globals.commandTimeoutMs;
  const deadline = bindDeadline(inv.session, timeoutMs === undefined ? undefined : ctx.clock.now() + timeoutMs, timeoutMs);
  const signal = deadline.session.signal;
  const stdin = ctx.io.stdin;
  const chunks: Buffer[] = [];
  let onAbort = () => {};
  try {
    await new Promise<void>((resolve, reject) => {
      onAbort = () => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      stdin.on('data', (chunk: Buffer | string) => chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
      stdin.once('end', resolve);
      stdin.once('error', reject);
    });
  } catch (err) {
    if (ctx.signal.aborted) throw new InterruptedError('Interrupted: nothing was stored.');
    if (err instanceof DeadlineReached) {
      throw new TimeoutError(`Stopped: stdin did not end within the --timeout of the command (${formatDuration(timeoutMs!)}), so no key was read; nothing was stored.`, {
        hint: 'Pipe the key and let stdin end: vidpub login --with-key < key.txt (or use --api-key-file key.txt).',
      });
    }
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    deadline.dispose();
    stdin.pause();
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}

async function askKey(inv: Invocation): Promise<string> {
  const prompter = await inv.ctx.prompter();
  try {
    return (await prompter.password({ message: 'API key (input is hidden)', mask: '*' })).trim();
  } catch (err) {
    if (inv.ctx.signal.aborted) throw new InterruptedError('Interrupted: nothing was stored.');
    // Ctrl-C at the prompt: a question cancelled, not an error.
    if ((err as Error)?.name === 'ExitPromptError' || (err as Error)?.name === 'AbortPromptError') throw new CancelledError('Cancelled: nothing was stored.');
    throw err;
  }
}

export default defineCommand<'login', LoginOpts, LoginResult>({
  description:
    'Check an API key with GET /me and store it in a profile: the key in the system keychain (the macOS Keychain, ' +
    'Windows Credential Manager, the Secret Service on Linux) when one answers within 3 s, else, or with --insecure-storage, ' +
    'in the config file (mode 0600); the base URL in the config file. The key is asked with a hidden prompt, read from stdin with --with-key, or from a file ' +
    'with --api-key-file; no flag ' +
    'takes the key itself (it would land in shell history and ps). Read-only keys work too.',
  examples: [
    'vidpub login',
    'vidpub login --with-key < ~/.secrets/vidpub-key',
    'vidpub login --api-key-file ~/.secrets/vidpub-key --no-input',
    'printenv VIDPUB_KEY_FOR_CI | vidpub login --with-key --profile ci',
    'vidpub login --base-url http://127.0.0.1:4010/v1 --profile emulator',
  ],
  parse(_args, flags, inv) {
    const withKey = flags.withKey;
    const keyFile = inv.globals.apiKeyFile;
    if (withKey && keyFile) throw new UsageError('give the key one way: --with-key (stdin) or --api-key-file, not both');
    if (!withKey && !keyFile && !inv.interactive) {
      throw new UsageError('no terminal to ask for the key (--no-input, VIDPUB_NO_INPUT, or stdin is not a terminal)', {
        hint: 'Pipe the key in: vidpub login --with-key < key.txt (or use --api-key-file key.txt)',
      });
    }
    return { withKey, keyFile, fileOnly: flags.insecureStorage === true };
  },
  async run(opts, inv) {
    const { ctx, globals } = inv;
    // Open the store first: a corrupt config file stops us before the key is asked.
    const { openConfigStore } = await import('../../config/config-store.js');
    const store = await openConfigStore(ctx.env, ctx.cwd, { writable: true, clock: ctx.clock });

    const key = opts.withKey ? await readStdin(inv) : opts.keyFile ? await readKeyFile(ctx.cwd, opts.keyFile, { signal: ctx.signal, timeoutMs: inv.globals.commandTimeoutMs, clock: ctx.clock }) : await askKey(inv);
    checkKeyShape(key, opts.withKey ? 'The key on stdin' : opts.keyFile ? `The key in ${sanitize(opts.keyFile)}` : 'The key you typed');
    const keyReadAt = ctx.clock.now(); // where --timeout starts

    const client = await ctx.createClient({ ...inv.clientSettings, apiKey: key, apiKeyFile: undefined });
    let me;
    try {
      me = await client.getMe();
    } finally {
      await client.close();
    }
    const workspace = String(me?.workspace?.name ?? '');
    if (globals.workspace && workspace !== globals.workspace) {
      throw new AuthError(`This key belongs to workspace "${sanitize(workspace)}", not "${sanitize(globals.workspace)}" (--workspace); nothing was stored.`);
    }
    // A wait for another vidpub's lock on the file ends at Ctrl-C and at the --timeout, as the request does.
    const timeoutMs = globals.commandTimeoutMs;
    const deadline = bindDeadline(inv.session, timeoutMs === undefined ? undefined : keyReadAt + timeoutMs, timeoutMs);
    let saved;
    try {
      const fields = {
        base_url: client.baseUrl,
        ca_file: client.net?.caFile === undefined ? undefined : resolvePath(ctx.cwd, client.net.caFile),
        workspace: workspace || undefined,
        logged_in_at: new Date(ctx.clock.now()).toISOString(),
      };
      saved = await saveKey(store, ctx.env, globals.profile, key, fields, { fileOnly: opts.fileOnly, signal: deadline.session.signal });
    } catch (err) {
      if (ctx.signal.aborted) throw new InterruptedError('Interrupted: nothing was stored.');
      if (err instanceof DeadlineReached) {
        throw new TimeoutError(
          `Stopped: the --timeout of the command was reached while waiting for the lock on ${sanitize(store.path)} (another vidpub login or logout is using it); nothing was stored.`,
        );
      }
      throw err;
    } finally {
      deadline.dispose();
    }
    if (saved.fallback) {
      inv.log.warn(`No system keychain could take the key (${saved.fallback}): it is stored in ${storageName('file', store.path)} (mode 0600).`);
    }
    if (saved.left) {
      inv.log.warn(`The key stored earlier stays in ${keychainName()} under "${sanitize(saved.left.account)}" (${saved.left.reason}).`);
      inv.log.warn(`When it can be reached, "${profileCommand('login', globals.profile)}" puts this key there in its place, or "${profileCommand('logout', globals.profile)}" removes both.`);
    }
    if (ctx.env.VIDPUB_API_KEY?.trim()) {
      inv.log.warn('VIDPUB_API_KEY is set: it takes precedence over the stored key until you unset it.');
    }
    return {
      profile: globals.profile,
      base_url: client.baseUrl,
      workspace,
      workspace_id: me?.workspace?.id,
      plan: String(me?.plan?.name ?? 'unknown'),
      access: String(me?.key?.access ?? 'unknown'),
      key: maskKey(me?.key),
      storage: saved.storage,
      config_path: store.path,
    };
  },
  print(r, inv) {
    const c = inv.colors.stdout;
    const tty = inv.ctx.io.stdoutIsTTY;
    if (tty) inv.print(`${c.green('✓')} Logged in to workspace ${c.bold(sanitize(r.workspace))}.`);
    for (const line of renderFields(
      [
        ['Workspace', r.workspace],
        ['Plan', r.plan],
        ['Access', r.access === 'read' ? 'read (look things up only; posting needs a read_write key)' : r.access],
        ['Key', r.key],
        ['Profile', r.profile],
        ['Base URL', r.base_url],
        ['Stored in', storageName(r.storage, r.config_path)],
      ],
      { tty, dim: c.dim },
    )) {
      inv.print(line);
    }
  },
});

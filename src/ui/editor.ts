/**
 * Text written in the person's editor ($VISUAL, else $EDITOR), as gh and git do: the text in a
 * new file of a private temporary directory (0700, the file 0600), the editor started on it at
 * the terminal, the file read back once it exits, the directory removed. The editor gets
 * vidpub's environment without its secrets (util/child-env: no key, no proxy password), which
 * @inquirer/editor, handing it the whole environment, could not do.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VidpubError, sanitize } from '../errors.js';
import { childEnv } from '../util/child-env.js';
import { nodeChildProcess } from '../util/lazy-builtins.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The editor command ($VISUAL, then $EDITOR) as words, as external-editor splits it; undefined when neither is set. */
export function editorCommand(env: Env): string[] | undefined {
  const words = (env.VISUAL || env.EDITOR || '').trim().split(/\s+/).filter(Boolean);
  return words.length > 0 ? words : undefined;
}

/** Runs the editor on `initial`; resolves to the text saved. The editor's failure is said with its command. */
export async function editText(opts: { env: Env; initial?: string; signal?: AbortSignal }): Promise<string> {
  const command = editorCommand(opts.env);
  if (!command) throw new VidpubError('no editor: neither $VISUAL nor $EDITOR is set', { hint: 'Set EDITOR (export EDITOR=nano), or give the text with a flag.' });
  const dir = await mkdtemp(join(tmpdir(), 'vidpub-edit-'));
  try {
    const file = join(dir, 'CAPTION.txt');
    await writeFile(file, opts.initial ?? '', { mode: 0o600 });
    const [bin, ...args] = command;
    const code = await new Promise<number | string>((resolve, reject) => {
      const child = nodeChildProcess().spawn(bin!, [...args, file], { stdio: 'inherit', env: childEnv(opts.env), signal: opts.signal });
      child.once('error', reject);
      child.once('exit', (status, signal) => resolve(signal ?? status ?? 1));
    }).catch((err: NodeJS.ErrnoException) => {
      if (err.name === 'AbortError') throw err;
      throw new VidpubError(`the editor "${sanitize(command.join(' '))}" could not start (${err.code ?? sanitize(err.message)})`, {
        hint: 'Set VISUAL or EDITOR to an editor installed here, or give the text with a flag.',
      });
    });
    if (code !== 0) {
      throw new VidpubError(`the editor "${sanitize(command.join(' '))}" ended with ${typeof code === 'number' ? `exit ${code}` : code}; nothing was taken from it`, {
        hint: 'Run the command again and save before leaving the editor, or give the text with a flag.',
      });
    }
    return await readFile(file, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

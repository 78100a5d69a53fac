/**
 * Prompts read key by key from a terminal in raw mode, without a prompt library: the yes/no
 * confirmation answered with one key (y, n, or Enter for the default: no Enter after y), and
 * for a terminal without cursor control (TERM=dumb) a line typed with a teletype's editing:
 * Backspace (DEL or Ctrl-H) erases a character, Ctrl-U the line, Ctrl-W a word; arrow keys and
 * other escape sequences are ignored, not typed into the answer. An answer refused is said on a
 * line of its own and asked again on a fresh, empty line. Ctrl-C (and Ctrl-D on an empty line)
 * cancels, as an inquirer prompt does (an ExitPromptError), and so does the signal.
 */
import type { IO } from '../core/io.js';

export interface KeyIO {
  stdin: IO['stdin'];
  stderr: IO['stderr'];
  signal: AbortSignal;
}

/** Ctrl-C or Ctrl-D at a prompt: the name inquirer gives it, which the callers turn into exit 130. */
class PromptCancelled extends Error {
  override name = 'ExitPromptError';
}

/** The signal aborted while a prompt waited: inquirer's name for it. */
class PromptAborted extends Error {
  override name = 'AbortPromptError';
}

type RawStream = IO['stdin'] & { isTTY?: boolean; setRawMode?: (on: boolean) => unknown; isRaw?: boolean };

/**
 * Feeds each key typed (a character, or a whole escape sequence) to `onKey` until it returns a
 * value; the terminal is in raw mode meanwhile (no echo: the prompt echoes what it keeps).
 */
function readKeys<T>(io: KeyIO, onKey: (key: string) => T | undefined): Promise<T> {
  const stdin = io.stdin as RawStream;
  return new Promise<T>((resolve, reject) => {
    const wasRaw = stdin.isRaw === true;
    const raw = typeof stdin.setRawMode === 'function' && stdin.isTTY === true;
    const done = (finish: () => void) => {
      stdin.off('data', onData);
      io.signal.removeEventListener('abort', onAbort);
      if (raw) stdin.setRawMode!(wasRaw);
      stdin.pause();
      finish();
    };
    const onAbort = () => done(() => reject(new PromptAborted('The prompt was cancelled')));
    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      for (const key of splitKeys(text)) {
        let answer: T | undefined;
        try {
          answer = onKey(key);
        } catch (err) {
          done(() => reject(err));
          return;
        }
        if (answer !== undefined) {
          done(() => resolve(answer));
          return;
        }
      }
    };
    if (io.signal.aborted) return reject(new PromptAborted('The prompt was cancelled'));
    if (raw) stdin.setRawMode!(true);
    io.signal.addEventListener('abort', onAbort, { once: true });
    stdin.on('data', onData);
    stdin.resume();
  });
}

/** The keys in `text`: an escape sequence (ESC [ … final byte, ESC O x, ESC x) is one key; any other code point is one. */
export function splitKeys(text: string): string[] {
  const keys: string[] = [];
  for (let i = 0; i < text.length; ) {
    if (text[i] === '\u001b') {
      // eslint-disable-next-line no-control-regex
      const m = /^\u001b(?:\[[0-?]*[ -/]*[@-~]|O.|.)?/su.exec(text.slice(i))!;
      keys.push(m[0]);
      i += m[0].length;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    keys.push(ch);
    i += ch.length;
  }
  return keys;
}

const ENTER = new Set(['\r', '\n']);
const ERASE_CHAR = new Set(['\u007f', '\b']);

/** A yes/no question answered with one key: y or n (either case), Enter for the default. */
export function confirmKey(io: KeyIO, opts: { message: string; default?: boolean }): Promise<boolean> {
  const def = opts.default !== false;
  io.stderr.write(`? ${opts.message} (${def ? 'Y/n' : 'y/N'}) `);
  return readKeys(io, (key) => {
    let answer: boolean | undefined;
    if (key === '\u0003' || key === '\u0004') {
      io.stderr.write('\n');
      throw new PromptCancelled('User force closed the prompt');
    }
    if (/^[yY]$/.test(key)) answer = true;
    else if (/^[nN]$/.test(key)) answer = false;
    else if (ENTER.has(key)) answer = def;
    if (answer !== undefined) io.stderr.write(`${answer ? 'Yes' : 'No'}\n`);
    return answer;
  });
}

/**
 * One line typed at `? message (default) `, with a teletype's editing (see above). An empty line
 * is the default when there is one. `validate` returns true or what is wrong: said, then asked
 * again on a fresh line. `mask`: each character echoed as it (a password), or nothing with ''.
 */
export async function readLine(
  io: KeyIO,
  opts: { message: string; default?: string; validate?: (text: string) => true | string; mask?: string },
): Promise<string> {
  for (;;) {
    const suffix = opts.default !== undefined && opts.default !== '' ? ` (${opts.default})` : '';
    io.stderr.write(`? ${opts.message}${suffix} `);
    const typed: string[] = [];
    const echo = (ch: string) => (opts.mask === undefined ? ch : opts.mask);
    const erase = (n: number) => {
      const cells = typed.splice(typed.length - n, n).map(echo).join('').length;
      if (cells > 0) io.stderr.write('\b \b'.repeat(cells));
    };
    const line = await readKeys(io, (key) => {
      if (ENTER.has(key)) {
        io.stderr.write('\n');
        return typed.join('');
      }
      if (key === '\u0003' || (key === '\u0004' && typed.length === 0)) {
        io.stderr.write('\n');
        throw new PromptCancelled('User force closed the prompt');
      }
      if (ERASE_CHAR.has(key)) erase(Math.min(1, typed.length));
      else if (key === '\u0015') erase(typed.length);
      else if (key === '\u0017') {
        // Ctrl-W: the spaces before the cursor, then the word.
        let n = 0;
        while (n < typed.length && typed[typed.length - 1 - n] === ' ') n++;
        while (n < typed.length && typed[typed.length - 1 - n] !== ' ') n++;
        erase(n);
      } else if (key.length > 0 && key.codePointAt(0)! >= 0x20 && key !== '\u007f' && !key.startsWith('\u001b')) {
        typed.push(key);
        io.stderr.write(echo(key));
      }
      return undefined;
    });
    const answer = line === '' && opts.default !== undefined ? opts.default : line;
    const verdict = opts.validate ? opts.validate(answer) : true;
    if (verdict === true) return answer;
    io.stderr.write(`> ${verdict}\n`);
  }
}

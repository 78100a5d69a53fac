/** The duplicate window of the command's profile (`duplicate_window` in the config; posts/duplicate-guard.ts has the rule). */
import type { Invocation } from './command.js';

export async function readDuplicateWindow(inv: Invocation): Promise<number> {
  const { duplicateWindowMs } = await import('../../posts/duplicate-guard.js');
  // VIDPUB_DUPLICATE_WINDOW (a job that posts the same clip on purpose, a test) wins over the profile's.
  const fromEnv = inv.ctx.env.VIDPUB_DUPLICATE_WINDOW;
  if (fromEnv !== undefined && fromEnv !== '') return duplicateWindowMs(fromEnv);
  let text: string | undefined;
  try {
    text = (await inv.ctx.config()).getProfile(inv.globals.profile)?.duplicate_window;
  } catch {
    // A config that cannot be read is the client's to report; the guard keeps its default.
  }
  return duplicateWindowMs(text);
}

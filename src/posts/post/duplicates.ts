/**
 * The duplicate guard in `post` (its rule: ../duplicate-guard.ts), once the
 * destinations are chosen and before anything is sent: the same video posted
 * to one of them within the window is asked about on a terminal (default no;
 * no: exit 2, as a script is refused) and refused otherwise (exit 2), unless
 * --allow-duplicate.
 */
import { UsageError } from '../../errors.js';
import { duplicateError, earlierPosts, earlierText, guarded } from '../duplicate-guard.js';
import { ask } from '../options.js';
import { rerunLine, type Planned, type PostRun } from './types.js';

export async function guardDuplicates(run: PostRun, planned: Planned): Promise<void> {
  const { opts, session, key } = run;
  if (opts.allowDuplicate || opts.source.kind !== 'file' || !opts.duplicateWindowMs || !guarded(opts)) return;
  const file = opts.source.file;
  // This run's own post (the run a printed rerun or continue line carries on) is not another command's: told by the run key the journal keeps.
  const own = { runKey: key.key, ...(opts.idempotencyKey !== undefined ? { givenKey: opts.idempotencyKey } : {}) };
  const earlier = await earlierPosts(session, file, planned.plans.map((p) => p.destination.id), opts.duplicateWindowMs, own);
  if (earlier.length === 0) return;
  const now = session.clock.now();
  const again = rerunLine(opts, planned);
  if (!session.interactive || opts.yes) throw duplicateError(file.filename, earlier, opts.zone, now, again);
  for (const e of earlier) session.screen.write(`This video was already posted to ${earlierText(e, opts.zone, now)}.\n`);
  const prompter = await session.prompter();
  const hint = `To post it again without this question: ${again} --allow-duplicate`;
  const yes = await ask(() => prompter.confirm({ message: 'Post it again?', default: false }), 'Not posted: the same video was posted there already.', hint);
  // A no is the refusal a script gets (exit 2), answered by a person; Ctrl-C at the question is an interruption.
  if (!yes) throw new UsageError('Not posted: the same video was posted there already; nothing was uploaded or posted.', { hint });
}

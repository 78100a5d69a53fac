/**
 * The command reference, every file of it: Markdown under docs/commands/ and
 * man pages under man/, by their path from the repository's root. Written by
 * scripts/gen-reference.mjs (`npm run docs:gen`), which bundles this file.
 */
import { environmentMarkdown } from './environment-page.js';
import { exitCodesMarkdown, commandMarkdown, globalFlagsMarkdown, indexMarkdown } from './markdown.js';
import { gatherReference } from './model.js';
import { commandPage, rootPage } from './roff.js';
import { eventJsonSchema } from '../../events/event-schema.js';

/** The directories the reference fills: each holds only generated files. */
export const REFERENCE_DIRS = ['docs/commands', 'man'] as const;

export async function renderReference(version: string): Promise<Map<string, string>> {
  const ref = await gatherReference(version);
  const files = new Map<string, string>();
  files.set('docs/commands/README.md', indexMarkdown(ref));
  files.set('docs/commands/global-flags.md', globalFlagsMarkdown(ref));
  files.set('docs/commands/exit-codes.md', exitCodesMarkdown(ref));
  files.set('docs/commands/environment.md', environmentMarkdown());
  files.set('man/vidpub.1', rootPage(ref));
  // The events' JSON Schema, from the zod schema of src/events/ (which the event type is inferred from).
  files.set('docs/commands/events.schema.json', eventJsonSchema());
  for (const c of ref.commands) {
    files.set(`docs/commands/${c.page}.md`, commandMarkdown(c));
    files.set(`man/${c.page}.1`, commandPage(c, ref));
  }
  return files;
}

import type { Destination, DestinationOptions } from '../../contract/wire-types.js';
import { UsageError, sanitize } from '../../errors.js';
import { describeDestination, renderDestinationOptions, resolveDestination } from '../../posts/destinations.js';
import { formatOptionValue } from '../../posts/destinations.js';
import { wrapLine } from '../../ui/wrap.js';
import { defineCommand } from '../run/command.js';

interface OptionsOpts {
  destination: string;
}

interface OptionsResult {
  destination: Destination;
  options: DestinationOptions;
}

export default defineCommand<'options', OptionsOpts, OptionsResult>({
  description:
    'Show the posting options a destination accepts: each with its values, default and whether it is ' +
    'required. For a creator-disclosure destination (short-video platforms), also the creator the post ' +
    'goes out as, the maximum video duration, and that privacy must be chosen by the person posting. ' +
    'Name the destination by its id, its @handle, or its platform when the workspace has one active account there. ' +
    'To a pipe: one option a line, tab-separated: key, required or optional, type, allowed values (comma-separated), default, label.',
  examples: ['vidpub options tiktok', 'vidpub options @vidpub.demo', 'vidpub options dst_demo_youtube --json'],
  parse(args) {
    const destination = args[0].trim();
    if (!destination) throw new UsageError('name a destination: its id, @handle or platform', { hint: 'Run "vidpub destinations" to list them.' });
    return { destination };
  },
  async run(opts, inv) {
    const client = await inv.client();
    const destination = resolveDestination(opts.destination, await client.listDestinations());
    const options = await client.getDestinationOptions(destination.id);
    return { destination, options };
  },
  json: (r) => r.options,
  print(r, inv) {
    const c = inv.colors.stdout;
    if (!inv.out.tty) {
      // One option a line, one value a field: key, required|optional, type, allowed values (comma-separated), default, label.
      for (const o of Array.isArray(r.options.options) ? r.options.options : []) {
        const values = Array.isArray(o.values) ? o.values.map(formatOptionValue).join(',') : '';
        const def = o.default === null || o.default === undefined ? '' : formatOptionValue(o.default);
        inv.print([o.key, o.required ? 'required' : 'optional', String(o.type ?? ''), values, def, o.label ?? ''].map((f) => sanitize(String(f))).join('\t'));
      }
      return;
    }
    const width = inv.ctx.io.columns;
    inv.print(wrapLine(`Options for ${describeDestination(r.destination)}:`, width, 2));
    for (const line of renderDestinationOptions(r.options, { bold: c.bold })) inv.print(wrapLine(line, width, 4));
  },
});

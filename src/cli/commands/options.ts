import type { Destination, DestinationOptions } from '../../api/types.js';
import { UsageError } from '../../errors.js';
import { describeDestination, renderDestinationOptions, resolveDestination } from '../../posts/destinations.js';
import { defineCommand } from '../command.js';

interface OptionsOpts {
  destination: string;
}

interface OptionsResult {
  destination: Destination;
  options: DestinationOptions;
}

export default defineCommand<OptionsOpts, OptionsResult>({
  description:
    'Show the posting options a destination accepts: each with its values, default and whether it is ' +
    'required. For a creator-disclosure destination (short-video platforms), also the creator the post ' +
    'goes out as, the maximum video duration, and that privacy must be chosen by the person posting. ' +
    'Name the destination by its id, its @handle, or its platform when the workspace has one active account there.',
  examples: ['vidpub options tiktok', 'vidpub options @vidpub.demo', 'vidpub options dst_demo_youtube --json'],
  parse(args) {
    const destination = String(args[0] ?? '').trim();
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
    inv.print(`Options for ${describeDestination(r.destination)}:`);
    for (const line of renderDestinationOptions(r.options, { bold: c.bold })) inv.print(line);
  },
});

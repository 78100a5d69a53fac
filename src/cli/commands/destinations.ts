import type { Destination } from '../../contract/wire-types.js';
import { UsageError, sanitize } from '../../errors.js';
import { renderTable } from '../../ui/table.js';
import { defineCommand } from '../run/command.js';
import { atHandle } from '../../posts/destinations.js';

interface DestinationsOpts {
  platform?: string;
  all: boolean;
}

interface DestinationsResult {
  destinations: Destination[];
  /** How many were left out by the filters (for the hint). */
  hidden: number;
  opts: DestinationsOpts;
}

export default defineCommand<'destinations', DestinationsOpts, DestinationsResult>({
  description:
    'List the connected accounts (destinations) of the workspace: id, platform, handle and status. ' +
    'Only active ones, which can be posted to, unless --all. A destination is named elsewhere by its id, ' +
    'its @handle, or its platform when the workspace has one active account there.',
  examples: ['vidpub destinations', 'vidpub destinations --platform tiktok', 'vidpub destinations --all --json', 'vidpub destinations | cut -f1'],
  parse(_args, flags) {
    let platform: string | undefined;
    if (flags.platform !== undefined) {
      platform = flags.platform.trim().toLowerCase();
      if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(platform)) {
        throw new UsageError(`invalid --platform "${sanitize(flags.platform)}": give a platform name such as tiktok or youtube`);
      }
    }
    return { platform, all: flags.all };
  },
  async run(opts, inv) {
    const all = await (await inv.client()).listDestinations();
    const destinations = all.filter(
      (d) => (opts.all || d.status === 'active') && (opts.platform === undefined || String(d.platform).toLowerCase() === opts.platform),
    );
    return { destinations, hidden: all.length - destinations.length, opts };
  },
  json: (r) => r.destinations,
  print(r, inv) {
    const c = inv.colors.stdout;
    const statusStyle = (text: string, d: Destination) => (d.status === 'active' ? c.green(text) : c.yellow(text));
    if (r.destinations.length === 0) {
      const where = r.opts.platform ? ` on ${r.opts.platform}` : '';
      inv.log.info(`No ${r.opts.all ? '' : 'active '}destinations${where}.${!r.opts.all && r.hidden > 0 ? ' Add --all to include disconnected or expired ones.' : ''}`);
      return;
    }
    for (const line of renderTable(
      r.destinations,
      [
        { header: 'ID', value: (d) => String(d.id) },
        { header: 'Platform', value: (d) => String(d.platform) },
        { header: 'Handle', value: (d) => atHandle(d.handle) },
        { header: 'Status', value: (d) => String(d.status), style: statusStyle },
      ],
      { tty: inv.ctx.io.stdoutIsTTY, bold: c.bold },
    )) {
      inv.print(line);
    }
    if (!r.opts.all && r.hidden > 0 && !r.opts.platform) {
      inv.log.info(`${r.hidden} more not active (disconnected or expired): add --all to list them.`);
    }
  },
});

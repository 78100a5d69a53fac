import type { ApiClient } from '../../api/client.js';
import { clockTimeout } from '../../core/clock.js';
import type { Destination } from '../../contract/wire-types.js';
import { UsageError, sanitize } from '../../errors.js';
import { defineCommand, type Invocation } from '../run/command.js';
import { completionScript, SHELLS, type Shell } from '../completion/index.js';
import { DESTINATIONS_TIMEOUT_MS } from '../completion/model.js';
import { atHandle } from '../../posts/destinations.js';

interface CompletionOpts {
  shell: Shell;
  destinations: boolean;
  optionValues: boolean;
  ids: boolean;
  videoIds: boolean;
}

/** How many of the latest posts the scripts offer the ids of. */
const IDS_OFFERED = 50;

/**
 * The ids of the latest posts made here, newest first, from the journal: empty without one.
 * With `videos` (what `status` takes), each post's video id follows the post's.
 */
async function journalIds(inv: Invocation, videos: boolean): Promise<string[]> {
  try {
    const posts = (await inv.session.journal?.history({ limit: IDS_OFFERED, profile: inv.globals.profile })) ?? [];
    const ids = posts.flatMap((p) => (videos ? [p.post_id, p.media_id] : [p.post_id]));
    return [...new Set(ids.filter((n) => typeof n === 'string' && SAFE_NAME.test(n)))];
  } catch {
    return [];
  }
}

/** Names offered to a shell: ids and handles only, nothing a shell could expand. */
const SAFE_NAME = /^@?[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** KEY=VALUE or DEST:KEY=VALUE words: nothing a shell could expand. */
const SAFE_OPTION = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}=[A-Za-z0-9._-]{0,128}$/;

function handleName(d: Destination): string | undefined {
  return atHandle(d.handle) || undefined;
}

/**
 * What the shell scripts offer from the service (through the key's 10-minute
 * cache): quiet, bounded in time, and empty (never an error) when there is no
 * key, no network or no service.
 */
async function fromService(inv: Invocation, read: (client: ApiClient, signal: AbortSignal) => Promise<string[]>): Promise<string[]> {
  const { ctx } = inv;
  // The bound is of the Context's clock, as the client's waits between tries are (a service that is down is tried
  // again until then); stopped when the names are in.
  const bound = new AbortController();
  const timer = clockTimeout(ctx.clock, DESTINATIONS_TIMEOUT_MS, () => bound.abort(new DOMException(`no names within ${DESTINATIONS_TIMEOUT_MS} ms`, 'TimeoutError')));
  const signal = AbortSignal.any([ctx.signal, bound.signal]);
  let client: ApiClient | undefined;
  try {
    client = await ctx.createClient({ ...inv.clientSettings, quiet: true, debug: false, maxWaitMs: 0, waitForQuota: false });
    return [...new Set(await read(client, signal))];
  } catch {
    return [];
  } finally {
    timer.clear();
    await client?.close().catch(() => undefined);
  }
}

/** Ids and @handles of the active destinations. */
async function activeDestinations(client: ApiClient, signal: AbortSignal): Promise<Destination[]> {
  return (await client.listDestinations({ signal, cached: true })).filter((d) => d.status === 'active');
}

const destinationNames = (inv: Invocation) =>
  fromService(inv, async (client, signal) =>
    (await activeDestinations(client, signal)).flatMap((d) => [String(d.id), handleName(d)]).filter((n): n is string => n !== undefined && SAFE_NAME.test(n)),
  );

/** --option words: KEY=VALUE (and DEST:KEY=VALUE) for each allowed value of each active destination's options; KEY= for free text. */
const optionValues = (inv: Invocation) =>
  fromService(inv, async (client, signal) => {
    const out: string[] = [];
    for (const d of await activeDestinations(client, signal)) {
      for (const o of (await client.getDestinationOptions(String(d.id), { signal, cached: true })).options) {
        const values = Array.isArray(o.values) && o.values.length > 0 ? o.values.map(String) : o.type === 'boolean' ? ['true', 'false'] : [''];
        for (const v of values) out.push(`${o.key}=${v}`, `${d.id}:${o.key}=${v}`);
      }
    }
    return out.filter((w) => SAFE_OPTION.test(w));
  });

type CompletionResult = { kind: 'script'; text: string } | { kind: 'names'; names: string[] };

export default defineCommand<'completion', CompletionOpts, CompletionResult>({
  description:
    'Print a shell completion script for bash, zsh or fish: commands, their flags, and destination names ' +
    '(ids and @handles, fetched quietly when a key is configured). Load it in your shell start-up file.',
  examples: [
    'source <(vidpub completion bash)',
    "echo 'source <(vidpub completion bash)' >> ~/.bashrc",
    'vidpub completion zsh > "${fpath[1]}/_vidpub"',
    'vidpub completion fish > ~/.config/fish/completions/vidpub.fish',
  ],
  parse(args, flags) {
    const shell = SHELLS.find((s) => s === args[0]);
    if (!shell) {
      throw new UsageError(`unknown shell "${sanitize(args[0])}": use bash, zsh or fish`, { hint: 'For example: source <(vidpub completion bash)' });
    }
    return { shell, destinations: flags.destinations, optionValues: flags.optionValues, ids: flags.ids, videoIds: flags.videoIds };
  },
  async run(opts, inv) {
    if (opts.destinations) return { kind: 'names', names: await destinationNames(inv) };
    if (opts.ids) return { kind: 'names', names: await journalIds(inv, opts.videoIds) };
    if (opts.optionValues) return { kind: 'names', names: await optionValues(inv) };
    return { kind: 'script', text: completionScript(opts.shell, inv.ctx.version) };
  },
  json: (r) => (r.kind === 'names' ? r.names : { script: r.text }),
  print(r, inv) {
    if (r.kind === 'names') for (const n of r.names) inv.print(n);
    else inv.ctx.io.stdout.write(r.text);
  },
});

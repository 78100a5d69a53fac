import type { Media } from '../../contract/wire-types.js';
import { UsageError, sanitize } from '../../errors.js';
import { defineCommand } from '../run/command.js';
import { MEDIA_FIELDS } from '../output/json-fields.js';
import { parseWaitFlags, type WaitFlags } from '../../session/wait-flags.js';
import { runMediaFlow } from './upload.js';

interface ImportOpts extends WaitFlags {
  url: string;
  filename?: string;
  idempotencyKey?: string;
}

export default defineCommand<'import', ImportOpts, Media>({
  description:
    'Import a video from a public https link straight to the file (MP4, MOV, WebM, AVI or MTS), not a page that plays it. ' +
    'The service downloads it in the background; vidpub waits until it is ready and prints the video id ' +
    '(or the video record with --json). At most 5 imports download at once per workspace: a sixth waits ' +
    '(within --max-wait) for a free slot.',
  examples: [
    'vidpub import https://cdn.example.com/videos/launch.mp4',
    'vidpub import https://cdn.example.com/v/123.mov --filename launch.mov',
    'vidpub import https://cdn.example.com/videos/launch.mp4 --no-wait --json',
    'vidpub import https://cdn.example.com/videos/launch.mp4 --timeout 15m --max-wait 5m',
  ],
  async parse(args, flags) {
    const raw = args[0];
    if (raw === '') throw new UsageError('give the https link of a video file: vidpub import URL');
    const { checkImportUrl, checkImportFilename } = await import('../../media/import-url.js');
    const { url } = checkImportUrl(raw);
    const filename = flags.filename === undefined ? undefined : checkImportFilename(flags.filename);
    const { parseIdempotencyKey } = await import('../../posts/flags.js');
    return { url, filename, ...parseWaitFlags(flags), idempotencyKey: parseIdempotencyKey(flags.idempotencyKey) };
  },
  async run(opts, inv) {
    const { importLink } = await import('../../media/import-flow.js');
    return runMediaFlow(inv, opts, (o) => importLink(inv.session, opts.url, { ...o, filename: opts.filename }), (m) => `Imported ${sanitize(m.filename ?? opts.url)}`);
  },
  print(media, inv) {
    inv.print(media.id);
  },
  fields: MEDIA_FIELDS,
});

/**
 * Local checks of an import link: the service downloads from a public https
 * link straight to an MP4, MOV, WebM, AVI or MTS file, not a page that plays it.
 */
import { UsageError, sanitize } from '../errors.js';
import { SUPPORTED_FORMATS_TEXT, extensionOf, isSupportedExtension } from './check.js';

const PAGE_HINT = 'Give a direct link to the video file itself (its address ends in .mp4, .mov, .webm, .avi or .mts), not a page that plays it.';

export interface ImportLink {
  url: string;
  /** The file name the link ends in (decoded). */
  filename: string;
}

/** Throws UsageError (exit 2) unless `text` is an https link to a file with a supported extension. */
export function checkImportUrl(text: string): ImportLink {
  const shown = sanitize(text);
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(`"${shown}" is not a link`, { hint: 'Give an https:// link to the video file.' });
  }
  if (url.protocol !== 'https:') {
    const scheme = url.protocol.replace(/:$/, '');
    throw new UsageError(`the import link must use https, not ${scheme}: ${shown}`, {
      hint: scheme === 'http' ? 'The service only downloads over https; use the https:// address of the file.' : 'Give an https:// link to the video file; upload local files with "vidpub upload FILE".',
    });
  }
  if (url.username || url.password) {
    throw new UsageError('the import link must not carry a user name or password', { hint: 'The service downloads public links only.' });
  }
  const last = url.pathname.split('/').pop() ?? '';
  let name: string;
  try {
    name = decodeURIComponent(last);
  } catch {
    name = last;
  }
  const ext = extensionOf(name);
  if (!isSupportedExtension(ext)) {
    const what = ext && !['html', 'htm', 'php', 'asp', 'aspx', 'jsp'].includes(ext) ? `a .${ext} file, not ${SUPPORTED_FORMATS_TEXT} video` : 'a page, not a video file';
    throw new UsageError(`the import link points to ${what}: ${shown}`, { hint: PAGE_HINT });
  }
  const host = url.hostname.toLowerCase();
  if ((host === 'dropbox.com' || host.endsWith('.dropbox.com')) && url.searchParams.get('dl') !== '1' && url.searchParams.get('raw') !== '1') {
    throw new UsageError(`the import link opens a Dropbox page that plays the video, not the file: ${shown}`, {
      hint: 'Use the direct download link: end it in ?dl=1 instead of ?dl=0.',
    });
  }
  return { url: url.toString(), filename: name };
}

/** Checks a --filename value: a plain file name. */
export function checkImportFilename(name: string): string {
  const n = name.trim();
  if (!n) throw new UsageError('--filename must not be empty');
  if (/[/\\]/.test(n) || n === '.' || n === '..') throw new UsageError(`--filename must be a file name, not a path: "${sanitize(n)}"`);
  if (n.length > 255) throw new UsageError('--filename must be at most 255 characters');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(n)) throw new UsageError('--filename must not contain control characters');
  return n;
}

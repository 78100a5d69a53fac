/**
 * The CA file of vidpub's own (--ca-file, VIDPUB_CA_FILE, kept in a profile
 * by `login`): its certificates are trusted besides the system's roots and
 * NODE_EXTRA_CA_CERTS, never instead of them. Loaded only when one is given.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { rootCertificates } from 'node:tls';
import { UsageError, sanitize } from '../../errors.js';
import { readUserFile, unreadableFile } from '../../util/user-file.js';
import type { NetSettings } from './net-types.js';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

const HINT = 'Give a file of CA certificates in PEM form (-----BEGIN CERTIFICATE-----), e.g. the ca_file that `vidpub emulator --tls` prints, or the CA your organisation hands out.';

/** The certificates of a PEM file, each checked; a missing, unreadable or non-PEM file is a usage error naming it. */
export async function readCaFile(file: string, source: string): Promise<string[]> {
  let text: string;
  try {
    // Without blocking: a FIFO or a directory in its place is refused at once (src/util/user-file.ts).
    text = (await readUserFile(file)).toString('utf8');
  } catch (err) {
    throw new UsageError(`the CA file ${unreadableFile(`${sanitize(file)} (from ${source})`, err)}`, { hint: HINT });
  }
  const certs = text.match(PEM_CERT) ?? [];
  if (certs.length === 0) throw new UsageError(`the CA file ${sanitize(file)} (from ${source}) has no PEM certificate in it`, { hint: HINT });
  for (const [i, pem] of certs.entries()) {
    try {
      new X509Certificate(pem);
    } catch {
      throw new UsageError(`certificate ${i + 1} of the CA file ${sanitize(file)} (from ${source}) is damaged: it is not a valid X.509 certificate`, { hint: HINT });
    }
  }
  return certs;
}

/** NODE_EXTRA_CA_CERTS's certificates (Node drops them when a request names its own CAs); none when unreadable (Node warned already). */
function extraCaCerts(env: NetSettings['env']): string[] {
  const file = env.NODE_EXTRA_CA_CERTS;
  if (!file) return [];
  try {
    return readFileSync(file, 'utf8').match(PEM_CERT) ?? [];
  } catch {
    return [];
  }
}

/** What an https request trusts with a CA file: the system's roots, NODE_EXTRA_CA_CERTS and the file's certificates. */
export async function trustedCas(s: NetSettings): Promise<string[]> {
  const file = resolve(s.cwd ?? '.', s.caFile!);
  const own = await readCaFile(file, s.caFileSource ?? '--ca-file');
  return [...rootCertificates, ...extraCaCerts(s.env), ...own];
}

/**
 * A kept video's bytes over HTTP with Range requests (RFC 9110 §14): one
 * range (`bytes=a-b`, `bytes=a-`, `bytes=-n`) is answered 206 with
 * Content-Range, one that cannot be satisfied 416; anything else (no Range,
 * several ranges) is the whole file, 200. HEAD is answered by Fastify from GET.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The single range asked for, as [start, end] inclusive; 'unsatisfiable'; or null for the whole file. */
export function parseRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/i.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return [Math.max(0, size - n), size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return [start, end];
}

export function serveVideo(req: FastifyRequest, reply: FastifyReply, bytes: Buffer, contentType: string): FastifyReply {
  const size = bytes.length;
  void reply.headers({ 'Accept-Ranges': 'bytes', 'Content-Type': contentType, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  const range = parseRange(typeof req.headers.range === 'string' ? req.headers.range : undefined, size);
  if (range === 'unsatisfiable') return reply.code(416).header('Content-Range', `bytes */${size}`).send('');
  if (range === null) return reply.code(200).header('Content-Length', String(size)).send(bytes);
  const [start, end] = range;
  return reply.code(206).headers({ 'Content-Range': `bytes ${start}-${end}/${size}`, 'Content-Length': String(end - start + 1) }).send(bytes.subarray(start, end + 1));
}

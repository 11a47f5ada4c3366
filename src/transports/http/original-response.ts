import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { Original } from '../../services/originals.service';

/**
 * The one range a request asks for, as [start, end) within `size`: null for the whole file (no
 * Range, a Range that is not one `bytes=` range, or an If-Range that no longer matches),
 * 'unsatisfiable' for a range past the end (RFC 9110 §14).
 */
export function requestedRange(req: Request, size: number, etag: string): [number, number] | null | 'unsatisfiable' {
  const header = req.headers.range;
  if (!header) return null;
  const ifRange = req.headers['if-range'];
  if (ifRange && ifRange !== etag) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // several ranges, or another unit: a server may answer with the whole representation
  if (!m || (!m[1] && !m[2])) return null;
  if (!m[1]) {
    const suffix = Number(m[2]);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : [Math.max(0, size - suffix), size];
  }
  const start = Number(m[1]);
  const last = m[2] ? Number(m[2]) : size - 1;
  if (m[2] && last < start) return null;
  if (start >= size) return 'unsatisfiable';
  return [start, Math.min(last, size - 1) + 1];
}

/** A file name for Content-Disposition: ASCII fallback and the UTF-8 name (RFC 6266). */
function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * Writes an original: validators (ETag, Last-Modified; 304 when they match), headers that keep an
 * uploaded file from acting on our origin (nosniff, a sandbox with nothing allowed, attachment for
 * all but PDF and raster images), and the whole file or one range (206), streamed a slice at a time.
 */
export async function sendOriginal(req: Request, res: Response, o: Original): Promise<void> {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'");
  res.setHeader('Content-Disposition', disposition(o.inline ? 'inline' : 'attachment', o.name));
  res.setHeader('Content-Type', o.contentType);
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('ETag', o.etag);
  res.setHeader('Last-Modified', o.lastModified.toUTCString());
  // private: the file is only for callers with access to its project
  res.setHeader('Cache-Control', 'private, no-cache');
  const inm = req.headers['if-none-match'];
  if (inm && inm.split(',').some((t) => t.trim() === o.etag || t.trim() === '*')) {
    res.status(304).end();
    return;
  }
  const range = requestedRange(req, o.size, o.etag);
  if (range === 'unsatisfiable') {
    res.setHeader('Content-Range', `bytes */${o.size}`);
    res.removeHeader('Content-Type');
    res.status(416).end();
    return;
  }
  const [start, end] = range ?? [0, o.size];
  if (range) res.setHeader('Content-Range', `bytes ${start}-${end - 1}/${o.size}`);
  res.setHeader('Content-Length', String(end - start));
  res.status(range ? 206 : 200);
  if (req.method === 'HEAD' || end === start) {
    res.end();
    return;
  }
  // a client that goes away ends the read (pipeline destroys the source with the response)
  await pipeline(Readable.from(o.read(start, end)), res).catch((e: unknown) => {
    if (!res.headersSent) throw e;
    res.destroy();
  });
}

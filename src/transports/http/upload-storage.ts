import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import type multer from 'multer';
import type { StoredUpload } from '../../services/documents.inputs';
import { requirePrivateUploadDir } from '../../util/private-dir';

/** Bytes of a file's start kept beside it, for format detection. */
const HEAD_BYTES = 1024;
const SUFFIX = '.upload';

/**
 * The temporary files of one request. Every file a request streams to disk is tracked here and
 * removed by cleanup() on every path out of the route (success, error, aborted request); a file
 * created after cleanup (a part still arriving from an aborted request) is removed at once.
 */
export class RequestTempFiles {
  private readonly paths = new Set<string>();
  private closed = false;

  track(p: string): void {
    if (this.closed) void unlink(p).catch(() => undefined);
    else this.paths.add(p);
  }

  async cleanup(): Promise<void> {
    this.closed = true;
    const all = [...this.paths];
    this.paths.clear();
    await Promise.all(all.map((p) => unlink(p).catch(() => undefined)));
  }
}

/**
 * A multer storage engine: each part streams to a file of its own in the service's temp
 * directory (mode 0600) while being hashed (sha256), so a file is never held in memory on the
 * request path. The file name carries the process id, so start-up cleaning (cleanUploadDir) can
 * tell a crashed process's leftovers from a live neighbour's.
 */
export class HashingDiskStorage implements multer.StorageEngine {
  constructor(
    private readonly dir: string,
    private readonly temp: RequestTempFiles,
  ) {}

  _handleFile(
    _req: Request,
    file: Express.Multer.File,
    cb: (error?: unknown, info?: Partial<Express.Multer.File> & { stored?: StoredUpload }) => void,
  ): void {
    const target = path.join(this.dir, `${process.pid}-${randomUUID()}${SUFFIX}`);
    this.temp.track(target);
    const hash = createHash('sha256');
    let size = 0;
    const heads: Buffer[] = [];
    let headLength = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        size += chunk.length;
        if (headLength < HEAD_BYTES) {
          const part = chunk.subarray(0, HEAD_BYTES - headLength);
          heads.push(Buffer.from(part));
          headLength += part.length;
        }
        done(null, chunk);
      },
    });
    pipeline(file.stream, tap, createWriteStream(target, { flags: 'wx', mode: 0o600 })).then(
      () => cb(null, { path: target, size, stored: { path: target, size, sha256: hash.digest('hex'), head: Buffer.concat(heads) } }),
      (err) => {
        void unlink(target).catch(() => undefined);
        cb(err);
      },
    );
  }

  _removeFile(_req: Request, file: Express.Multer.File, cb: (error: Error | null) => void): void {
    unlink(file.path).then(
      () => cb(null),
      () => cb(null),
    );
  }
}

/** Is a process with this id running (on this machine)? */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Creates the upload temp directory (0700; an existing one must be ours and 0700, see
 * requirePrivateUploadDir) and removes files left there by processes that are no
 * longer running (a crash or SIGKILL mid-upload). Files of live processes sharing the directory
 * are left alone. Returns how many files were removed.
 */
export async function cleanUploadDir(dir: string): Promise<number> {
  requirePrivateUploadDir(dir);
  let removed = 0;
  for (const name of await readdir(dir)) {
    const m = /^(\d+)-[0-9a-f-]+\.upload$/.exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    await unlink(path.join(dir, name)).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}

import { Request, Response, Router } from 'express';
import multer from 'multer';
import type { Config } from '../../../config';
import { RateLimitedError, ValidationError } from '../../../errors';
import { presentChunkSource, presentDocument, presentDocumentText, presentUploadResult } from '../../../presenters/document.presenter';
import { DocumentTextQuery, ListDocumentsInput, UploadFileInput } from '../../../services/documents.inputs';
import { MAX_FILES_PER_UPLOAD } from '../../../services/documents.service';
import { parseQuery } from '../../../validation';
import { RouteTable } from '../route';
import { HashingDiskStorage, RequestTempFiles } from '../upload-storage';
import { sendOriginal } from '../original-response';
import type { Services } from '../../../services';

/** Seconds a client is asked to wait when too many uploads are running. */
const UPLOAD_RETRY_AFTER_S = 2;

/**
 * Upload requests in progress, per user and in total. Each is bounded by MAX_UPLOAD_MB × files and
 * holds at most one file in memory while it is stored, so these bound the memory and disk that
 * uploads can take; one more is answered 429 rate_limited with Retry-After.
 */
class UploadSlots {
  private total = 0;
  private readonly perUser = new Map<string, number>();

  acquire(userId: string, config: Config): () => void {
    const mine = this.perUser.get(userId) ?? 0;
    if (mine >= config.uploadConcurrencyPerUser)
      throw new RateLimitedError(
        UPLOAD_RETRY_AFTER_S,
        `at most ${config.uploadConcurrencyPerUser} uploads at a time per user; retry when one has finished`,
      );
    if (this.total >= config.uploadConcurrency)
      throw new RateLimitedError(UPLOAD_RETRY_AFTER_S, 'the server is receiving too many uploads; retry shortly');
    this.total++;
    this.perUser.set(userId, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const n = (this.perUser.get(userId) ?? 1) - 1;
      if (n > 0) this.perUser.set(userId, n);
      else this.perUser.delete(userId);
    };
  }
}

/**
 * Streams the multipart body (field `file`, repeatable) to temporary files, hashing each on the
 * way (see HashingDiskStorage). Over-size files stop the read with multer's LIMIT_FILE_SIZE, which
 * the error mapper answers 413 payload_too_large; a body that is not valid multipart (busboy's
 * errors carry no code) is the client's mistake: 400. The caller removes the files (`temp`).
 */
function receiveFiles(
  config: Config,
  req: Request,
  res: Response,
  temp: RequestTempFiles,
): Promise<{ files: UploadFileInput[]; language?: string }> {
  const upload = multer({
    storage: new HashingDiskStorage(config.uploadTmpDir, temp),
    limits: { fileSize: config.maxUploadMb * 1024 * 1024, files: MAX_FILES_PER_UPLOAD, fields: 10, parts: MAX_FILES_PER_UPLOAD + 10 },
    defParamCharset: 'utf8', // browsers send UTF-8 file names without declaring a charset
  }).array('file', MAX_FILES_PER_UPLOAD);
  return new Promise((resolve, reject) => {
    upload(req, res, (err: unknown) => {
      if (err instanceof multer.MulterError) return reject(err);
      if (err)
        // eslint-disable-next-line @typescript-eslint/no-base-to-string -- fallback for a non-Error thrown by multer; String() is the intended rendering
        return reject(ValidationError.field('file', `malformed multipart body: ${err instanceof Error ? err.message : String(err)}`));
      const files = (req.files as Array<Express.Multer.File & { stored: UploadFileInput['stored'] }> | undefined) ?? [];
      // optional text field `language` (the service validates it)
      const language = (req.body as Record<string, unknown> | undefined)?.language;
      if (language !== undefined && typeof language !== 'string')
        return reject(ValidationError.field('language', 'give the field "language" once'));
      resolve({ files: files.map((f) => ({ name: f.originalname, mimeType: f.mimetype, stored: f.stored })), language });
    });
  });
}

export function documentsRoutes(s: Services, config: Config): Router {
  const r = new RouteTable(s.tokens);
  const slots = new UploadSlots();

  r.post('/projects/:projectId/documents', { auth: 'required', status: 202 }, async (req, res) => {
    const documents = s.documents;
    // checked before the (possibly large) body is read, so a denied caller uploads nothing
    await documents.authorizeUpload(req.actor, req.params.projectId);
    const release = slots.acquire(req.actor.id, config);
    const temp = new RequestTempFiles();
    // an aborted request may never reach the finally below (multer can wait on a dead socket)
    res.once('close', () => {
      release();
      void temp.cleanup();
    });
    try {
      const { files, language } = await receiveFiles(config, req, res, temp);
      return { documents: (await documents.upload(req.actor, req.params.projectId, files, { language })).map(presentUploadResult) };
    } finally {
      release();
      await temp.cleanup();
    }
  });

  r.get('/projects/:projectId/documents', { auth: 'required' }, async (req) => {
    const input = await parseQuery(ListDocumentsInput, req.query);
    return { documents: (await s.documents.list(req.actor, req.params.projectId, input)).map(presentDocument) };
  });

  r.get('/documents/:id', { auth: 'required' }, async (req) => ({
    document: presentDocument(await s.documents.get(req.actor, req.params.id)),
  }));

  // the stored file itself, for the citation viewer and downloads (issue 35)
  r.get('/documents/:id/original', { auth: 'required' }, async (req, res) =>
    sendOriginal(req, res, await s.originals.get(req.actor, req.params.id)),
  );

  // the converted text, for the reader view of a citation (issue 35)
  r.get('/documents/:id/text', { auth: 'required' }, async (req) => {
    const { from } = await parseQuery(DocumentTextQuery, req.query, ['from']);
    return presentDocumentText(await s.documentText.text(req.actor, req.params.id, from ?? 1));
  });

  r.delete('/documents/:id', { auth: 'required' }, async (req) => ({
    success: true,
    id: (await s.documents.delete(req.actor, req.params.id)).id,
  }));

  r.post('/documents/:id/reindex', { auth: 'required', status: 202 }, async (req) => ({
    document: presentDocument(await s.documents.reindex(req.actor, req.params.id)),
  }));

  // spec: GET /chat/chunks/:chunkId/source resolves a citation (`use` on the chunk's project)
  r.get('/chat/chunks/:chunkId/source', { auth: 'required' }, async (req) =>
    presentChunkSource(await s.documents.chunkSource(req.actor, req.params.chunkId)),
  );

  return r.router;
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger';
import { query } from '../../db/sql';
import { IngestError } from '../types';
import { ANALYSIS_VERSION, IndexDeps, indexDocument, IngestRow } from './index-document';

export interface ReanalysisDeps {
  em: EntityManager;
  logger: Logger;
  index: IndexDeps;
  /** Queues the sweep's continuation (it stops at half the job time-out). */
  continueLater: () => Promise<void>;
}

/**
 * The re-analysis sweep: ready documents indexed with an older ANALYSIS_VERSION get their
 * language detected again (unless stated) and their chunks rebuilt, one document per
 * transaction, so search keeps answering from the old chunks until each swap commits. Their status
 * never changes (this is not an ingestion attempt: no finish()). A sweep works for at most half
 * the job time-out and then queues its continuation. Returns the number of documents re-analysed.
 */
export async function reanalyseStale(deps: ReanalysisDeps, jobTimeoutSeconds: number, signal: AbortSignal): Promise<number> {
  const { em, logger } = deps;
  const deadline = Date.now() + (jobTimeoutSeconds * 1000) / 2;
  let done = 0;
  while (!signal.aborted) {
    if (Date.now() > deadline) {
      await deps.continueLater();
      break;
    }
    const [doc] = await query<IngestRow & { id: string }>(
      em,
      `select id, project_id, name, mime_type, format, content_oid, size, language, language_stated from documents
        where status = 'ready' and analysis_version < ? order by created_at, id limit 1`,
      [ANALYSIS_VERSION],
    );
    if (!doc) break;
    try {
      await indexDocument(deps.index, em, doc.id, doc, signal, true);
    } catch (e) {
      if (!(e instanceof IngestError)) throw e; // retried (the sweep resumes where it stopped)
      // the file no longer parses (e.g. a stricter parser): keep its current chunks, and do not try again
      logger.warn({ err: e, documentId: doc.id }, 're-analysis could not read the document; its index is kept');
      await query(em, 'update documents set analysis_version = ? where id = ?', [ANALYSIS_VERSION, doc.id]);
      continue;
    }
    done++;
  }
  if (done) logger.info({ documents: done }, 'documents re-analysed');
  return done;
}

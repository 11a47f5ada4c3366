import type { Actor } from '../access/actor';
import type { LiveLoss } from '../access/live-streams';
import type { Document } from '../entities';
import { query } from '../db/sql';
import { NotFoundError } from '../errors';
import { isUuid } from '../validation';
import { BaseService, ServiceContext } from '../db/service-context';
import type { DocumentProgress, DocumentsService } from './documents.service';
import type { LiveAccessService, LiveTicket } from './live-access.service';

/** The progress event a document's row describes. */
function progressOf(doc: Document): DocumentProgress {
  return {
    documentId: doc.id,
    projectId: doc.project.id,
    status: doc.status,
    pagesDone: doc.pagesDone,
    pagesTotal: doc.pagesTotal,
    pageCount: doc.pageCount,
    chunkCount: doc.chunkCount,
    error: doc.error ?? null,
  };
}

const finished = (e: DocumentProgress) => e.status === 'ready' || e.status === 'failed';

/**
 * A document's ingestion progress as a live stream, driven by notifications only (no re-reads on a
 * timer): the progress events of every process (the documents service's progress hub), and the
 * access registry, which ends the stream with `forbidden`/`unauthorized` when the document or the
 * project is deleted or the caller loses `use` or is deactivated (on any node).
 */
export class DocumentProgressService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly deps: { documents: DocumentsService; live: LiveAccessService },
  ) {
    super(ctx);
  }

  /** The project of a document (no access check: used only to register its stream), or null. */
  private async projectOf(documentId: string): Promise<string | null> {
    if (!isUuid(documentId)) return null;
    const [row] = await query<{ project_id: string }>(this.em(), `select project_id from documents where id = ?`, [documentId]);
    return row?.project_id ?? null;
  }

  /**
   * `use` on the document's project (checked before the stream is returned); the current state
   * first, then every change, ending after `ready` or `failed` or when the server shuts down. A
   * lost access arrives as a last value: the error to report.
   */
  async watch(actor: Actor, documentId: string): Promise<AsyncIterable<DocumentProgress | LiveLoss>> {
    const pending: DocumentProgress[] = [];
    let wake: (() => void) | null = null;
    // listening before the first read: nothing between the read and the first event is missed
    const off = this.deps.documents.onProgress(documentId, (e) => {
      pending.push(e);
      wake?.();
    });
    let first: DocumentProgress;
    let ticket: LiveTicket | null = null;
    try {
      // registered before the access check, as chat streams are: a change committed during the
      // check still reaches this stream. The project is read unchecked only to index the stream.
      const projectId = await this.projectOf(documentId);
      if (projectId) ticket = this.deps.live.open(actor, { projectId, documentId });
      first = progressOf(await this.deps.documents.get(actor, documentId));
      if (!ticket) throw new NotFoundError('not_found', 'Document not found');
    } catch (e) {
      ticket?.close();
      off();
      throw e;
    }
    const shutdown = this.ctx.shutdown;
    let stopped = false;
    // also the cleanup: a generator returned before its first read never runs its finally
    const stop = () => {
      stopped = true;
      off();
      shutdown.removeEventListener('abort', stop);
      wake?.();
    };
    shutdown.addEventListener('abort', stop);
    const source = (async function* () {
      try {
        let last = first;
        yield last;
        while (!finished(last) && !stopped) {
          if (!pending.length) {
            await new Promise<void>((resolve) => (wake = resolve));
            wake = null;
            continue;
          }
          const next = pending.shift()!;
          if (JSON.stringify(next) === JSON.stringify(last)) continue;
          last = next;
          yield next;
        }
      } finally {
        stop();
      }
    })();
    return ticket.follow<DocumentProgress | LiveLoss>(source, stop, (loss) => loss);
  }
}

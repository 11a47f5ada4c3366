import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { DocumentStatus } from '../entities/base';
import type { Logger } from '../logger';
import { PgListener } from '../db/pg-listener';
import { query } from '../db/sql';

/** A change in a document's ingestion state. */
export interface DocumentProgress {
  documentId: string;
  projectId: string;
  status: DocumentStatus;
  pagesDone: number;
  pagesTotal: number;
  pageCount: number;
  chunkCount: number;
  error: string | null;
}

const CHANNEL = 'docqa_document_progress';

/**
 * Progress events, in this process and across processes. Whoever changes a document's state
 * publishes: listeners in this process hear it at once, and a PostgreSQL NOTIFY carries it to the
 * other processes (an API server hears the `npm run worker` processes that do its ingestion).
 * Each process LISTENs through a PgListener (one dedicated connection, re-established after a
 * database restart).
 * Events are hints for live views; the documents row stays the truth (a watcher reads it first).
 */
export class ProgressHub {
  private readonly origin = randomUUID();
  private readonly emitter = new EventEmitter();
  private readonly listener: PgListener;

  constructor(url: string, logger: Logger) {
    this.emitter.setMaxListeners(0);
    this.listener = new PgListener(url, logger, 'docqa-progress');
    this.listener.on(CHANNEL, (payload) => {
      if (!payload) return;
      try {
        const { origin, event, gone } = JSON.parse(payload) as { origin: string; event?: DocumentProgress; gone?: string };
        if (origin === this.origin) return;
        if (event) this.emitter.emit(event.documentId, event);
        else if (gone) this.emitter.emit(gone, null);
      } catch (err) {
        logger.warn({ err }, 'malformed progress notification');
      }
    });
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  /** Tells listeners here at once, and other processes through the database (best effort). */
  async publish(em: EntityManager, event: DocumentProgress): Promise<void> {
    this.emitter.emit(event.documentId, event);
    const payload = JSON.stringify({ origin: this.origin, event: { ...event, error: event.error?.slice(0, 2000) ?? null } });
    await query(em, 'select pg_notify(?, ?)', [CHANNEL, payload]);
  }

  /** Tells listeners the document was deleted (they receive null). */
  async publishGone(em: EntityManager, documentId: string): Promise<void> {
    this.emitter.emit(documentId, null);
    await query(em, 'select pg_notify(?, ?)', [CHANNEL, JSON.stringify({ origin: this.origin, gone: documentId })]);
  }

  /** Subscribes to one document's events (null: it was deleted); returns the unsubscribe function. */
  on(documentId: string, listener: (event: DocumentProgress | null) => void): () => void {
    this.emitter.on(documentId, listener);
    return () => this.emitter.off(documentId, listener);
  }
}

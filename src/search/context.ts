// What the search wing's parts are built from, and the one thing they ask of the rest of the process: which model to call.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { RequestContext } from '@mikro-orm/core';
import type { Config } from '../config';
import type { EmbeddingTarget, RerankTarget } from '../llm/provider-targets';
import type { Logger } from '../logger';
import type { Metrics } from '../observability/metrics';
import { scopedLogger } from '../observability/request-context';

/** The process's shared parts (the services' context has the same shape and is passed as is). */
export interface SearchContext {
  orm: MikroORM;
  config: Config;
  logger: Logger;
  /** Aborted when the process begins a graceful shutdown (embedding and rerank calls end on it). */
  shutdown: AbortSignal;
  metrics: Metrics;
}

/**
 * Where the wing learns which embedder and reranker a project uses, with their decrypted keys
 * (ProvidersService implements it; the wing never imports the services).
 */
export interface ModelSources {
  resolveForEmbeddings(projectModels: Array<string | null | undefined>): Promise<Array<EmbeddingTarget | null>>;
  resolveForRerank(projectModel: string | null | undefined): Promise<RerankTarget | null>;
}

/** Base of the wing's parts: the request's EntityManager (RequestContext), or a fresh fork outside one. */
export abstract class SearchPart {
  constructor(protected readonly ctx: SearchContext) {}

  protected em(): EntityManager {
    return (RequestContext.getEntityManager() as EntityManager | undefined) ?? this.ctx.orm.em.fork();
  }

  /** A fresh EntityManager (jobs, and a search's own read-only transaction). */
  protected freshEm(): EntityManager {
    return this.ctx.orm.em.fork();
  }

  protected get config(): Config {
    return this.ctx.config;
  }

  /** The current request's (or job's) child logger. */
  protected get logger(): Logger {
    return scopedLogger(this.ctx.logger);
  }

  protected get metrics(): Metrics {
    return this.ctx.metrics;
  }
}

/** The embedding stage's queue; a job's data is `{ documentId }`: fill in the document's missing vectors. */
export const EMBED_QUEUE = 'embed-document';

/** The calls the wing makes on the process's one job host (the document pipeline's), for the embedding stage. */
export interface SearchJobs {
  send(kind: typeof EMBED_QUEUE, documentId?: string, dedupeSeconds?: number): Promise<void>;
  work(kind: typeof EMBED_QUEUE, concurrency: number, handler: (job: { documentId: string }) => Promise<void>): void;
  every(seconds: number, name: string, task: () => Promise<unknown>): void;
}

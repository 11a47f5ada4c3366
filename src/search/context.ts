// What the search wing's parts are built from, and the one thing they ask of the rest of the process: which model to call.
import { BaseService, type ServiceContext } from '../db/service-context';
import type { EmbeddingTarget, RerankTarget } from '../llm/provider-targets';

/** The process's shared parts: the services' context, passed as is. */
export type SearchContext = ServiceContext;

/**
 * Where the wing learns which embedder and reranker a project uses, with their decrypted keys
 * (ProvidersService implements it; the wing never imports the services).
 */
export interface ModelSources {
  resolveForEmbeddings(projectModels: Array<string | null | undefined>): Promise<Array<EmbeddingTarget | null>>;
  resolveForRerank(projectModel: string | null | undefined): Promise<RerankTarget | null>;
}

/** Base of the wing's parts: the services' base (request EntityManager, config, scoped logger, metrics). */
export abstract class SearchPart extends BaseService {}

/** The embedding stage's queue; a job's data is `{ documentId }`: fill in the document's missing vectors. */
export const EMBED_QUEUE = 'embed-document';

/** The calls the wing makes on the process's one job host (the document pipeline's), for the embedding stage. */
export interface SearchJobs {
  send(kind: typeof EMBED_QUEUE, documentId?: string, dedupeSeconds?: number): Promise<void>;
  work(kind: typeof EMBED_QUEUE, concurrency: number, handler: (job: { documentId: string }) => Promise<void>): void;
  every(seconds: number, name: string, task: () => Promise<unknown>): void;
}

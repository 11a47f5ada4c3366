import type PgBoss from 'pg-boss';
import { EMBED_QUEUE } from '../../search';

/** Ingestion jobs; a job's data is `{ documentId, requestId? }`. */
export const INGEST_QUEUE = 'document-ingest';
/** Jobs that used up their retries (or whose worker kept dying) land here; its worker marks the document failed. */
export const INGEST_DEAD_QUEUE = 'document-ingest-dead';
/**
 * Background re-analysis of documents indexed with an older text analysis (language, CJK bigrams,
 * contextual headers). `stately`: at most one sweep waiting and one running.
 */
export const REANALYSE_QUEUE = 'document-reanalyse';
/** The embedding stage's queue belongs to the search wing (src/search); this host serves it. */
export { EMBED_QUEUE };

/** Every job kind the job host serves. */
export type JobKind = typeof INGEST_QUEUE | typeof INGEST_DEAD_QUEUE | typeof REANALYSE_QUEUE | typeof EMBED_QUEUE;

export interface JobSettings {
  /** Ingestion retries after the first attempt, and the base delay of their exponential backoff. */
  ingestRetryLimit: number;
  ingestRetryDelaySeconds: number;
  /** An active job older than this is considered dead (its worker crashed) and is retried. */
  jobTimeoutSeconds: number;
  embedRetryLimit: number;
  embedRetryDelaySeconds: number;
  /** How often expired jobs are looked for (one process does it at a time). */
  maintenanceSeconds: number;
  /** How often an idle worker polls for jobs. */
  pollingSeconds: number;
}

/** Each queue's pg-boss options (applied again at every start: settings may have changed). */
export function queueOptions(s: JobSettings): PgBoss.Queue[] {
  return [
    { name: INGEST_DEAD_QUEUE, retryLimit: 5, retryDelay: 5, retryBackoff: true },
    {
      name: INGEST_QUEUE,
      retryLimit: s.ingestRetryLimit,
      retryDelay: s.ingestRetryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: s.jobTimeoutSeconds,
      deadLetter: INGEST_DEAD_QUEUE,
    },
    { name: REANALYSE_QUEUE, policy: 'stately', retryLimit: 5, retryDelay: 30, retryBackoff: true, expireInSeconds: s.jobTimeoutSeconds },
    {
      name: EMBED_QUEUE,
      retryLimit: s.embedRetryLimit,
      retryDelay: s.embedRetryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: s.jobTimeoutSeconds,
    },
  ];
}

import type { MikroORM } from '@mikro-orm/postgresql';
import type { MetricSources } from '../observability/metrics';
import { query } from './sql';

/** pg-boss job states (v10), all reported so a series never vanishes when its count drops to 0. */
const JOB_STATES = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'] as const;

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** Connection counts of a node-postgres pool. */
export interface PgPoolStats {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * Scrape-time sources read from the database: the main (MikroORM/knex) pool and the
 * authentication pool, the ingestion queues' depth per state, and the embedding backlog, which
 * is absent until a `chunk_embeddings` table exists. Each query failing (database down) only
 * leaves its series out of that scrape.
 */
export function databaseSources(
  orm: MikroORM,
  opts: { queues: string[]; jobsSchema: string; authPool: () => PgPoolStats | null },
): MetricSources {
  // a fork per read: metrics are collected outside any request, on a pooled connection
  const execute = <T>(sql: string, params: unknown[] = []) => query<T>(orm.em.fork(), sql, params);
  return {
    pools: () => {
      const out: ReturnType<NonNullable<MetricSources['pools']>> = [];
      const knexPool = (orm.em.getConnection().getKnex().client as { pool?: TarnPool }).pool;
      if (knexPool) out.push({ pool: 'orm', inUse: knexPool.numUsed(), idle: knexPool.numFree(), waiting: knexPool.numPendingAcquires() });
      const auth = opts.authPool();
      if (auth) out.push({ pool: 'auth', inUse: auth.totalCount - auth.idleCount, idle: auth.idleCount, waiting: auth.waitingCount });
      return out;
    },
    queueDepth: async () => {
      try {
        const rows = await execute<{ queue: string; state: string; count: number }>(
          `select name as queue, state::text as state, count(*)::int as count from ${opts.jobsSchema}.job where name in (${opts.queues.map(() => '?').join(', ')}) group by 1, 2`,
          opts.queues,
        );
        return opts.queues.flatMap((queue) =>
          JOB_STATES.map((state) => ({ queue, state, count: rows.find((r) => r.queue === queue && r.state === state)?.count ?? 0 })),
        );
      } catch {
        return [];
      }
    },
    embeddingBacklog: async () => {
      try {
        const [t] = await execute<{ present: boolean }>(`select to_regclass('chunk_embeddings') is not null as present`);
        if (!t?.present) return null;
        const [r] = await execute<{ n: number }>(
          `select count(*)::int as n from chunks c where not exists (select 1 from chunk_embeddings e where e.chunk_id = c.id)`,
        );
        return r?.n ?? 0;
      } catch {
        return null;
      }
    },
  };
}

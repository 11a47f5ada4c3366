import 'reflect-metadata';
import type { EntityManager } from '@mikro-orm/postgresql';
import { IsolationLevel } from '@mikro-orm/core';
import { performance } from 'node:perf_hooks';
import { Actor } from '../src/access/actor';
import { CANDIDATES, EXACT_POSTINGS, rankBm25 } from '../src/search/bm25';
import type { SearchStages } from '../src/search/stages';
import type { SearchTrace } from '../src/search/relevance';
import { openDocsBenchEnv, quantile, round } from './docs-env';
import { stageBreakdown } from './retrieval';

/**
 * Where the lexical side of a search spends its time in a large project: on an existing database
 * (DATABASE_URL, e.g. the one `vectors-1m.js --hold 1` leaves), QUESTIONS questions built like the
 * vector benches' (four words of a random chunk) are searched lexically in this process (no
 * embedder: the stages `analyze` and `lexical` are PostgreSQL's), then the slowest SHOW questions'
 * BM25 statements are run again under EXPLAIN (ANALYZE, BUFFERS) in the search's own kind of
 * transaction (read-only, repeatable read, enable_seqscan off as analyze() sets it).
 *
 *   DATABASE_URL=postgres://… node dist/bench/lexical-explain.js --project <id> [--questions 100] [--show 3] [--ask 'q1|q2']
 */
const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL must name the database to examine');
  const projectId = arg('project', '');
  const n = Number(arg('questions', '100'));
  const show = Number(arg('show', '3'));
  const env = await openDocsBenchEnv({ workers: false, env: { EMBEDDING_MODEL: '' } });
  try {
    const exec = <T>(sql: string, params: unknown[] = []) => env.orm.em.fork().getConnection().execute<T[]>(sql, params);
    // --ask "q1|q2": these questions instead of sampled ones
    const asked = arg('ask', '');
    const sampled = async () =>
      (
        await exec<{ text: string }>(
          `select text from chunks where project_id = ? and id in (select id from chunks where project_id = ? order by md5(id::text) limit ?)`,
          [projectId, projectId, n],
        )
      ).map((r) => {
        const w = r.text.replace(/[.,]/g, '').split(/\s+/);
        return `what is the ${w[3]} ${w[7]} for ${w[11]} ${w[13]}?`;
      });
    const qs = asked ? asked.split('|') : await sampled();
    const runs: Array<{ q: string; ms: number; stages: SearchStages; trace: SearchTrace }> = [];
    for (const q of qs.slice(0, 5)) await env.services.search.search(Actor.system(), projectId, q);
    for (const q of qs) {
      const stages: SearchStages = {};
      const trace: SearchTrace = {};
      const t0 = performance.now();
      await env.services.search.search(Actor.system(), projectId, q, { stages, trace, relevanceFloor: 0 });
      runs.push({ q, ms: performance.now() - t0, stages, trace });
    }
    const total = runs.map((r) => r.ms);
    console.log(
      JSON.stringify(
        {
          questions: runs.length,
          totalMs: { median: round(quantile(total, 0.5)), p95: round(quantile(total, 0.95)) },
          stagesMs: stageBreakdown(runs.map((r) => r.stages)),
          // stage lexical by the path a question took: every posting scored, or candidates (tiers)
          lexicalByPath: Object.fromEntries(
            (['exact', 'candidates'] as const).map((path) => {
              const ms = runs
                .filter((r) => (r.trace.terms ?? []).reduce((s, t) => s + t.df, 0) <= EXACT_POSTINGS === (path === 'exact'))
                .map((r) => r.stages.lexical ?? 0);
              return [path, { questions: ms.length, median: round(quantile(ms, 0.5)), p95: round(quantile(ms, 0.95)) }];
            }),
          ),
        },
        null,
        1,
      ),
    );
    const slowest = [...runs].sort((a, b) => (b.stages.lexical ?? 0) - (a.stages.lexical ?? 0)).slice(0, show);
    for (const r of slowest) {
      const terms = r.trace.terms ?? [];
      const postings = terms.reduce((s, t) => s + t.df, 0);
      console.log(
        `\n### "${r.q}": lexical ${round(r.stages.lexical ?? 0)} ms; terms ${terms.map((t) => `${t.term} (df ${t.df})`).join(', ')}; ${postings} postings`,
      );
      const chunks = r.trace.projectChunks ?? 0;
      const [{ reltuples }] = await exec<{ reltuples: number }>(`select reltuples from pg_class where oid = 'chunks'::regclass`);
      await env.orm.em.fork().transactional(
        async (em) => {
          await em.getConnection().execute('set local enable_seqscan = off', [], 'all', em.getTransactionContext());
          // the statements rankBm25 sends, each answered with its plan (the ranking itself is not needed)
          const explaining = {
            getConnection: () => ({
              execute: async (sql: string, params: unknown[]) => {
                const plan = await em
                  .getConnection()
                  .execute<Array<Record<string, string>>>(`explain (analyze, buffers) ${sql}`, params, 'all', em.getTransactionContext());
                console.log(plan.map((p) => p['QUERY PLAN']).join('\n'));
                return [];
              },
            }),
            getTransactionContext: () => em.getTransactionContext(),
          } as unknown as EntityManager;
          await rankBm25(explaining, projectId, terms, 50, {
            projectChunks: chunks,
            ginOnly: chunks * chunks > CANDIDATES * Math.max(chunks, Number(reltuples)),
          });
        },
        { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
      );
    }
  } finally {
    await env.close();
  }
}

main().catch((e) => {
  process.stderr.write(`lexical-explain failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});

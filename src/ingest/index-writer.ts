import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChunkDraft } from './chunker';

/** Runs SQL on `em`'s transaction (or a pooled connection outside one). */
export async function query<T = Record<string, unknown>>(em: EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await em.getConnection().execute(sql, params, 'all', em.getTransactionContext())) as T[];
}

/**
 * Serialises writers of one project's index inside the current transaction. Index writes change
 * shared rows (the project's term statistics); taking this lock first means concurrent ingests
 * and deletes in one project queue for a few milliseconds instead of deadlocking on term rows.
 * Parsing happens before and outside it, so workers still parse in parallel.
 */
export async function lockProjectIndex(em: EntityManager, projectId: string): Promise<void> {
  await query(em, `select pg_advisory_xact_lock(hashtextextended('docqa-index:' || ?::text, 0))`, [projectId]);
}

/**
 * Removes a document's chunks and takes their contribution out of the project's BM25 statistics
 * (per-term document frequency, chunk count, total terms). Call inside a transaction holding
 * lockProjectIndex(). Returns the number of chunks removed.
 */
export async function removeDocumentChunks(em: EntityManager, projectId: string, documentId: string): Promise<number> {
  const [removed] = await query<{ chunks: string; terms: string; lexemes: string[] | null }>(
    em,
    `with gone as (delete from chunks where document_id = ? returning tsv, term_count),
          per_term as (select u.lexeme, count(*)::int as n from gone, unnest(gone.tsv) u group by u.lexeme),
          dec as (update term_stats t set df = t.df - per_term.n
                    from per_term where t.project_id = ? and t.term = per_term.lexeme
                  returning t.term, t.df)
     select (select count(*) from gone) as chunks,
            (select coalesce(sum(term_count), 0) from gone) as terms,
            (select array_agg(term) from dec where df <= 0) as lexemes`,
    [documentId, projectId],
  );
  const chunks = Number(removed.chunks);
  if (chunks === 0) return 0;
  if (removed.lexemes?.length) {
    await query(em, `delete from term_stats where project_id = ? and term in (select jsonb_array_elements_text(?::jsonb)) and df <= 0`, [projectId, JSON.stringify(removed.lexemes)]);
  }
  await query(em, `update project_index_stats set chunk_count = chunk_count - ?, total_terms = total_terms - ? where project_id = ?`, [chunks, Number(removed.terms), projectId]);
  return chunks;
}

/**
 * Inserts a document's chunks with their full-text vectors (built by PostgreSQL with the
 * configured text-search language over unaccented text: the same expression queries use) and adds
 * them to the project's BM25 statistics. Call inside a transaction holding lockProjectIndex().
 */
export async function insertDocumentChunks(em: EntityManager, projectId: string, documentId: string, language: string, chunks: ChunkDraft[]): Promise<void> {
  if (!chunks.length) return;
  // batches keep each statement's parameter reasonably sized for very large documents
  for (let i = 0; i < chunks.length; i += 500) {
    const batch = chunks.slice(i, i + 500).map((c) => ({ o: c.ordinal, p: c.pageNumber, e: c.pageEnd, t: c.text, c: c.context }));
    await query(
      em,
      `insert into chunks (id, document_id, project_id, ordinal, page_number, page_end, text, context, tsv, term_count)
       select gen_random_uuid(), ?, ?, x.o, x.p, x.e, x.t, x.c, v.tsv,
              coalesce((select sum(coalesce(array_length(u.positions, 1), 1)) from unnest(v.tsv) u), 0)
         from jsonb_to_recordset(?::jsonb) as x(o int, p int, e int, t text, c text)
         cross join lateral (select to_tsvector(?::regconfig, docqa_unaccent(x.t)) as tsv) v`,
      [documentId, projectId, JSON.stringify(batch), language],
    );
  }
  // ordered by term so that concurrent writers (if any bypass the lock) take row locks in one order
  await query(
    em,
    `insert into term_stats (project_id, term, df)
     select ?, u.lexeme, count(*) from chunks c, unnest(c.tsv) u where c.document_id = ? group by u.lexeme order by u.lexeme
     on conflict (project_id, term) do update set df = term_stats.df + excluded.df`,
    [projectId, documentId],
  );
  await query(
    em,
    `insert into project_index_stats (project_id, chunk_count, total_terms)
     select ?, count(*), coalesce(sum(term_count), 0) from chunks where document_id = ?
     on conflict (project_id) do update
       set chunk_count = project_index_stats.chunk_count + excluded.chunk_count,
           total_terms = project_index_stats.total_terms + excluded.total_terms`,
    [projectId, documentId],
  );
}

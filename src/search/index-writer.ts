import type { EntityManager } from '@mikro-orm/postgresql';
import { bulk, query } from '../db/sql';

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
 * Removes a document's chunks and postings and takes their contribution out of the project's BM25
 * statistics (per-term document frequency, chunk count, total terms). Call inside a transaction
 * holding lockProjectIndex(). Returns the number of chunks removed.
 */
export async function removeDocumentChunks(em: EntityManager, projectId: string, documentId: string): Promise<number> {
  const [removed] = await query<{ chunks: string; terms: string; lexemes: string[] | null }>(
    em,
    `with gone as (delete from chunks where document_id = ? returning tsv, term_count),
          -- runs whether or not anything reads it (PostgreSQL runs every data-modifying WITH once)
          postings as (delete from term_postings where document_id = ?),
          per_term as (select u.lexeme, count(*)::int as n from gone, unnest(gone.tsv) u group by u.lexeme),
          dec as (update term_stats t set df = t.df - per_term.n
                    from per_term where t.project_id = ? and t.term = per_term.lexeme
                  returning t.term, t.df)
     select (select count(*) from gone) as chunks,
            (select coalesce(sum(term_count), 0) from gone) as terms,
            (select array_agg(term) from dec where df <= 0) as lexemes`,
    [documentId, documentId, projectId],
  );
  const chunks = Number(removed.chunks);
  if (chunks === 0) return 0;
  if (removed.lexemes?.length) {
    await query(em, `delete from term_stats where project_id = ? and term in (select jsonb_array_elements_text(?::jsonb)) and df <= 0`, [
      projectId,
      JSON.stringify(removed.lexemes),
    ]);
  }
  await query(em, `update project_index_stats set chunk_count = chunk_count - ?, total_terms = total_terms - ? where project_id = ?`, [
    chunks,
    Number(removed.terms),
    projectId,
  ]);
  return chunks;
}

/** How a document's chunks are analysed for the full-text index. */
export interface IndexAnalysis {
  /** PostgreSQL text-search configuration of the document's language (see resolveTextSearchConfig). */
  config: string;
  /** The document's title (file name without extension), indexed with every chunk. */
  title?: string;
  /** The document's language (ISO 639-1) the configuration was chosen for; null when unknown. */
  language?: string | null;
}

/**
 * The configuration to index with: `wanted` when this server has it, else `simple` (older
 * PostgreSQL versions lack some of the newer built-in configurations).
 */
export async function resolveTextSearchConfig(em: EntityManager, wanted: string): Promise<string> {
  const [row] = await query<{ cfg: string }>(
    em,
    `select coalesce((select cfgname::text from pg_ts_config where cfgname = ?), 'simple') as cfg`,
    [wanted],
  );
  return row.cfg;
}

/**
 * Where a chunk's contextual header (document title, section heading) starts in its full-text
 * vector. The header is indexed apart from the text, at positions from here on, so ranking can
 * weight a match in a heading above one in body text (BM25F: see HEADER_WEIGHT) and a phrase never
 * runs from the header into the text. A chunk's own text (at most a few thousand characters) never
 * reaches this position; PostgreSQL's limit is 16383.
 */
export const HEADER_POSITION = 8192;

/**
 * BM25F: an occurrence in the chunk's contextual header (document title, section headings and
 * entry terms; indexed from HEADER_POSITION on) counts this many times an occurrence in the text.
 * Measured on the development split (lexical): weight 1 → recall@1 0.512, recall@5 0.746;
 * 2 → 0.515, 0.754; 3 → 0.512, 0.754.
 * Baked into the postings (term_postings.tfs) at ingest: a change needs them rebuilt (a migration
 * with rebuildPostings' SQL over every project).
 */
export const HEADER_WEIGHT = 2;

/**
 * The most chunks one term_postings row lists. Postings are read from the index
 * term_postings_cover alone (an index-only scan: the (term, document) rows of a term lie together
 * in its leaf pages, where the table holds them in the order documents were written, one random page
 * each), and a btree entry holds at most ~2,700 bytes: 24 bytes a chunk (its id, frequency and
 * length), about 130 for the rest and the term itself (up to 2,047 bytes), so a long term gets fewer.
 */
export const POSTINGS_PART = 64;
/** The columns of a term_postings row, in postingsOf's order. */
export const POSTINGS_COLUMNS = 'project_id, term, document_id, part, chunk_ids, tfs, lens';

/**
 * SELECT of the term_postings rows of the chunks in `from` (a relation with id, document_id,
 * project_id, ordinal, tsv, term_count): per document and lexeme, the chunks containing it in
 * order (POSTINGS_PART at most a row, parts numbered from 0), with the term's frequency in each — an
 * occurrence in the contextual header (position HEADER_POSITION on) counting HEADER_WEIGHT times,
 * as BM25F wants it — and their lengths.
 */
export function postingsOf(from: string): string {
  // grouped whole, then cut: the arrays are sliced only where a term is in more chunks than a row lists
  const slice = (a: string) => `${a}[g.part * p.k + 1 : (g.part + 1) * p.k]`;
  return `select p.project_id, p.lexeme, p.document_id, g.part::smallint, ${slice('p.ids')}, ${slice('p.tfs')}, ${slice('p.lens')}
            from (select c.project_id, u.lexeme, c.document_id, least(${POSTINGS_PART}, (2400 - octet_length(u.lexeme)) / 24) as k,
                         array_agg(c.id order by c.ordinal) as ids, array_agg(tf.n order by c.ordinal) as tfs, array_agg(c.term_count order by c.ordinal) as lens
                    from ${from} c
                   cross join lateral unnest(c.tsv) u
                   cross join lateral (select (count(*) filter (where p < ${HEADER_POSITION}) + ${HEADER_WEIGHT} * count(*) filter (where p >= ${HEADER_POSITION}))::real as n
                                         from unnest(u.positions) p) tf
                   group by c.project_id, u.lexeme, c.document_id) p
           cross join lateral generate_series(0, (cardinality(p.ids) - 1) / p.k) g(part)`;
}

/**
 * Rebuilds the postings of a project's chunks (or only those of `documentIds`) from their vectors:
 * for chunks written by SQL rather than by ingestion (benchmarks and test fixtures).
 */
export async function rebuildPostings(em: EntityManager, projectId: string, documentIds?: string[]): Promise<void> {
  const docs = documentIds ? `document_id in (select jsonb_array_elements_text(?::jsonb)::uuid)` : 'true';
  const params = documentIds ? [projectId, JSON.stringify(documentIds)] : [projectId];
  await query(em, `delete from term_postings where project_id = ? and ${docs}`, params);
  await query(
    em,
    `insert into term_postings (${POSTINGS_COLUMNS})
     ${postingsOf(`(select id, document_id, project_id, ordinal, tsv, term_count from chunks where project_id = ? and ${docs})`)}`,
    params,
  );
}

/**
 * Computes chunks' full-text vectors into a temporary table of the current transaction, where they
 * wait (invisible to everyone else) until commitStagedChunks(). `rows` is a batch of StagedRow as
 * JSON text, built in a parser pool worker (index-rows.ts): the server only passes it on, so
 * PostgreSQL builds vectors on one core while the worker reads and analyses on the other. A vector
 * is the document language's configuration over the unaccented non-CJK text (identifiers
 * expanded), `||` the CJK bigrams (see analysis.ts) — the same analysis questions get — then the
 * header analysed the same way, moved to HEADER_POSITION. Pure-ASCII text skips the unaccent call
 * (it would return it unchanged), which roughly halves the cost of building vectors for English
 * documents.
 */
export async function stageRows(em: EntityManager, config: string, rows: string): Promise<void> {
  await query(
    em,
    `create temp table if not exists docqa_staged_chunks
       (ordinal int, page_number int, page_end int, page_starts int[], text text, context text, locations jsonb, tsv tsvector, term_count int) on commit drop`,
  );
  // the header goes after a placeholder lexeme at HEADER_POSITION (`||` shifts the right vector
  // past the left one's last position), which is then deleted; `x` is left out when it equals `t`
  await bulk(
    em,
    `insert into docqa_staged_chunks (ordinal, page_number, page_end, page_starts, text, context, locations, tsv, term_count)
       select x.o, x.p, x.e, x.s, x.t, x.c, x.l, v.tsv,
              coalesce((select sum(coalesce(array_length(u.positions, 1), 1)) from unnest(v.tsv) u), 0)
         from jsonb_to_recordset(?::jsonb) as x(o int, p int, e int, s int[], t text, c text, l jsonb, x text, a boolean, k text, h text, ha boolean, hk text)
         cross join lateral (select to_tsvector(?::regconfig, case when x.a then coalesce(x.x, x.t) else docqa_unaccent(coalesce(x.x, x.t)) end)
                                    || coalesce(x.k::tsvector, ''::tsvector) as body,
                                    to_tsvector(?::regconfig, case when x.ha then x.h else docqa_unaccent(x.h) end)
                                    || coalesce(x.hk::tsvector, ''::tsvector) as head) b
         cross join lateral (select case when b.head = ''::tsvector then b.body
                                    else ts_delete(b.body
                                           || ('docqa_header:' || greatest(1, ${HEADER_POSITION} - coalesce((select max(p) from unnest(b.body) u, unnest(u.positions) p), 0)))::tsvector
                                           || b.head, 'docqa_header') end as tsv) v`,
    [rows, config, config],
  );
}

/**
 * Moves the staged chunks into the document and adds them to the project's BM25 statistics.
 * Call inside the staging transaction, holding lockProjectIndex(), after removeDocumentChunks().
 * Returns the number of chunks added.
 */
export async function commitStagedChunks(em: EntityManager, projectId: string, documentId: string): Promise<number> {
  const [{ exists }] = await query<{ exists: boolean }>(em, `select to_regclass('pg_temp.docqa_staged_chunks') is not null as exists`);
  if (!exists) return 0;
  // a chunk's id is derived from its document, position and text (not drawn at random): a
  // re-analysis that finds the same passage at the same place gives it the same id, so the
  // citations stored with old answers still open it (issue 35, "citations that last"); the old
  // chunks are gone by now (removeDocumentChunks), so the ids cannot collide
  // the chunks, their postings (from the vectors in hand: nothing is read back) and the terms'
  // document frequencies (each posting row's chunk count), in one statement; term_stats rows are
  // written in term order so that concurrent writers (if any bypass the lock) lock them in one order
  await query(
    em,
    `with ins as (insert into chunks (id, document_id, project_id, ordinal, page_number, page_end, page_starts, text, context, locations, tsv, term_count)
                  select md5(?::text || ':' || ordinal || ':' || md5(text))::uuid, ?, ?, ordinal, page_number, page_end, page_starts, text, context, locations, tsv, term_count
                    from docqa_staged_chunks order by ordinal
                  returning id, document_id, project_id, ordinal, tsv, term_count),
          post as (insert into term_postings (${POSTINGS_COLUMNS})
                   ${postingsOf('ins')}
                   returning term, cardinality(chunk_ids) as df)
     insert into term_stats (project_id, term, df)
     select ?, term, sum(df) from post group by term order by term
     on conflict (project_id, term) do update set df = term_stats.df + excluded.df`,
    [documentId, documentId, projectId, projectId],
  );
  const [added] = await query<{ chunks: number }>(
    em,
    `insert into project_index_stats (project_id, chunk_count, total_terms)
     select ?, count(*), coalesce(sum(term_count), 0) from docqa_staged_chunks
     on conflict (project_id) do update
       set chunk_count = project_index_stats.chunk_count + excluded.chunk_count,
           total_terms = project_index_stats.total_terms + excluded.total_terms
     returning (select count(*)::int from docqa_staged_chunks) as chunks`,
    [projectId],
  );
  await query(em, 'drop table docqa_staged_chunks');
  return added.chunks;
}

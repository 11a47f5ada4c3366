import type { MikroORM } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import { rebuildPostings } from '../../src/search/index-writer';

/** The application's tables whose contents a rejected request must leave as they were. */
export const APP_TABLES = [
  'users',
  'departments',
  'groups',
  'group_members',
  'projects',
  'project_members',
  'project_grants',
  'audit_entries',
  'providers',
  'conversations',
  'messages',
  'documents',
  'chunks',
] as const;

/**
 * Raw rows a project can own (documents, chunks, retrieval statistics, conversations, messages) and
 * a query counter — for tests of project counts, cascades and constant-query lists.
 */
export function projectFixtures(orm: MikroORM) {
  const exec = <T = any>(sql: string, params: unknown[] = []): Promise<T[]> => orm.em.fork().getConnection().execute(sql, params);

  /** A ready document with `chunks` chunks, and the postings and term statistics ingestion would have written. */
  async function addDocument(projectId: string, opts: { chunks?: number } = {}): Promise<string> {
    const [doc] = await exec<{ id: string }>(
      `insert into documents (project_id, name, mime_type, size, sha256, status, content, chunk_count)
       values (?, ?, 'text/plain', 5, ?, 'ready', '\\x68656c6c6f'::bytea, ?) returning id`,
      [projectId, `doc-${randomBytes(3).toString('hex')}.txt`, randomBytes(32).toString('hex'), opts.chunks ?? 1],
    );
    for (let i = 0; i < (opts.chunks ?? 1); i++) {
      await exec(
        `insert into chunks (document_id, project_id, ordinal, page_number, page_end, text, context, tsv, term_count)
         values (?, ?, ?, 1, 1, 'hello', 'hello', 'hello:1'::tsvector, 1)`,
        [doc.id, projectId, i],
      );
    }
    await rebuildPostings(orm.em.fork(), projectId, [doc.id]);
    await exec(
      `insert into term_stats (project_id, term, df) values (?, 'hello', ?) on conflict (project_id, term) do update set df = term_stats.df + excluded.df`,
      [projectId, opts.chunks ?? 1],
    );
    await exec(
      `insert into project_index_stats (project_id, chunk_count, total_terms) values (?, ?, ?)
       on conflict (project_id) do update set chunk_count = project_index_stats.chunk_count + excluded.chunk_count`,
      [projectId, opts.chunks ?? 1, opts.chunks ?? 1],
    );
    return doc.id;
  }

  /** A conversation with `messages` messages (alternating user/assistant). */
  async function addConversation(projectId: string, userId: string | null, opts: { messages?: number } = {}): Promise<string> {
    const [c] = await exec<{ id: string }>(
      `insert into conversations (project_id, user_id, title) values (?, ?, 'A question') returning id`,
      [projectId, userId],
    );
    for (let i = 0; i < (opts.messages ?? 2); i++) {
      await exec(`insert into messages (conversation_id, user_id, role, content) values (?, ?, ?, 'text')`, [
        c.id,
        userId,
        i % 2 ? 'assistant' : 'user',
      ]);
    }
    return c.id;
  }

  /** Rows of `table` whose `column` equals `value`. */
  async function countRows(table: string, column: string, value: string): Promise<number> {
    const [r] = await exec<{ n: number }>(`select count(*)::int as n from ${table} where ${column} = ?`, [value]);
    return r.n;
  }

  /** Runs `fn` and returns how many SQL statements the ORM's connection pool executed meanwhile. */
  async function countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: number; sql: string[] }> {
    const knex = orm.em.getConnection().getKnex();
    const sql: string[] = [];
    const listener = (q: { sql: string }) => sql.push(q.sql);
    knex.on('query', listener);
    try {
      const result = await fn();
      return { result, queries: sql.length, sql };
    } finally {
      knex.removeListener('query', listener);
    }
  }

  /** A fingerprint (row count and hash) of each of `tables`, to prove a rejected request changed nothing. */
  async function fingerprint(tables: readonly string[] = APP_TABLES): Promise<string> {
    const parts: string[] = [];
    for (const tbl of tables) {
      const [row] = await exec<{ n: string; h: string }>(
        `select count(*)::text as n, coalesce(md5(string_agg(t::text, ',' order by t::text)), '') as h from ${tbl} t`,
      );
      parts.push(`${tbl}:${row.n}:${row.h}`);
    }
    return parts.join('|');
  }

  return { exec, addDocument, addConversation, countRows, countQueries, fingerprint };
}

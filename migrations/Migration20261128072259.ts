import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 36, a million chunks: a term's postings are read from a covering index (the next
 * migration), whose entries hold at most ~2,700 bytes, so a (term, document) row lists at most 64
 * chunks (fewer for a long term: 24 bytes a chunk, the term and ~130 bytes besides within 2,400).
 * Rows over that are cut into parts 1, 2, … after part 0, in chunk order, as ingestion now writes them.
 * An index-only scan reads the table for pages not yet marked all-visible by a vacuum: autovacuum
 * comes after 2 % of the table's rows were added (20 % by default, gigabytes at a million chunks).
 */
export class Migration20261128072259 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`insert into "term_postings" ("project_id", "term", "document_id", "part", "chunk_ids", "tfs", "lens")
      select tp.project_id, tp.term, tp.document_id, g.part::smallint,
             tp.chunk_ids[g.part * k.n + 1 : (g.part + 1) * k.n], tp.tfs[g.part * k.n + 1 : (g.part + 1) * k.n], tp.lens[g.part * k.n + 1 : (g.part + 1) * k.n]
        from "term_postings" tp
       cross join lateral (select least(64, (2400 - octet_length(tp.term)) / 24) as n) k
       cross join lateral generate_series(1, (cardinality(tp.chunk_ids) - 1) / k.n) g(part)
       where tp.part = 0 and cardinality(tp.chunk_ids) > k.n;`);
    this.addSql(`update "term_postings" set "chunk_ids" = "chunk_ids"[1 : least(64, (2400 - octet_length("term")) / 24)],
                                        "tfs" = "tfs"[1 : least(64, (2400 - octet_length("term")) / 24)],
                                        "lens" = "lens"[1 : least(64, (2400 - octet_length("term")) / 24)]
      where "part" = 0 and cardinality("chunk_ids") > least(64, (2400 - octet_length("term")) / 24);`);
    this.addSql(`alter table "term_postings" set (autovacuum_vacuum_insert_scale_factor = 0.02);`);
  }

  override async down(): Promise<void> {
    this.addSql(`update "term_postings" p set "chunk_ids" = m.chunk_ids, "tfs" = m.tfs, "lens" = m.lens
      from (select project_id, term, document_id,
                   array_agg(c order by part, o) as chunk_ids, array_agg(f order by part, o) as tfs, array_agg(l order by part, o) as lens
              from "term_postings", unnest(chunk_ids, tfs, lens) with ordinality u(c, f, l, o)
             group by project_id, term, document_id having count(distinct part) > 1) m
     where p.project_id = m.project_id and p.term = m.term and p.document_id = m.document_id and p.part = 0;`);
    this.addSql(`delete from "term_postings" where "part" > 0;`);
    this.addSql(`alter table "term_postings" reset (autovacuum_vacuum_insert_scale_factor);`);
  }

}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261124230443 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "term_postings" ("project_id" uuid not null, "term" text not null, "document_id" uuid not null, "chunk_ids" uuid[] not null, "tfs" real[] not null, "lens" int[] not null, constraint "term_postings_pkey" primary key ("project_id", "term", "document_id"));`);
    this.addSql(`create index "term_postings_document_idx" on "term_postings" ("document_id");`);

    this.addSql(`alter table "term_postings" add constraint "term_postings_document_id_foreign" foreign key ("document_id") references "documents" ("id") on update cascade on delete cascade;`);

    // the postings of the chunks already indexed (as commitStagedChunks writes them: header
    // occurrences, from position 8192, count twice)
    this.addSql(`insert into "term_postings" ("project_id", "term", "document_id", "chunk_ids", "tfs", "lens")
      select c.project_id, u.lexeme, c.document_id, array_agg(c.id order by c.ordinal),
             array_agg(tf.n order by c.ordinal), array_agg(c.term_count order by c.ordinal)
        from chunks c
       cross join lateral unnest(c.tsv) u
       cross join lateral (select (count(*) filter (where p < 8192) + 2 * count(*) filter (where p >= 8192))::real as n
                             from unnest(u.positions) p) tf
       group by c.project_id, u.lexeme, c.document_id;`);
    this.addSql(`analyze "term_postings";`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "term_postings" cascade;`);
  }

}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261128072040 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "term_postings" drop constraint "term_postings_pkey";`);

    this.addSql(`alter table "term_postings" add column "part" smallint not null default 0;`);
    this.addSql(`alter table "term_postings" add constraint "term_postings_pkey" primary key ("project_id", "term", "document_id", "part");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "term_postings" drop constraint "term_postings_pkey";`);
    this.addSql(`alter table "term_postings" drop column "part";`);

    this.addSql(`alter table "term_postings" add constraint "term_postings_pkey" primary key ("project_id", "term", "document_id");`);
  }

}

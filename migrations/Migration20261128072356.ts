import { Migration } from '@mikro-orm/migrations';

export class Migration20261128072356 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create unique index "term_postings_cover" on "term_postings" ("project_id", "term", "document_id", "part") include ("chunk_ids", "tfs", "lens");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "term_postings_cover";`);
  }

}

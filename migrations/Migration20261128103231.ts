import { Migration } from '@mikro-orm/migrations';

export class Migration20261128103231 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create index "documents_project_language_index" on "documents" ("project_id", "language");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "documents_project_language_index";`);
  }

}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261127154339 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "documents" add column "page_methods" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "documents" drop column "page_methods";`);
  }

}

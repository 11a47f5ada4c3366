import { Migration } from '@mikro-orm/migrations';

export class Migration20261127155756 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "documents" add column "format" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "documents" drop column "format";`);
  }

}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261124173959 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "chunks" add column "page_starts" int[] null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "chunks" drop column "page_starts";`);
  }

}

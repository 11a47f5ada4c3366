import { Migration } from '@mikro-orm/migrations';

export class Migration20261127154013 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "chunks" add column "locations" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "chunks" drop column "locations";`);
  }

}

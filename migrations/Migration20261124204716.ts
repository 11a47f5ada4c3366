import { Migration } from '@mikro-orm/migrations';

export class Migration20261124204716 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "documents" add column "content_oid" oid null;`);
    this.addSql(`alter table "documents" alter column "content" type bytea using ("content"::bytea);`);
    this.addSql(`alter table "documents" alter column "content" drop not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "documents" drop column "content_oid";`);

    this.addSql(`alter table "documents" alter column "content" type bytea using ("content"::bytea);`);
    this.addSql(`alter table "documents" alter column "content" set not null;`);
  }

}

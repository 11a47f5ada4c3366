import { Migration } from '@mikro-orm/migrations';

export class Migration20261124181638 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "audit_entries" alter column "project_id" drop default;`);
    this.addSql(`alter table "audit_entries" alter column "project_id" type uuid using ("project_id"::text::uuid);`);
    this.addSql(`alter table "audit_entries" alter column "project_id" drop not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "audit_entries" alter column "project_id" drop default;`);
    this.addSql(`alter table "audit_entries" alter column "project_id" type uuid using ("project_id"::text::uuid);`);
    this.addSql(`alter table "audit_entries" alter column "project_id" set not null;`);
  }

}

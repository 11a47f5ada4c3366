import { Migration } from '@mikro-orm/migrations';

export class Migration20261123162510 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "documents" add column "language" text null, add column "language_stated" boolean not null default false, add column "analysis_version" int not null default 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "documents" drop column "language", drop column "language_stated", drop column "analysis_version";`);
  }

}

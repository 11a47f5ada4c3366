import { Migration } from '@mikro-orm/migrations';

export class Migration20261124174841 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "providers" add column "rerank_models" jsonb not null default '[]';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "providers" drop column "rerank_models";`);
  }

}

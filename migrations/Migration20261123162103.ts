import { Migration } from '@mikro-orm/migrations';

export class Migration20261123162103 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "rate_limits" ("key" varchar(255) not null, "points" int not null default 0, "expire" bigint null, constraint "rate_limits_pkey" primary key ("key"));`);

    this.addSql(`create table "settings" ("key" text not null, "value" text not null, "created_at" timestamptz not null default now(), constraint "settings_pkey" primary key ("key"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "rate_limits" cascade;`);

    this.addSql(`drop table if exists "settings" cascade;`);
  }

}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261127161136 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "api_keys" ("id" uuid not null default gen_random_uuid(), "user_id" uuid not null, "name" text not null, "prefix" text not null, "secret_hash" text not null, "project_ids" text[] null, "tier" text not null default 'full', "platform" boolean not null default false, "expires_at" timestamptz null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, "window_started_at" timestamptz null, "window_count" int not null default 0, "created_at" timestamptz not null default now(), constraint "api_keys_pkey" primary key ("id"));`);
    this.addSql(`create index "api_keys_user_id_index" on "api_keys" ("user_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_secret_hash_unique" unique ("secret_hash");`);

    this.addSql(`create table "api_key_addresses" ("key_id" uuid not null, "address" text not null, "first_seen_at" timestamptz not null default now(), constraint "api_key_addresses_pkey" primary key ("key_id", "address"));`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "api_key_addresses" add constraint "api_key_addresses_key_id_foreign" foreign key ("key_id") references "api_keys" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "api_key_addresses" drop constraint "api_key_addresses_key_id_foreign";`);

    this.addSql(`drop table if exists "api_keys" cascade;`);

    this.addSql(`drop table if exists "api_key_addresses" cascade;`);
  }

}

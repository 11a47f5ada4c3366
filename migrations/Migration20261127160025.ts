import { Migration } from '@mikro-orm/migrations';

export class Migration20261127160025 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "message_feedback" ("id" uuid not null default gen_random_uuid(), "message_id" uuid not null, "project_id" uuid not null, "user_id" uuid not null, "rating" text check ("rating" in ('up', 'down')) not null, "comment" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "message_feedback_pkey" primary key ("id"));`);
    this.addSql(`create index "message_feedback_project_created_idx" on "message_feedback" ("project_id", "created_at");`);
    this.addSql(`alter table "message_feedback" add constraint "message_feedback_message_user_unique" unique ("message_id", "user_id");`);

    this.addSql(`alter table "message_feedback" add constraint "message_feedback_message_id_foreign" foreign key ("message_id") references "messages" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "message_feedback" add constraint "message_feedback_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "message_feedback" add constraint "message_feedback_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "message_feedback" cascade;`);
  }

}

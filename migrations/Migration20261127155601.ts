import { Migration } from '@mikro-orm/migrations';

export class Migration20261127155601 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "chat_streams" ("id" uuid not null, "user_id" uuid not null, "project_id" uuid not null, "conversation_id" uuid not null, "ended_at" timestamptz null, "created_at" timestamptz not null default now(), constraint "chat_streams_pkey" primary key ("id"));`);
    this.addSql(`create index "chat_streams_user_id_index" on "chat_streams" ("user_id");`);
    this.addSql(`create index "chat_streams_project_id_index" on "chat_streams" ("project_id");`);
    this.addSql(`create index "chat_streams_conversation_id_index" on "chat_streams" ("conversation_id");`);
    this.addSql(`create index "chat_streams_ended_idx" on "chat_streams" ("ended_at");`);

    this.addSql(`create table "chat_stream_events" ("stream_id" uuid not null, "seq" int not null, "event" text not null, "data" jsonb not null, constraint "chat_stream_events_pkey" primary key ("stream_id", "seq"));`);

    this.addSql(`alter table "chat_streams" add constraint "chat_streams_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "chat_streams" add constraint "chat_streams_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "chat_streams" add constraint "chat_streams_conversation_id_foreign" foreign key ("conversation_id") references "conversations" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "chat_stream_events" add constraint "chat_stream_events_stream_id_foreign" foreign key ("stream_id") references "chat_streams" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "chat_stream_events" drop constraint "chat_stream_events_stream_id_foreign";`);

    this.addSql(`drop table if exists "chat_streams" cascade;`);

    this.addSql(`drop table if exists "chat_stream_events" cascade;`);
  }

}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261122022904 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "audit_entries" ("id" uuid not null default gen_random_uuid(), "action" text not null, "actor_id" uuid null, "project_id" uuid not null, "target_type" text not null, "target_id" uuid not null, "metadata" jsonb not null default '{}', "created_at" timestamptz not null default now(), constraint "audit_entries_pkey" primary key ("id"));`);
    this.addSql(`create index "audit_entries_created_idx" on "audit_entries" ("created_at");`);
    this.addSql(`create index "audit_entries_project_created_idx" on "audit_entries" ("project_id", "created_at");`);

    this.addSql(`create table "departments" ("id" uuid not null default gen_random_uuid(), "name" text not null, "color" text not null default '#64748b', "description" text not null default '', "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "departments_pkey" primary key ("id"));`);
    this.addSql(`alter table "departments" add constraint "departments_name_unique" unique ("name");`);

    this.addSql(`create table "groups" ("id" uuid not null default gen_random_uuid(), "name" text not null, "description" text not null default '', "department_id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "groups_pkey" primary key ("id"));`);
    this.addSql(`create index "groups_department_id_index" on "groups" ("department_id");`);
    this.addSql(`alter table "groups" add constraint "groups_department_name_unique" unique ("department_id", "name");`);

    this.addSql(`create table "project_index_stats" ("project_id" uuid not null, "chunk_count" int not null default 0, "total_terms" bigint not null default 0, constraint "project_index_stats_pkey" primary key ("project_id"));`);

    this.addSql(`create table "providers" ("id" uuid not null default gen_random_uuid(), "name" text not null, "slug" text not null, "type" text check ("type" in ('official', 'custom')) not null default 'custom', "base_url" text not null, "api_key_enc" text not null default '', "api_key_mask" text not null default '', "models" jsonb not null default '[]', "is_default" boolean not null default false, "is_enabled" boolean not null default true, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "providers_pkey" primary key ("id"));`);
    this.addSql(`alter table "providers" add constraint "providers_slug_unique" unique ("slug");`);
    this.addSql(`create unique index "providers_single_default" on "providers" ((1)) where "is_default";`);

    this.addSql(`create table "term_stats" ("project_id" uuid not null, "term" text not null, "df" int not null, constraint "term_stats_pkey" primary key ("project_id", "term"));`);

    this.addSql(`create table "users" ("id" uuid not null default gen_random_uuid(), "email" text not null, "name" text not null, "password_hash" text not null, "platform_role" text check ("platform_role" in ('none', 'admin', 'engineer', 'superadmin')) not null default 'none', "org_position" text check ("org_position" in ('member', 'manager', 'ceo')) not null default 'member', "department_id" uuid null, "avatar_color" text not null, "avatar_url" text null, "status" text check ("status" in ('active', 'inactive')) not null default 'active', "last_login_at" timestamptz null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "users_pkey" primary key ("id"));`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);
    this.addSql(`create index "users_department_id_index" on "users" ("department_id");`);
    this.addSql(`create unique index "users_single_superadmin" on "users" ((1)) where "platform_role" = 'superadmin';`);
    this.addSql(`create unique index "users_single_ceo" on "users" ((1)) where "org_position" = 'ceo';`);

    this.addSql(`create table "refresh_tokens" ("id" uuid not null, "user_id" uuid not null, "family_id" uuid not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "replaced_by" uuid null, "created_at" timestamptz not null default now(), constraint "refresh_tokens_pkey" primary key ("id"));`);
    this.addSql(`create index "refresh_tokens_user_id_index" on "refresh_tokens" ("user_id");`);
    this.addSql(`create index "refresh_tokens_family_idx" on "refresh_tokens" ("family_id");`);

    this.addSql(`create table "projects" ("id" uuid not null default gen_random_uuid(), "name" text not null, "description" text null, "color" text not null default '#3b82f6', "is_private" boolean not null default true, "instructions" text not null default '', "settings" jsonb not null default '{}', "owner_id" uuid null, "created_by_id" uuid null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "projects_pkey" primary key ("id"));`);
    this.addSql(`create index "projects_owner_id_index" on "projects" ("owner_id");`);

    this.addSql(`create table "project_members" ("project_id" uuid not null, "user_id" uuid not null, "added_at" timestamptz not null default now(), constraint "project_members_pkey" primary key ("project_id", "user_id"));`);
    this.addSql(`create index "project_members_user_id_index" on "project_members" ("user_id");`);

    this.addSql(`create table "project_grants" ("id" uuid not null default gen_random_uuid(), "project_id" uuid not null, "user_id" uuid null, "group_id" uuid null, "department_id" uuid null, "tier" text check ("tier" in ('use', 'edit', 'full')) not null, "granted_by_id" uuid null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "project_grants_pkey" primary key ("id"), constraint project_grants_one_target check (num_nonnulls(user_id, group_id, department_id) = 1));`);
    this.addSql(`create index "project_grants_user_id_index" on "project_grants" ("user_id");`);
    this.addSql(`create index "project_grants_group_id_index" on "project_grants" ("group_id");`);
    this.addSql(`create index "project_grants_department_id_index" on "project_grants" ("department_id");`);
    this.addSql(`alter table "project_grants" add constraint "project_grants_project_department_unique" unique ("project_id", "department_id");`);
    this.addSql(`alter table "project_grants" add constraint "project_grants_project_group_unique" unique ("project_id", "group_id");`);
    this.addSql(`alter table "project_grants" add constraint "project_grants_project_user_unique" unique ("project_id", "user_id");`);

    this.addSql(`create table "group_members" ("group_id" uuid not null, "user_id" uuid not null, "added_at" timestamptz not null default now(), constraint "group_members_pkey" primary key ("group_id", "user_id"));`);
    this.addSql(`create index "group_members_user_id_index" on "group_members" ("user_id");`);

    this.addSql(`create table "documents" ("id" uuid not null default gen_random_uuid(), "project_id" uuid not null, "name" text not null, "mime_type" text not null, "size" int not null, "sha256" text not null, "status" text check ("status" in ('queued', 'processing', 'ready', 'failed')) not null default 'queued', "pages_done" int not null default 0, "pages_total" int not null default 0, "page_count" int not null default 0, "chunk_count" int not null default 0, "error" text null, "attempts" int not null default 0, "uploaded_by_id" uuid null, "content" bytea not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "documents_pkey" primary key ("id"));`);
    this.addSql(`alter table "documents" add constraint "documents_project_sha256_unique" unique ("project_id", "sha256");`);

    this.addSql(`create table "chunks" ("id" uuid not null default gen_random_uuid(), "document_id" uuid not null, "project_id" uuid not null, "ordinal" int not null, "page_number" int not null, "page_end" int not null, "text" text not null, "context" text not null, "term_count" int not null default 0, "tsv" tsvector null, "created_at" timestamptz not null default now(), constraint "chunks_pkey" primary key ("id"));`);
    this.addSql(`create index "chunks_tsv_gin" on "chunks" using gin ("tsv");`);
    this.addSql(`create index "chunks_project_idx" on "chunks" ("project_id");`);
    this.addSql(`create index "chunks_document_ordinal_idx" on "chunks" ("document_id", "ordinal");`);

    this.addSql(`create table "conversations" ("id" uuid not null default gen_random_uuid(), "project_id" uuid not null, "user_id" uuid null, "title" text not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "conversations_pkey" primary key ("id"));`);
    this.addSql(`create index "conversations_project_idx" on "conversations" ("project_id");`);
    this.addSql(`create index "conversations_user_updated_idx" on "conversations" ("user_id", "updated_at");`);

    this.addSql(`create table "messages" ("id" uuid not null default gen_random_uuid(), "conversation_id" uuid not null, "user_id" uuid null, "role" text check ("role" in ('user', 'assistant')) not null, "content" text not null default '', "citations" jsonb not null default '[]', "incomplete" boolean not null default false, "model" text null, "total_tokens" int null, "mode" text null, "created_at" timestamptz not null default now(), constraint "messages_pkey" primary key ("id"));`);
    this.addSql(`create index "messages_user_id_index" on "messages" ("user_id");`);
    this.addSql(`create index "messages_conversation_created_idx" on "messages" ("conversation_id", "created_at");`);

    this.addSql(`alter table "groups" add constraint "groups_department_id_foreign" foreign key ("department_id") references "departments" ("id") on update cascade on delete restrict;`);

    this.addSql(`alter table "users" add constraint "users_department_id_foreign" foreign key ("department_id") references "departments" ("id") on update cascade on delete restrict;`);

    this.addSql(`alter table "refresh_tokens" add constraint "refresh_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "projects" add constraint "projects_owner_id_foreign" foreign key ("owner_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "projects" add constraint "projects_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "project_members" add constraint "project_members_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "project_members" add constraint "project_members_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "project_grants" add constraint "project_grants_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "project_grants" add constraint "project_grants_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "project_grants" add constraint "project_grants_group_id_foreign" foreign key ("group_id") references "groups" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "project_grants" add constraint "project_grants_department_id_foreign" foreign key ("department_id") references "departments" ("id") on update cascade on delete restrict;`);
    this.addSql(`alter table "project_grants" add constraint "project_grants_granted_by_id_foreign" foreign key ("granted_by_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "group_members" add constraint "group_members_group_id_foreign" foreign key ("group_id") references "groups" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "group_members" add constraint "group_members_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "documents" add constraint "documents_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "documents" add constraint "documents_uploaded_by_id_foreign" foreign key ("uploaded_by_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "chunks" add constraint "chunks_document_id_foreign" foreign key ("document_id") references "documents" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "chunks" add constraint "chunks_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "conversations" add constraint "conversations_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "conversations" add constraint "conversations_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "messages" add constraint "messages_conversation_id_foreign" foreign key ("conversation_id") references "conversations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "messages" add constraint "messages_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "groups" drop constraint "groups_department_id_foreign";`);

    this.addSql(`alter table "users" drop constraint "users_department_id_foreign";`);

    this.addSql(`alter table "project_grants" drop constraint "project_grants_department_id_foreign";`);

    this.addSql(`alter table "project_grants" drop constraint "project_grants_group_id_foreign";`);

    this.addSql(`alter table "group_members" drop constraint "group_members_group_id_foreign";`);

    this.addSql(`alter table "refresh_tokens" drop constraint "refresh_tokens_user_id_foreign";`);

    this.addSql(`alter table "projects" drop constraint "projects_owner_id_foreign";`);

    this.addSql(`alter table "projects" drop constraint "projects_created_by_id_foreign";`);

    this.addSql(`alter table "project_members" drop constraint "project_members_user_id_foreign";`);

    this.addSql(`alter table "project_grants" drop constraint "project_grants_user_id_foreign";`);

    this.addSql(`alter table "project_grants" drop constraint "project_grants_granted_by_id_foreign";`);

    this.addSql(`alter table "group_members" drop constraint "group_members_user_id_foreign";`);

    this.addSql(`alter table "documents" drop constraint "documents_uploaded_by_id_foreign";`);

    this.addSql(`alter table "conversations" drop constraint "conversations_user_id_foreign";`);

    this.addSql(`alter table "messages" drop constraint "messages_user_id_foreign";`);

    this.addSql(`alter table "project_members" drop constraint "project_members_project_id_foreign";`);

    this.addSql(`alter table "project_grants" drop constraint "project_grants_project_id_foreign";`);

    this.addSql(`alter table "documents" drop constraint "documents_project_id_foreign";`);

    this.addSql(`alter table "chunks" drop constraint "chunks_project_id_foreign";`);

    this.addSql(`alter table "conversations" drop constraint "conversations_project_id_foreign";`);

    this.addSql(`alter table "chunks" drop constraint "chunks_document_id_foreign";`);

    this.addSql(`alter table "messages" drop constraint "messages_conversation_id_foreign";`);

    this.addSql(`drop table if exists "audit_entries" cascade;`);

    this.addSql(`drop table if exists "departments" cascade;`);

    this.addSql(`drop table if exists "groups" cascade;`);

    this.addSql(`drop table if exists "project_index_stats" cascade;`);

    this.addSql(`drop table if exists "providers" cascade;`);

    this.addSql(`drop table if exists "term_stats" cascade;`);

    this.addSql(`drop table if exists "users" cascade;`);

    this.addSql(`drop table if exists "refresh_tokens" cascade;`);

    this.addSql(`drop table if exists "projects" cascade;`);

    this.addSql(`drop table if exists "project_members" cascade;`);

    this.addSql(`drop table if exists "project_grants" cascade;`);

    this.addSql(`drop table if exists "group_members" cascade;`);

    this.addSql(`drop table if exists "documents" cascade;`);

    this.addSql(`drop table if exists "chunks" cascade;`);

    this.addSql(`drop table if exists "conversations" cascade;`);

    this.addSql(`drop table if exists "messages" cascade;`);
  }

}

import { Migration } from '@mikro-orm/migrations';

export class Migration20261123162043 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "chunk_embeddings" ("chunk_id" uuid not null, "model" text not null, "project_id" uuid not null, "dims" smallint not null, "vec" bytea not null, "seq" bigserial not null, constraint "chunk_embeddings_pkey" primary key ("chunk_id", "model"));`);
    this.addSql(`create index "chunk_embeddings_project_model_seq_idx" on "chunk_embeddings" ("project_id", "model", "seq");`);

    this.addSql(`alter table "chunk_embeddings" add constraint "chunk_embeddings_chunk_id_foreign" foreign key ("chunk_id") references "chunks" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "chunk_embeddings" add constraint "chunk_embeddings_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "providers" add column "embedding_models" jsonb not null default '[]';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "chunk_embeddings" cascade;`);

    this.addSql(`alter table "providers" drop column "embedding_models";`);
  }

}

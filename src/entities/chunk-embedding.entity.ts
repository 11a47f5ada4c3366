import { Entity, Index, ManyToOne, Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { Chunk } from './document.entity';
import { Project } from './project.entity';

/**
 * One chunk's vector for one embedding model. Vectors of different models never meet: every read
 * filters on `model`. `vec` is the portable form (little-endian float32, L2-normalised), scored
 * exactly in the process; where the pgvector extension exists, an `embedding vector` column and
 * HNSW indexes are added at start (src/search/vector-store.ts). `seq` grows with every write, so
 * a cached matrix knows from `max(seq)` whether it is current.
 */
@Entity({ tableName: 'chunk_embeddings' })
@Index({ name: 'chunk_embeddings_project_model_seq_idx', properties: ['project', 'model', 'seq'] })
export class ChunkEmbedding {
  @ManyToOne(() => Chunk, { primary: true, deleteRule: 'cascade' })
  chunk!: Chunk;

  @PrimaryKey({ type: 'text' })
  model!: string;

  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  project!: Project;

  @Property({ type: 'smallint' })
  dims!: number;

  @Property({ type: 'blob' })
  vec!: Buffer;

  @Property({ columnType: 'bigserial', type: 'bigint', autoincrement: true })
  seq!: string & Opt;
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Document } from '../entities';
import type { DocumentEmbeddings } from '../entities/document.entity';
import { query } from '../db/sql';
import type { EmbeddingsService } from './embeddings';

/**
 * Sets each document's `embeddings` ({model, chunksEmbedded, chunksTotal}, or null when its
 * project has no embedding source), in one query per model.
 */
export async function attachEmbeddingProgress(embeddings: EmbeddingsService, em: EntityManager, documents: Document[]): Promise<void> {
  if (!documents.length) return;
  const sources = await embeddings.sourcesForProjects([...new Set(documents.map((d) => d.project.id))]);
  const byModel = new Map<string, Document[]>();
  for (const d of documents) {
    const source = sources.get(d.project.id);
    d.embeddings = null;
    if (source) byModel.set(source.key, [...(byModel.get(source.key) ?? []), d]);
  }
  for (const [model, docs] of byModel) {
    const rows = await query<{ document_id: string; total: number; embedded: number }>(
      em,
      `select c.document_id, count(*)::int as total, count(e.chunk_id)::int as embedded
         from chunks c left join chunk_embeddings e on e.chunk_id = c.id and e.model = ?
        where c.document_id in (select (jsonb_array_elements_text(?::jsonb))::uuid)
        group by c.document_id`,
      [model, JSON.stringify(docs.map((d) => d.id))],
    );
    const counts = new Map(rows.map((r) => [r.document_id, r]));
    for (const d of docs) {
      const c = counts.get(d.id);
      d.embeddings = { model, chunksEmbedded: c?.embedded ?? 0, chunksTotal: c?.total ?? 0 } satisfies DocumentEmbeddings;
    }
  }
}

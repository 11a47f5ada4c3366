import { Entity, Enum, Opt, Property, Unique } from '@mikro-orm/core';
import { TimestampedEntity } from './columns';
import { PROVIDER_TYPES, ProviderType } from './base';

@Entity({ tableName: 'providers' })
// spec: exactly one default at a time — the database allows at most one
@Unique({
  name: 'providers_single_default',
  expression: `create unique index "providers_single_default" on "providers" ((1)) where "is_default"`,
})
export class Provider extends TimestampedEntity {
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  @Unique({ name: 'providers_slug_unique' })
  slug!: string;

  @Enum({ items: () => PROVIDER_TYPES as unknown as string[], type: 'text' })
  type: ProviderType & Opt = 'custom';

  @Property({ type: 'text' })
  baseUrl!: string;

  /** AES-256-GCM ciphertext of the API key (never the plain key). */
  @Property({ type: 'text', hidden: true })
  apiKeyEnc: string & Opt = '';

  /** Masked form kept beside the ciphertext so listings never decrypt. */
  @Property({ type: 'text' })
  apiKeyMask: string & Opt = '';

  @Property({ type: 'jsonb', defaultRaw: `'[]'::jsonb` })
  models: string[] & Opt = [];

  /** Embedding models this provider serves (`POST {baseUrl}/embeddings`); may be empty. */
  @Property({ type: 'jsonb', defaultRaw: `'[]'::jsonb` })
  embeddingModels: string[] & Opt = [];

  /** Reranking models this provider serves (`POST {baseUrl}/rerank`); may be empty. */
  @Property({ type: 'jsonb', defaultRaw: `'[]'::jsonb` })
  rerankModels: string[] & Opt = [];

  @Property({ type: 'boolean' })
  isDefault: boolean & Opt = false;

  @Property({ type: 'boolean' })
  isEnabled: boolean & Opt = true;
}

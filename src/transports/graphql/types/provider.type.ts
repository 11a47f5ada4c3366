import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Timestamp } from './common.type';
import { FromView } from '../view';
import { ProviderTypeEnum } from './enums';

/**
 * A language-model provider. Everyone sees the public fields of enabled providers; the rest
 * (type, baseUrl, the masked key...) only provider admins (engineer, superadmin). The plain key
 * is never readable.
 */
@ObjectType('Provider')
export class ProviderType {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field() slug!: string;
  @Field(() => [String]) models!: string[];
  @Field(() => [String], { description: 'Embedding models served at POST {baseUrl}/embeddings (may be empty)' }) embeddingModels!: string[];
  @Field(() => [String], { description: 'Reranking models served at POST {baseUrl}/rerank (may be empty)' }) rerankModels!: string[];
  @Field() isDefault!: boolean;
  @Field() isEnabled!: boolean;
  @Field(() => ProviderTypeEnum, { nullable: true }) @FromView() type?: string;
  @Field(() => String, { nullable: true }) @FromView() baseUrl?: string;
  @Field(() => String, { nullable: true, description: 'Masked (prefix…suffix); "" when no key is stored' }) @FromView() apiKey?: string;
  @Field(() => Boolean, { nullable: true }) @FromView() hasApiKey?: boolean;
  @Timestamp({ nullable: true }) @FromView() createdAt?: string;
  @Timestamp({ nullable: true }) @FromView() updatedAt?: string;
}

/** One entry of GET /providers/models. */
@ObjectType('Model')
export class ModelType {
  @Field({ description: '<provider_slug>/<model_name>' }) id!: string;
  @Field() model!: string;
  @Field({ description: 'provider name' }) provider!: string;
  @Field() providerSlug!: string;
  @Field(() => ID) providerId!: string;
  @Field() isDefault!: boolean;
}

/** POST /providers/:id/test: `ok` tells the success shape (sample) from the failure shape (error). */
@ObjectType('ProviderTestResult')
export class ProviderTestResultType {
  @Field() ok!: boolean;
  @Field(() => Int) latencyMs!: number;
  @Field(() => Int, { description: '0 when no response came' }) status!: number;
  @Field(() => String, { nullable: true }) sample?: string;
  @Field(() => String, { nullable: true }) error?: string;
}

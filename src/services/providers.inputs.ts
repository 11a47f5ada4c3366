import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateBy,
} from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { PROVIDER_TYPES, ProviderType } from '../entities/base';
import { NameRule, Optional, rules } from './input-rules';

export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_MODELS = 100;

/** An absolute http(s) URL without credentials; a trailing slash is dropped. */
export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname && !u.username && !u.password;
  } catch {
    return false;
  }
}

const IsHttpUrl = () =>
  ValidateBy({
    name: 'isHttpUrl',
    validator: { validate: isHttpUrl, defaultMessage: (a) => `${a?.property} must be an http(s) URL without credentials` },
  });

const TrimSlash = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().replace(/\/+$/, '') : value));

/** Trims each model name (a list with blanks or duplicates is refused, not repaired). */
const TrimEach = () =>
  Transform(({ value }: { value: unknown }) =>
    Array.isArray(value) ? (value as unknown[]).map((v) => (typeof v === 'string' ? v.trim() : v)) : value,
  );

/**
 * A list of model names: trimmed, unique, at most MAX_MODELS, each 1–200 characters; the chat models
 * (`atLeastOne`) may not be empty. The rules keep the order they had when written out at each field.
 */
const ModelNames = (atLeastOne = false): PropertyDecorator =>
  rules(
    TrimEach(),
    IsArray(),
    ...(atLeastOne ? [ArrayMinSize(1, { message: 'models must list at least one model' })] : []),
    ArrayMaxSize(MAX_MODELS),
    ArrayUnique(),
    IsString({ each: true }),
    MinLength(1, { each: true }),
    MaxLength(200, { each: true }),
  );

const SlugRule = (): PropertyDecorator =>
  rules(IsString(), MaxLength(64), Matches(SLUG, { message: 'slug must be lowercase kebab-case (a-z, 0-9 and single hyphens)' }));

const BaseUrlRule = (): PropertyDecorator => rules(TrimSlash(), IsHttpUrl());

const ApiKeyRule = (): PropertyDecorator => rules(IsString(), MaxLength(1000));

/** The optional fields creation and update share, each declared once (GraphQL type, optional, rules). */
const ProviderField = {
  type: (): PropertyDecorator =>
    rules(
      Field(() => String, { nullable: true }),
      Optional(),
      IsIn(PROVIDER_TYPES),
    ),
  apiKey: (): PropertyDecorator =>
    rules(
      Field(() => String, { nullable: true }),
      Optional(),
      ApiKeyRule(),
    ),
  /** Embedding models served at `POST {baseUrl}/embeddings`, reranking models at `POST {baseUrl}/rerank`; may be empty. */
  modelNames: (): PropertyDecorator =>
    rules(
      Field(() => [String], { nullable: true }),
      Optional(),
      ModelNames(),
    ),
  flag: (): PropertyDecorator =>
    rules(
      Field(() => Boolean, { nullable: true }),
      Optional(),
      IsBoolean(),
    ),
};

@InputType()
export class CreateProviderInput {
  @Field()
  @NameRule()
  name!: string;

  @Field()
  @SlugRule()
  slug!: string;

  /** Defaults to `custom`. */
  @ProviderField.type()
  type?: ProviderType;

  @Field()
  @BaseUrlRule()
  baseUrl!: string;

  /** May be empty for upstreams that need no key. Write-only. */
  @ProviderField.apiKey()
  apiKey?: string;

  @Field(() => [String])
  @ModelNames(true)
  models!: string[];

  @ProviderField.modelNames()
  embeddingModels?: string[];

  @ProviderField.modelNames()
  rerankModels?: string[];

  @ProviderField.flag()
  isDefault?: boolean;

  /** Defaults to true. */
  @ProviderField.flag()
  isEnabled?: boolean;
}

@InputType()
export class UpdateProviderInput {
  @Field({ nullable: true })
  @Optional()
  @NameRule()
  name?: string;

  @Field({ nullable: true })
  @Optional()
  @SlugRule()
  slug?: string;

  @ProviderField.type()
  type?: ProviderType;

  @Field({ nullable: true })
  @Optional()
  @BaseUrlRule()
  baseUrl?: string;

  /** spec: an empty apiKey keeps the stored key. */
  @ProviderField.apiKey()
  apiKey?: string;

  @Field(() => [String], { nullable: true })
  @Optional()
  @ModelNames(true)
  models?: string[];

  @ProviderField.modelNames()
  embeddingModels?: string[];

  @ProviderField.modelNames()
  rerankModels?: string[];

  @ProviderField.flag()
  isDefault?: boolean;

  @ProviderField.flag()
  isEnabled?: boolean;
}

/** POST /providers/:id/test (and /providers/draft/test); body values override the stored ones. */
@InputType()
export class TestProviderInput {
  @Field({ nullable: true })
  @Optional()
  @BaseUrlRule()
  baseUrl?: string;

  @ProviderField.apiKey()
  apiKey?: string;

  @Field()
  @NameRule(200)
  model!: string;
}

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
import { InputType } from 'type-graphql';
import { PROVIDER_TYPES, ProviderType } from '../entities/base';
import { NameRule, OptionalField, RequiredField, rules } from './input-rules';

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
  type: () => OptionalField(() => String, IsIn(PROVIDER_TYPES)),
  apiKey: () => OptionalField(() => String, ApiKeyRule()),
  /** Embedding models served at `POST {baseUrl}/embeddings`, reranking models at `POST {baseUrl}/rerank`; may be empty. */
  modelNames: () => OptionalField(() => [String], ModelNames()),
  flag: () => OptionalField(() => Boolean, IsBoolean()),
};

@InputType()
export class CreateProviderInput {
  @RequiredField(() => String, NameRule())
  name!: string;

  @RequiredField(() => String, SlugRule())
  slug!: string;

  /** Defaults to `custom`. */
  @ProviderField.type()
  type?: ProviderType;

  @RequiredField(() => String, BaseUrlRule())
  baseUrl!: string;

  /** May be empty for upstreams that need no key. Write-only. */
  @ProviderField.apiKey()
  apiKey?: string;

  @RequiredField(() => [String], ModelNames(true))
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
  @OptionalField(() => String, NameRule())
  name?: string;

  @OptionalField(() => String, SlugRule())
  slug?: string;

  @ProviderField.type()
  type?: ProviderType;

  @OptionalField(() => String, BaseUrlRule())
  baseUrl?: string;

  /** spec: an empty apiKey keeps the stored key. */
  @ProviderField.apiKey()
  apiKey?: string;

  @OptionalField(() => [String], ModelNames(true))
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
  @OptionalField(() => String, BaseUrlRule())
  baseUrl?: string;

  @ProviderField.apiKey()
  apiKey?: string;

  @RequiredField(() => String, NameRule(200))
  model!: string;
}

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

/**
 * What a provider's creation and its update both accept, always optional. They come last (class-validator
 * checks a class's own fields first, then inherited ones), so errors are reported in the order they always were.
 */
@InputType()
abstract class ProviderOptions {
  /** Embedding models served at `POST {baseUrl}/embeddings`; optional, may be empty. */
  @Field(() => [String], { nullable: true })
  @Optional()
  @ModelNames()
  embeddingModels?: string[];

  /** Reranking models served at `POST {baseUrl}/rerank`; optional, may be empty. */
  @Field(() => [String], { nullable: true })
  @Optional()
  @ModelNames()
  rerankModels?: string[];

  @Field({ nullable: true })
  @Optional()
  @IsBoolean()
  isDefault?: boolean;

  /** Defaults to true on creation. */
  @Field({ nullable: true })
  @Optional()
  @IsBoolean()
  isEnabled?: boolean;
}

@InputType()
export class CreateProviderInput extends ProviderOptions {
  @Field()
  @NameRule()
  name!: string;

  @Field()
  @SlugRule()
  slug!: string;

  /** Defaults to `custom`. */
  @Field(() => String, { nullable: true })
  @Optional()
  @IsIn(PROVIDER_TYPES)
  type?: ProviderType;

  @Field()
  @BaseUrlRule()
  baseUrl!: string;

  /** May be empty for upstreams that need no key. Write-only. */
  @Field({ nullable: true })
  @Optional()
  @ApiKeyRule()
  apiKey?: string;

  @Field(() => [String])
  @ModelNames(true)
  models!: string[];
}

@InputType()
export class UpdateProviderInput extends ProviderOptions {
  @Field({ nullable: true })
  @Optional()
  @NameRule()
  name?: string;

  @Field({ nullable: true })
  @Optional()
  @SlugRule()
  slug?: string;

  @Field(() => String, { nullable: true })
  @Optional()
  @IsIn(PROVIDER_TYPES)
  type?: ProviderType;

  @Field({ nullable: true })
  @Optional()
  @BaseUrlRule()
  baseUrl?: string;

  /** spec: an empty apiKey keeps the stored key. */
  @Field({ nullable: true })
  @Optional()
  @ApiKeyRule()
  apiKey?: string;

  @Field(() => [String], { nullable: true })
  @Optional()
  @ModelNames(true)
  models?: string[];
}

/** POST /providers/:id/test (and /providers/draft/test); body values override the stored ones. */
@InputType()
export class TestProviderInput {
  @Field({ nullable: true })
  @Optional()
  @BaseUrlRule()
  baseUrl?: string;

  @Field({ nullable: true })
  @Optional()
  @ApiKeyRule()
  apiKey?: string;

  @Field()
  @NameRule(200)
  model!: string;
}

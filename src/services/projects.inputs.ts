import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { Float, ID, InputType, Int } from 'type-graphql';
import { DescriptionRule, HexColorRule, NullableField, OptionalField, RequiredField, rules } from './input-rules';

/** A model name in the project's settings: `<provider_slug>/<model>` or a bare name. */
const ModelNameRule = (): PropertyDecorator => rules(IsString(), MinLength(1), MaxLength(200));

/**
 * Project settings. Every key is optional on update and merged into the stored settings;
 * `null` removes a key (e.g. so chat falls back to the default model).
 */
@InputType()
export class ProjectSettingsInput {
  @NullableField(() => String, ModelNameRule())
  model?: string | null;

  @NullableField(() => Float, IsNumber({ allowNaN: false, allowInfinity: false }), Min(0), Max(2))
  temperature?: number | null;

  @NullableField(() => Int, IsInt(), Min(1), Max(50))
  topK?: number | null;

  /** The embedding model retrieval uses: `<provider_slug>/<model>` or a bare name; null falls back to the default. */
  @NullableField(() => String, ModelNameRule())
  embeddingModel?: string | null;

  /** The reranker retrieval uses: `<provider_slug>/<model>` or a bare name a provider lists; null falls back to the default. */
  @NullableField(() => String, ModelNameRule())
  rerankModel?: string | null;
}

const ProjectNameRule = (): PropertyDecorator => rules(IsString(), Matches(/\S/, { message: 'name must not be blank' }), MaxLength(200));

/**
 * The optional fields creation and update share, each declared once: its GraphQL type, its
 * optionality (a null description clears it; the others refuse null) and its rules.
 */
const ProjectField = {
  description: () => NullableField(() => String, DescriptionRule()),
  color: () => OptionalField(() => String, HexColorRule()),
  isPrivate: () => OptionalField(() => Boolean, IsBoolean()),
  instructions: () => OptionalField(() => String, IsString(), MaxLength(20000)),
  settings: () =>
    OptionalField(
      () => ProjectSettingsInput,
      IsObject(),
      ValidateNested(),
      Type(() => ProjectSettingsInput),
    ),
};

@InputType()
export class CreateProjectInput {
  @RequiredField(() => String, ProjectNameRule())
  name!: string;

  @ProjectField.description()
  description?: string | null;

  @ProjectField.color()
  color?: string;

  /** Defaults to true: a new project is visible only to those granted access (the safer default). */
  @ProjectField.isPrivate()
  isPrivate?: boolean;

  @ProjectField.instructions()
  instructions?: string;

  @ProjectField.settings()
  settings?: ProjectSettingsInput;
}

/** PATCH /projects/:id — any subset; settings keys are merged. */
@InputType()
export class UpdateProjectInput {
  @OptionalField(() => String, ProjectNameRule())
  name?: string;

  @ProjectField.description()
  description?: string | null;

  @ProjectField.instructions()
  instructions?: string;

  @ProjectField.color()
  color?: string;

  @ProjectField.isPrivate()
  isPrivate?: boolean;

  @ProjectField.settings()
  settings?: ProjectSettingsInput;

  /** Transfers ownership: needs `full` tier, and the new owner must be admin or superadmin. */
  @OptionalField(() => ID, IsUUID('all'))
  ownerId?: string;
}

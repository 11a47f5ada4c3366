import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { Field, Float, ID, InputType, Int } from 'type-graphql';
import { DescriptionRule, HexColorRule, Optional, rules } from './input-rules';

/**
 * Project settings. Every key is optional on update and merged into the stored settings;
 * `null` removes a key (e.g. so chat falls back to the default model).
 */
@InputType()
export class ProjectSettingsInput {
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  model?: string | null;

  @Field(() => Float, { nullable: true })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(2)
  temperature?: number | null;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  topK?: number | null;

  /** The embedding model retrieval uses: `<provider_slug>/<model>` or a bare name; null falls back to the default. */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  embeddingModel?: string | null;

  /** The reranker retrieval uses: `<provider_slug>/<model>` or a bare name a provider lists; null falls back to the default. */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  rerankModel?: string | null;
}

const ProjectNameRule = (): PropertyDecorator => rules(IsString(), Matches(/\S/, { message: 'name must not be blank' }), MaxLength(200));

/**
 * The optional fields creation and update share, each declared once: its GraphQL type, its
 * optionality (a null description clears it; the others refuse null) and its rules.
 */
const ProjectField = {
  description: (): PropertyDecorator =>
    rules(
      Field(() => String, { nullable: true }),
      IsOptional(),
      DescriptionRule(),
    ),
  color: (): PropertyDecorator =>
    rules(
      Field(() => String, { nullable: true }),
      Optional(),
      HexColorRule(),
    ),
  isPrivate: (): PropertyDecorator =>
    rules(
      Field(() => Boolean, { nullable: true }),
      Optional(),
      IsBoolean(),
    ),
  instructions: (): PropertyDecorator =>
    rules(
      Field(() => String, { nullable: true }),
      Optional(),
      IsString(),
      MaxLength(20000),
    ),
  settings: (): PropertyDecorator =>
    rules(
      Field(() => ProjectSettingsInput, { nullable: true }),
      Optional(),
      IsObject(),
      ValidateNested(),
      Type(() => ProjectSettingsInput),
    ),
};

@InputType()
export class CreateProjectInput {
  @Field(() => String)
  @ProjectNameRule()
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
  @Field(() => String, { nullable: true })
  @Optional()
  @ProjectNameRule()
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
  @Field(() => ID, { nullable: true })
  @Optional()
  @IsUUID('all')
  ownerId?: string;
}

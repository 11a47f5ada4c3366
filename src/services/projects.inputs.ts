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
const InstructionsRule = (): PropertyDecorator => rules(IsString(), MaxLength(20000));
const SettingsRule = (): PropertyDecorator =>
  rules(
    IsObject(),
    ValidateNested(),
    Type(() => ProjectSettingsInput),
  );

@InputType()
export class CreateProjectInput {
  @Field(() => String)
  @ProjectNameRule()
  name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @DescriptionRule()
  description?: string | null;

  @Field(() => String, { nullable: true })
  @Optional()
  @HexColorRule()
  color?: string;

  /** Defaults to true: a new project is visible only to those granted access (the safer default). */
  @Field(() => Boolean, { nullable: true })
  @Optional()
  @IsBoolean()
  isPrivate?: boolean;

  @Field(() => String, { nullable: true })
  @Optional()
  @InstructionsRule()
  instructions?: string;

  @Field(() => ProjectSettingsInput, { nullable: true })
  @Optional()
  @SettingsRule()
  settings?: ProjectSettingsInput;
}

/** PATCH /projects/:id — any subset; settings keys are merged. */
@InputType()
export class UpdateProjectInput {
  @Field(() => String, { nullable: true })
  @Optional()
  @ProjectNameRule()
  name?: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @DescriptionRule()
  description?: string | null;

  @Field(() => String, { nullable: true })
  @Optional()
  @InstructionsRule()
  instructions?: string;

  @Field(() => String, { nullable: true })
  @Optional()
  @HexColorRule()
  color?: string;

  @Field(() => Boolean, { nullable: true })
  @Optional()
  @IsBoolean()
  isPrivate?: boolean;

  @Field(() => ProjectSettingsInput, { nullable: true })
  @Optional()
  @SettingsRule()
  settings?: ProjectSettingsInput;

  /** Transfers ownership: needs `full` tier, and the new owner must be admin or superadmin. */
  @Field(() => ID, { nullable: true })
  @Optional()
  @IsUUID('all')
  ownerId?: string;
}

import { Type } from 'class-transformer';
import {
  IsBoolean, IsInt, IsNumber, IsObject, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min, MinLength, ValidateIf, ValidateNested,
} from 'class-validator';
import { Field, Float, ID, InputType, Int } from 'type-graphql';
import { DescriptionRule } from './input-rules';

export const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
/** `undefined` means "leave as is"; `null` is validated (and refused) for non-nullable fields. */
const present = (_o: object, v: unknown) => v !== undefined;

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
}

@InputType()
export class CreateProjectInput {
  @Field(() => String)
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(200)
  name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @DescriptionRule()
  description?: string | null;

  @Field(() => String, { nullable: true })
  @ValidateIf(present)
  @IsString()
  @Matches(HEX_COLOR, { message: 'color must be a hex colour such as #3b82f6' })
  color?: string;

  /** Defaults to true: a new project is visible only to those granted access (the safer default). */
  @Field(() => Boolean, { nullable: true })
  @ValidateIf(present)
  @IsBoolean()
  isPrivate?: boolean;

  @Field(() => String, { nullable: true })
  @ValidateIf(present)
  @IsString()
  @MaxLength(20000)
  instructions?: string;

  @Field(() => ProjectSettingsInput, { nullable: true })
  @ValidateIf(present)
  @IsObject()
  @ValidateNested()
  @Type(() => ProjectSettingsInput)
  settings?: ProjectSettingsInput;
}

/** PATCH /projects/:id — any subset; settings keys are merged. */
@InputType()
export class UpdateProjectInput {
  @Field(() => String, { nullable: true })
  @ValidateIf(present)
  @IsString()
  @Matches(/\S/, { message: 'name must not be blank' })
  @MaxLength(200)
  name?: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @DescriptionRule()
  description?: string | null;

  @Field(() => String, { nullable: true })
  @ValidateIf(present)
  @IsString()
  @MaxLength(20000)
  instructions?: string;

  @Field(() => String, { nullable: true })
  @ValidateIf(present)
  @IsString()
  @Matches(HEX_COLOR, { message: 'color must be a hex colour such as #3b82f6' })
  color?: string;

  @Field(() => Boolean, { nullable: true })
  @ValidateIf(present)
  @IsBoolean()
  isPrivate?: boolean;

  @Field(() => ProjectSettingsInput, { nullable: true })
  @ValidateIf(present)
  @IsObject()
  @ValidateNested()
  @Type(() => ProjectSettingsInput)
  settings?: ProjectSettingsInput;

  /** Transfers ownership: needs `full` tier, and the new owner must be admin or superadmin. */
  @Field(() => ID, { nullable: true })
  @ValidateIf(present)
  @IsUUID('all')
  ownerId?: string;
}

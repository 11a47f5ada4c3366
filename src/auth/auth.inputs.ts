import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { Field, InputType } from 'type-graphql';

@InputType()
export class LoginInput {
  @Field()
  @IsString()
  @MinLength(1)
  @MaxLength(320)
  email!: string;

  @Field()
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  password!: string;
}

@InputType()
export class RefreshInput {
  @Field()
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  refreshToken!: string;
}

@InputType()
export class LogoutInput {
  @Field({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  refreshToken?: string;
}

/** POST /auth/oidc/callback: the URL the identity provider sent the browser back to (its query is read). */
@InputType()
export class OidcCallbackInput {
  @Field()
  @IsString()
  @MinLength(1)
  @MaxLength(8192)
  callbackUrl!: string;
}

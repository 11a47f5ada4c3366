import { Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import { presentMe } from '../../../presenters/user.presenter';
import { LoginInput, LogoutInput, RefreshInput } from '../../../auth/auth.inputs';
import { PUBLIC, SignedInQuery, SignedInMutation } from '../auth-checker';
import { GraphqlContext } from '../context';
import { Caller, ValidArg } from '../params';
import { CapabilitiesType, LoginPayloadType, TokenPairType } from '../types/auth.type';
import { UserType } from '../types/user.type';
import type { TokenPair } from '../../../auth/tokens';
import type { CapabilitiesDto, LoginResultDto, MeDto } from '../../../presenters/dto.generated';

@Resolver()
export class AuthResolver {
  @Authorized(PUBLIC)
  @Mutation(() => LoginPayloadType, { description: 'POST /auth/login' })
  async login(@ValidArg('input', LoginInput) input: LoginInput, @Ctx() ctx: GraphqlContext): Promise<LoginResultDto> {
    return ctx.services.login.attempt(input, ctx.ip);
  }

  @Authorized(PUBLIC)
  @Mutation(() => TokenPairType, { description: 'POST /auth/refresh: rotates the refresh token' })
  async refresh(@ValidArg('input', RefreshInput) input: RefreshInput, @Ctx() ctx: GraphqlContext): Promise<TokenPair> {
    return ctx.services.tokens.refresh(input.refreshToken);
  }

  @SignedInMutation(() => Boolean, { description: "POST /auth/logout: revokes the given refresh token, or all of the caller's" })
  async logout(
    @ValidArg('input', LogoutInput, { nullable: true }) input: LogoutInput,
    @Caller() { actor, services }: Caller,
  ): Promise<boolean> {
    await services.tokens.logout(actor, input.refreshToken);
    return true;
  }

  @SignedInQuery(() => UserType, { description: 'GET /auth/me: the caller, re-read on every operation' })
  me(@Caller() { actor }: Caller): MeDto {
    return presentMe(actor);
  }

  @SignedInQuery(() => CapabilitiesType, { description: 'GET /auth/capabilities: what the caller may do in the organisation' })
  capabilities(@Caller() { actor, services }: Caller): CapabilitiesDto {
    return services.users.capabilities(actor);
  }
}

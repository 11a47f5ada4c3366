import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { presentMe } from '../../../presenters/user.presenter';
import { LoginInput, LogoutInput, RefreshInput } from '../../../services/auth.inputs';
import { parse } from '../../../validation';
import { PUBLIC } from '../auth-checker';
import { actorOf, GraphqlContext } from '../context';
import { LoginPayloadType, TokenPairType } from '../types/auth.type';
import { UserType } from '../types/user.type';

@Resolver()
export class AuthResolver {
  @Authorized(PUBLIC)
  @Mutation(() => LoginPayloadType, { description: 'POST /auth/login' })
  async login(@Arg('input', () => LoginInput) input: LoginInput, @Ctx() ctx: GraphqlContext) {
    return ctx.services.auth.login(await parse(LoginInput, input), ctx.ip);
  }

  @Authorized(PUBLIC)
  @Mutation(() => TokenPairType, { description: 'POST /auth/refresh: rotates the refresh token' })
  async refresh(@Arg('input', () => RefreshInput) input: RefreshInput, @Ctx() ctx: GraphqlContext) {
    return ctx.services.auth.refresh((await parse(RefreshInput, input)).refreshToken);
  }

  @Authorized()
  @Mutation(() => Boolean, { description: 'POST /auth/logout: revokes the given refresh token, or all of the caller\'s' })
  async logout(@Arg('input', () => LogoutInput, { nullable: true }) input: LogoutInput | undefined, @Ctx() ctx: GraphqlContext) {
    await ctx.services.auth.logout(actorOf(ctx), (await parse(LogoutInput, input ?? {})).refreshToken);
    return true;
  }

  @Authorized()
  @Query(() => UserType, { description: 'GET /auth/me: the caller, re-read on every operation' })
  me(@Ctx() ctx: GraphqlContext) {
    return presentMe(actorOf(ctx));
  }
}

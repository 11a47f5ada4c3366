import { Field, ObjectType } from 'type-graphql';
import { UserType } from './user.type';

@ObjectType('TokenPair')
export class TokenPairType {
  @Field() accessToken!: string;
  @Field() refreshToken!: string;
}

/** login: the user (login view) and a token pair. */
@ObjectType('LoginPayload')
export class LoginPayloadType extends TokenPairType {
  @Field(() => UserType) user!: UserType;
}

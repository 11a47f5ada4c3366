import { Field, ID, ObjectType } from 'type-graphql';
import { Timestamp } from './common.type';
import { TierEnum } from './enums';

/** A key for programs (never its secret). */
@ObjectType('ApiKey')
export class ApiKeyType {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field({ description: 'The first characters of the secret (`dq_` and 8 more)' }) prefix!: string;
  @Field(() => [ID], { nullable: true, description: 'The projects the key is limited to; null: every project its owner reaches' })
  projectIds!: string[] | null;
  @Field(() => TierEnum) tier!: string;
  @Timestamp({ nullable: true }) expiresAt!: string | null;
  @Timestamp({ nullable: true }) lastUsedAt!: string | null;
  @Timestamp() createdAt!: string;
}

/** A new key and its secret, shown this once. */
@ObjectType('CreatedKey')
export class CreatedKeyType {
  @Field(() => ApiKeyType) key!: ApiKeyType;
  @Field({ description: 'The key itself (`dq_…`): only its hash is stored' }) secret!: string;
}

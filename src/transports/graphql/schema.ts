import { createPubSub } from '@graphql-yoga/subscription';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchema, BuildSchemaOptions } from 'type-graphql';
import { authChecker } from './auth-checker';
import { streamlineResolvers } from './streamline';
import { AuditResolver } from './resolvers/audit.resolver';
import { AuthResolver } from './resolvers/auth.resolver';
import { ChatResolver } from './resolvers/chat.resolver';
import { DepartmentResolver } from './resolvers/department.resolver';
import { DocumentResolver } from './resolvers/document.resolver';
import { FeedbackResolver } from './resolvers/feedback.resolver';
import { GrantResolver } from './resolvers/grant.resolver';
import { GroupResolver } from './resolvers/group.resolver';
import { KeyResolver } from './resolvers/key.resolver';
import { ProjectResolver } from './resolvers/project.resolver';
import { ProviderResolver } from './resolvers/provider.resolver';
import { UserResolver } from './resolvers/user.resolver';

/** Every resolver class; the schema (and the committed schema.graphql) is built from these. */
export const RESOLVERS: BuildSchemaOptions['resolvers'] = [
  AuthResolver,
  KeyResolver,
  UserResolver,
  DepartmentResolver,
  GroupResolver,
  ProjectResolver,
  GrantResolver,
  AuditResolver,
  ProviderResolver,
  DocumentResolver,
  ChatResolver,
  FeedbackResolver,
];

let built: Promise<GraphQLSchema> | null = null;

/**
 * Builds the schema once per process (type-graphql's build context is global). Inputs are validated
 * in the resolvers with the same `parse()` REST uses, so type-graphql's own validation is off.
 * Plain fields then resolve synchronously (streamline.ts).
 */
export function buildGraphqlSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: RESOLVERS,
    authChecker,
    authMode: 'error',
    validate: false,
    // type-graphql insists on a pubSub once any @Subscription exists, even though ours use `subscribe` generators
    pubSub: createPubSub(),
    emitSchemaFile: false,
  }).then((schema) => {
    streamlineResolvers(schema);
    return schema;
  });
  return built;
}

/** The schema as SDL in a deterministic order (what `npm run schema` writes to schema.graphql). */
export async function printGraphqlSchema(): Promise<string> {
  return printSchema(lexicographicSortSchema(await buildGraphqlSchema())) + '\n';
}

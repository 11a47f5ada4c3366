import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { ApolloServerPlugin } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express, { Express, RequestHandler } from 'express';
import {
  execute, ExecutionArgs, GraphQLError, GraphQLSchema, NoSchemaIntrospectionCustomRule, parse, specifiedRules, subscribe, validate,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type http from 'node:http';
import { WebSocketServer } from 'ws';
import type { AppDeps } from '../../app';
import type { Config } from '../../config';
import { inRequestContext } from '../../db/request-context';
import { clientAddress, trustFunction } from '../../util/client-address';
import { GraphBatchService } from '../../services/graph-batch.service';
import { createContext, GraphqlContext } from './context';
import { formatErrors, formatGraphqlError } from './errors';
import { costLimitRule, depthLimitRule } from './limits';
import { buildGraphqlSchema } from './schema';

export const GRAPHQL_PATH = '/graphql';

/** Cost is checked once the variables are known, so `limit: $n` counts like a literal. */
function costPlugin(schema: GraphQLSchema, config: Config): ApolloServerPlugin<GraphqlContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, request }) {
          const errors = validate(schema, document, [costLimitRule(config.graphqlMaxCost, request.variables ?? {})]);
          if (errors.length) throw errors[0];
        },
      };
    },
  };
}

/** The validation a WebSocket operation gets: graphql's rules, our limits, and introspection per config. */
function wsRules(config: Config, variables: Record<string, unknown>) {
  return [
    ...specifiedRules,
    depthLimitRule(config.graphqlMaxDepth),
    costLimitRule(config.graphqlMaxCost, variables),
    ...(config.graphqlIntrospection ? [] : [NoSchemaIntrospectionCustomRule]),
  ];
}

/**
 * uploadDocuments carries files base64-encoded, so a GraphQL body may be as large as one maximal
 * file. Only an authenticated caller may send more than the usual JSON limit: anyone else is
 * refused before the body is read, as REST checks access before reading an upload.
 */
function bodyParser(config: Config, services: AppDeps['services'], json: RequestHandler): RequestHandler {
  const large = express.json({ limit: `${Math.ceil((config.maxUploadMb * 1024 * 4) / 3) + config.maxBodyKb}kb`, strict: true });
  return (req, res, next) => {
    const length = Number(req.headers['content-length'] ?? 0);
    if (!(length > config.maxBodyKb * 1024)) return json(req, res, next);
    services.auth.authenticateHeader(req.headers.authorization).then(() => large(req, res, next), next);
  };
}

interface WsExtra {
  request: http.IncomingMessage;
}

/**
 * GraphQL over the same services as REST: Apollo on POST (and the landing page on GET) at /graphql,
 * and graphql-ws on the same HTTP server and path for subscriptions (and any operation).
 */
export async function mountGraphql(app: Express, server: http.Server, deps: AppDeps, json: RequestHandler): Promise<{ close(): Promise<void> }> {
  const { config, services, logger, orm } = deps;
  const schema = await buildGraphqlSchema();
  const batch = new GraphBatchService(services.ctx);

  const apollo = new ApolloServer<GraphqlContext>({
    schema,
    introspection: config.graphqlIntrospection,
    includeStacktraceInErrorResponses: false,
    // our process owns SIGTERM (graceful shutdown in runtime.ts); Apollo's own handler would stop
    // the server behind our back and re-raise the signal, leaving shutdown hanging in production
    stopOnTerminationSignals: false,
    formatError: (formatted, error) => formatGraphqlError(formatted, error, logger),
    validationRules: [depthLimitRule(config.graphqlMaxDepth)],
    plugins: [
      costPlugin(schema, config),
      config.graphqlPlayground ? ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false }) : ApolloServerPluginLandingPageDisabled(),
    ],
  });
  await apollo.start();
  app.use(
    GRAPHQL_PATH,
    bodyParser(config, services, json),
    expressMiddleware(apollo, { context: async ({ req }) => createContext(services, batch, req.headers.authorization, req.ip ?? 'unknown') }),
  );

  const wss = new WebSocketServer({ server, path: GRAPHQL_PATH });
  const ws = useServer<{ authorization?: unknown }, Partial<WsExtra>>(
    {
      schema,
      // the token travels in connection_init; a connection without a valid one is refused (4403)
      onConnect: async (ctx) => {
        try {
          await services.auth.authenticateHeader(ctx.connectionParams?.authorization);
          return true;
        } catch {
          return false;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
        let document;
        try {
          document = parse(payload.query);
        } catch (e) {
          return [e as GraphQLError];
        }
        const variables = payload.variables ?? {};
        const errors = validate(schema, document, wsRules(config, variables));
        if (errors.length) return errors;
        // the user is re-read for every operation, as REST does per request: role changes apply at once
        // the same client-address rule (TRUST_PROXY) as REST's req.ip
        const ip = ctx.extra.request ? clientAddress(ctx.extra.request, trustFunction(config.trustProxy)) : 'unknown';
        const contextValue = await createContext(services, batch, ctx.connectionParams?.authorization, ip);
        const args: ExecutionArgs = { schema, document, variableValues: variables, operationName: payload.operationName, contextValue };
        return args;
      },
      // each operation gets an EntityManager fork of its own, like an HTTP request
      execute: (args) => inRequestContext(orm, () => execute(args)),
      subscribe: (args) => inRequestContext(orm, () => subscribe(args)),
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? { ...result, errors: formatErrors(result.errors, logger) } : undefined),
      onError: (_ctx, _id, _payload, errors) => formatErrors(errors, logger),
    },
    wss,
  );

  return {
    close: async () => {
      // dispose() waits for every socket's close handshake; do not let a silent client hold shutdown
      const force = setTimeout(() => {
        for (const c of wss.clients) c.terminate();
      }, 1000);
      try {
        await ws.dispose();
      } finally {
        clearTimeout(force);
      }
      await apollo.stop();
    },
  };
}

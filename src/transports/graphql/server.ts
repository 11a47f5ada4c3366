import { ApolloServer } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import type { ApolloServerPlugin } from '@apollo/server';
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import Negotiator from 'negotiator';
import { expressMiddleware } from '@as-integrations/express5';
import type { Express, RequestHandler } from 'express';
import {
  DocumentNode,
  execute,
  ExecutionArgs,
  GraphQLError,
  GraphQLSchema,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  subscribe,
  validate,
  ValidationRule,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type http from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../../logger';
import type { Services } from '../../services';
import type { Config } from '../../config';
import { clientAddress, trustFunction } from '../../util/client-address';
import { createContext, GraphqlContext } from './context';
import { formatErrors, formatGraphqlError, OWN_CODES } from './errors';
import { costLimitRule } from './cost';
import { depthLimitRule, documentShapeError, MAX_TOKENS } from './limits';
import { mountPlayground } from './playground';
import { jitGateway } from './jit';
import { buildGraphqlSchema } from './schema';
import { WsSessions } from './ws-sessions';
import { graphqlMetricsPlugin } from './metrics-plugin';

export const GRAPHQL_PATH = '/graphql';

/** Cost is checked once the variables are known, so `limit: $n` counts like a literal. */
function costPlugin(schema: GraphQLSchema, config: Config): ApolloServerPlugin<GraphqlContext> {
  return {
    // eslint-disable-next-line @typescript-eslint/require-await -- Apollo plugin hooks return promises; async keeps a throw a rejection
    async requestDidStart() {
      return {
        // eslint-disable-next-line @typescript-eslint/require-await -- Apollo plugin hooks return promises; async keeps a throw a rejection
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
 * GraphQL over HTTP: a request error (parse, validation, variable coercion, our limits: no `data`)
 * is 400 with `application/graphql-response+json` but 200 when the client takes plain
 * `application/json`, whose clients read errors from the body (the spec's legacy rule).
 */
function statusPlugin(): ApolloServerPlugin<GraphqlContext> {
  return {
    // eslint-disable-next-line @typescript-eslint/require-await -- Apollo plugin hooks return promises; async keeps a throw a rejection
    async requestDidStart({ request }) {
      let requestError = false;
      return {
        // eslint-disable-next-line @typescript-eslint/require-await -- Apollo plugin hooks return promises; async keeps a throw a rejection
        async didEncounterErrors({ errors }) {
          requestError = errors.every((e) => REQUEST_ERROR_CODES.has(String(e.extensions?.code)));
        },
        // eslint-disable-next-line @typescript-eslint/require-await -- Apollo plugin hooks return promises; async keeps a throw a rejection
        async willSendResponse({ response }) {
          if (!requestError || response.body.kind !== 'single' || 'data' in response.body.singleResult || response.http.status !== 400)
            return;
          if (prefersPlainJson(request.http?.headers.get('accept'))) response.http.status = 200;
        },
      };
    },
  };
}
/** Errors in the document or its variables (Apollo's codes, and our limits'); not malformed requests. */
const REQUEST_ERROR_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', ...OWN_CODES]);
const MEDIA_JSON = 'application/json';
const MEDIA_GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** True when the client takes plain application/json rather than application/graphql-response+json. */
function prefersPlainJson(accept: string | undefined): boolean {
  return !accept || new Negotiator({ headers: { accept } }).mediaType([MEDIA_JSON, MEDIA_GRAPHQL_RESPONSE]) === MEDIA_JSON;
}

/**
 * Alias, root-field and repeated-field caps, checked on the parsed document before graphql-js
 * validation runs: that validation is quadratic in repeated fields, so it must not see them. An
 * operation over a cap is swapped for a one-field stand-in, and the rule below reports the cap's
 * error on it: validation then costs nothing and the error flows as any validation error.
 */
const refusedDocuments = new WeakMap<DocumentNode, GraphQLError>();

function shapePlugin(config: Config): ApolloServerPlugin<GraphqlContext> {
  return {
    // eslint-disable-next-line @typescript-eslint/require-await -- Apollo plugin hooks return promises; async keeps a throw a rejection
    async requestDidStart() {
      return {
        // eslint-disable-next-line @typescript-eslint/require-await -- Apollo plugin hooks return promises; async keeps a throw a rejection
        async validationDidStart(requestContext) {
          const error = documentShapeError(requestContext.document, config.graphqlMaxAliases, config.graphqlMaxRootFields);
          if (!error) return;
          const standIn = parse('{ __typename }');
          refusedDocuments.set(standIn, error);
          (requestContext as { document: DocumentNode }).document = standIn;
        },
      };
    },
  };
}

const refusedShapeRule: ValidationRule = (context) => ({
  Document(node) {
    const error = refusedDocuments.get(node);
    if (error) context.reportError(error);
  },
});

interface WsExtra {
  request: http.IncomingMessage;
  socket: WebSocket;
}

/**
 * `ws` fixes maxPayload per server; its receiver keeps the bound per socket, so one socket's bound
 * is changed there (checked for on the installed `ws` 8; without it the server-wide bound holds).
 */
function setMaxPayload(socket: WebSocket, bytes: number): void {
  const receiver = (socket as unknown as { _receiver?: { _maxPayload?: number } })._receiver;
  if (receiver && typeof receiver._maxPayload === 'number') receiver._maxPayload = bytes;
}

/**
 * GraphQL over the same services as REST: Apollo on POST and GET (and our playground page on a browser's GET) at /graphql,
 * and graphql-ws on the same HTTP server and path for subscriptions (and any operation).
 */
/** What GraphQL is mounted with; `requestScope` gives each WebSocket operation a unit of work of its own. */
export interface GraphqlDeps {
  config: Config;
  services: Services;
  logger: Logger;
  requestScope: <T>(fn: () => T) => T;
}

export async function mountGraphql(
  app: Express,
  server: http.Server,
  deps: GraphqlDeps,
  json: RequestHandler,
): Promise<{ close(): Promise<void> }> {
  const { config, services, logger, requestScope } = deps;
  const schema = await buildGraphqlSchema();

  const apollo = new ApolloServer<GraphqlContext>({
    // repeated queries run compiled (jit.ts), plugged in through Apollo's gateway interface
    ...(config.graphqlJit ? { gateway: jitGateway(schema, config.graphqlJitAfter) } : { schema }),
    introspection: config.graphqlIntrospection,
    includeStacktraceInErrorResponses: false,
    // our process owns SIGTERM (graceful shutdown in runtime.ts); Apollo's own handler would stop
    // the server behind our back and re-raise the signal, leaving shutdown hanging in production
    stopOnTerminationSignals: false,
    formatError: (formatted, error) => formatGraphqlError(formatted, error, logger),
    parseOptions: { maxTokens: MAX_TOKENS },
    validationRules: [refusedShapeRule, depthLimitRule(config.graphqlMaxDepth)],
    // GET runs queries (never mutations: Apollo answers 405). Tokens travel in the Authorization
    // header, never in cookies, so a cross-site GET carries no credentials: no CSRF preflight needed
    csrfPrevention: false,
    // automatic persisted queries (sha256 hash → query), in a cache bounded by entry count and bytes
    persistedQueries:
      config.graphqlApqCacheSize > 0
        ? {
            cache: new InMemoryLRUCache<string>({
              max: config.graphqlApqCacheSize,
              maxSize: 64 * 1024 * 1024,
              sizeCalculation: (v) => v.length || 1,
            }),
          }
        : false,
    plugins: [
      shapePlugin(config),
      statusPlugin(),
      costPlugin(schema, config),
      graphqlMetricsPlugin(services.ctx.metrics),
      // our own playground (playground.ts) answers browsers; Apollo's CDN landing page never does
      ApolloServerPluginLandingPageDisabled(),
      // Apollo installs cache-control hints by default, and its `willResolveField` hook wraps every
      // field's resolver (a closure and a hook call per field per object); we send no cache hints.
      // Usage reporting and traces go to Apollo's cloud, which a self-hosted service never calls.
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
    ],
  });
  await apollo.start();
  if (config.graphqlPlayground) mountPlayground(app, GRAPHQL_PATH, logger);
  app.use(
    GRAPHQL_PATH,
    // the same body limit as REST (MAX_BODY_KB): uploads go to the REST multipart route
    json,
    expressMiddleware(apollo, { context: async ({ req }) => createContext(services, req.headers.authorization, req.ip ?? 'unknown') }),
  );

  // frames are bounded by MAX_BODY_KB, and by GRAPHQL_WS_INIT_MAX_KB until connection_init carried a
  // valid token: an anonymous peer cannot make us buffer or parse more than that
  const wss = new WebSocketServer({ server, path: GRAPHQL_PATH, maxPayload: config.maxBodyKb * 1024 });
  wss.on('connection', (socket) => setMaxPayload(socket, config.graphqlWsInitMaxKb * 1024));
  const sessions = new WsSessions(services, config.live.maxPerConnection);
  // the same client-address rule (TRUST_PROXY) as REST's req.ip
  const addressOf = (ctx: { extra: Partial<WsExtra> }) =>
    ctx.extra.request ? clientAddress(ctx.extra.request, trustFunction(config.trustProxy)) : 'unknown';
  const ws = useServer<{ authorization?: unknown }, Partial<WsExtra>>(
    {
      schema,
      // the token travels in connection_init; a connection without a valid one is refused (4403),
      // one with a valid one lives until the token expires (ws-sessions.ts: re-authentication)
      onConnect: async (ctx) => {
        if (!(await sessions.connect(ctx, addressOf(ctx)))) return false;
        if (ctx.extra.socket) setMaxPayload(ctx.extra.socket, config.maxBodyKb * 1024);
        return true;
      },
      onPing: (ctx, payload) => sessions.ping(ctx, payload, addressOf(ctx)),
      onClose: (ctx) => sessions.end(ctx),
      onSubscribe: async (ctx, _id, payload) => {
        const overCap = sessions.overCap(ctx);
        if (overCap) return [overCap];
        let document;
        try {
          document = parse(payload.query, { maxTokens: MAX_TOKENS });
        } catch (e) {
          return [e as GraphQLError];
        }
        const shape = documentShapeError(document, config.graphqlMaxAliases, config.graphqlMaxRootFields);
        if (shape) return [shape];
        const variables = payload.variables ?? {};
        const errors = validate(schema, document, wsRules(config, variables));
        if (errors.length) return errors;
        // the user is re-read for every operation, as REST does per request: role changes apply at once
        const contextValue = await createContext(services, sessions.authorization(ctx), addressOf(ctx));
        const args: ExecutionArgs = { schema, document, variableValues: variables, operationName: payload.operationName, contextValue };
        return args;
      },
      // each operation gets an EntityManager fork of its own, like an HTTP request
      execute: (args) => requestScope(() => execute(args)),
      subscribe: (args) => requestScope(() => subscribe(args)),
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: formatErrors(result.errors, logger) } : undefined,
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

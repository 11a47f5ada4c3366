import type { GatewayExecutor, GatewayInterface } from '@apollo/server-gateway-interface';
import { DocumentNode, execute, ExecutionResult, GraphQLError, GraphQLSchema, OperationTypeNode, printSchema, visit } from 'graphql';
import { CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';

/**
 * Compiling costs about 40 µs per selected field, on the event loop: a document selecting more
 * fields than this (the limits allow ~1,500, ~100 ms to compile) stays on graphql-js. The queries
 * clients repeat are far smaller (`projects → members → grants` selects 27).
 */
export const MAX_COMPILED_FIELDS = 150;

interface Entry {
  seen: number;
  /** Compiled per operation name ('' for the only operation); `null` when graphql-jit declined it. */
  compiled: Map<string, CompiledQuery | null>;
}

/**
 * Queries run on graphql-jit: a document is compiled once into a function that resolves its fields
 * without graphql-js's per-field bookkeeping (argument maps, resolve infos and path objects per
 * field), over the same schema and resolvers, with the same results and errors.
 *
 * - Only queries are compiled; mutations and anything else run on graphql-js (they are few and
 *   dominated by their writes).
 * - A document is compiled when it has been seen `compileAfter` times (GRAPHQL_JIT_AFTER, default 2),
 *   so a client sending ever-new documents only meets graphql-js and cannot make us compile on
 *   every request. Apollo keeps parsed documents
 *   in its document store, so a repeated query is the same DocumentNode; entries here are weak and
 *   go with it.
 * - A document graphql-jit cannot compile, or too large to compile quickly, runs on graphql-js.
 *
 * It plugs into Apollo Server through its documented gateway interface: the "gateway" serves our
 * own schema and executor. Validation, limits, error formatting and plugins are Apollo's as before.
 */
export interface JitGateway extends GatewayInterface {
  /** Documents compiled, those graphql-jit declined, and those too large to compile (all but the first run on graphql-js). */
  readonly stats: { compiled: number; declined: number; tooLarge: number };
}

export function jitGateway(schema: GraphQLSchema, compileAfter: number): JitGateway {
  const entries = new WeakMap<DocumentNode, Entry>();
  const stats = { compiled: 0, declined: 0, tooLarge: 0 };

  const compiledFor = (document: DocumentNode, operationName: string | null): CompiledQuery | null => {
    let entry = entries.get(document);
    if (!entry) entries.set(document, (entry = { seen: 0, compiled: new Map() }));
    if (++entry.seen < compileAfter) return null;
    const key = operationName ?? '';
    let compiled = entry.compiled.get(key);
    if (compiled === undefined) {
      if (fieldCount(document) > MAX_COMPILED_FIELDS) {
        compiled = null;
        stats.tooLarge++;
      } else {
        const result = compileQuery(schema, document, operationName ?? undefined);
        compiled = isCompiledQuery(result) ? result : null;
        stats[compiled ? 'compiled' : 'declined']++;
      }
      entry.compiled.set(key, compiled);
    }
    return compiled;
  };

  const executor: GatewayExecutor = async ({ document, operation, operationName, context, request }) => {
    const variables = request.variables ?? {};
    const compiled = operation.operation === OperationTypeNode.QUERY ? compiledFor(document, operationName) : null;
    const js = () => execute({ schema, document, operationName, contextValue: context, variableValues: variables });
    if (!compiled) return js();
    const result = (await compiled.query(undefined, context, variables)) as ExecutionResult;
    if (!result.errors) return result;
    // no data at all: the variables were refused before anything ran. graphql-js words that error
    // differently, and Apollo recognises its form (400 BAD_USER_INPUT): let graphql-js refuse them
    // (a query, so nothing is written twice; it fails at the same place)
    if (result.data === undefined) return js();
    return { ...result, errors: result.errors.map(asGraphqlJsError) };
  };

  return {
    stats,
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => undefined;
    },
    load: () => Promise.resolve({ executor }),
    stop: () => Promise.resolve(),
  };
}

/**
 * graphql-jit's errors inherit from graphql-js's but leave `extensions` undefined where graphql-js
 * always has an object (Apollo's error formatting reads `extensions.code`): they are rebuilt as
 * graphql-js errors with the same message, locations, path and original error.
 */
function asGraphqlJsError(e: GraphQLError): GraphQLError {
  if (e.extensions) return e;
  const out = new GraphQLError(e.message, { path: e.path, originalError: e.originalError ?? undefined });
  if (e.locations) (out as { locations?: GraphQLError['locations'] }).locations = e.locations;
  return out;
}

/** Field selections in the document, fragments included (an upper bound of what compiling walks). */
function fieldCount(document: DocumentNode): number {
  let n = 0;
  visit(document, {
    Field() {
      n++;
    },
  });
  return n;
}

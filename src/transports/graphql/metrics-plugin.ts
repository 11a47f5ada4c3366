import type { ApolloServerPlugin } from '@apollo/server';
import type { Metrics } from '../../observability/metrics';

/**
 * Apollo plugin: each HTTP GraphQL operation's duration by operation name (capped; `anonymous`
 * without a name, `unknown` when the document never resolved to an operation) and type, and each
 * error in the response by its `extensions.code` as the client receives it.
 */
export function graphqlMetricsPlugin(metrics: Metrics): ApolloServerPlugin {
  return {
    // Apollo's hooks return promises; these record synchronously
    requestDidStart() {
      const start = process.hrtime.bigint();
      let name: string | null | undefined;
      let type = 'unknown';
      let resolved = false;
      return Promise.resolve({
        didResolveOperation(ctx) {
          resolved = true;
          name = ctx.operationName;
          type = ctx.operation?.operation ?? 'unknown';
          return Promise.resolve();
        },
        willSendResponse(ctx) {
          metrics.graphqlDuration.observe(
            { operation: metrics.graphqlOperation(name, resolved), type },
            Number(process.hrtime.bigint() - start) / 1e9,
          );
          const body = ctx.response.body;
          const errors = body.kind === 'single' ? body.singleResult.errors : undefined;
          for (const e of errors ?? []) {
            const code = e.extensions?.code;
            metrics.graphqlErrors.inc({ code: typeof code === 'string' ? metrics.errorCodes.of(code) : 'none' });
          }
          return Promise.resolve();
        },
      });
    },
  };
}

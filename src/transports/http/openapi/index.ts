// The OpenAPI 3.1 document of the REST API, built from the per-area operation tables.
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { Schema } from '../../../presenters/schema-builders';
import { RESPONSE_SCHEMAS } from '../../../presenters/schemas';
import { MAX_FILES_PER_UPLOAD } from '../../../services/documents.service';
import { ref, type Operation } from './operation';
import { AUTH_AND_USERS, KEYS } from './paths-auth-users';
import { ORGANISATION } from './paths-org';
import { PROJECTS_GRANTS_AUDIT } from './paths-projects';
import { PROVIDERS } from './paths-providers';
import { DOCUMENTS_AND_CHAT } from './paths-documents-chat';

// class-transformer's metadata (for @Type() nested inputs) lives in this module; it has no public export
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: unknown };

/** Every REST operation; a test walks the Express routers and fails when this list and they disagree. */
export const OPERATIONS: Operation[] = [
  ...AUTH_AND_USERS,
  ...KEYS,
  ...ORGANISATION,
  ...PROJECTS_GRANTS_AUDIT,
  ...PROVIDERS,
  ...DOCUMENTS_AND_CHAT,
];

const ERROR_TEXT: Record<number, string> = {
  400: 'validation_failed, with `details: [{field, message}]`',
  401: 'unauthorized: no, an expired or an invalid bearer token (login: `Invalid email or password`)',
  403: "forbidden (or the specific code): the caller's role or tier does not allow this",
  404: 'not_found',
  409: 'a conflict, named by its code (e.g. email_exists, ceo_exists, department_not_empty)',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited (with Retry-After)',
  500: 'internal_error (never a stack trace)',
  503: 'database_unavailable (login: not_bootstrapped)',
};

/** The error statuses an operation can answer, from what it takes and who may call it. */
function errorStatuses(op: Operation): number[] {
  const s = new Set<number>([500, 503]);
  // a key past its per-minute limit is refused on any authenticated operation (429 with Retry-After)
  if (op.auth !== false) s.add(401).add(403).add(429);
  // a malformed path parameter (e.g. not a uuid) is a 400 on some routes, a 404 on others
  if (op.body || op.query || op.path.includes(':')) s.add(400);
  if (op.body) s.add(413).add(415);
  if (op.path.includes(':') || op.auth !== false) s.add(404);
  // the public auth operations answer no 403 and 404 (a token either works or it does not), unless
  // they say so themselves (single sign-on's start is 404 where it is not configured)
  if (op.auth === false) s.delete(404);
  for (const e of op.errors ?? []) s.add(e);
  return [...s].sort();
}

const EVENT_SCHEMAS: Array<[string, string, string]> = [
  ['meta', 'ChatMetaEvent', 'first: the conversation, the assistant message id and the model'],
  ['sources', 'ChatSourcesEvent', 'the retrieved chunks (or web results) the answer may cite as [n]'],
  ['text', 'ChatTextEvent', 'zero or more; the deltas concatenated are the answer'],
  ['done', 'ChatDoneEvent', 'last on success'],
  ['error', 'ChatErrorEvent', 'last on failure'],
];

function streamResponse(): Schema {
  return {
    description: [
      'A `text/event-stream`. Each event is `event: <name>` and `data: <JSON>`; `: ping` comments every 15 s keep it open.',
      'Order: `meta`, `sources`, `text`…, then `done` or `error`; nothing follows either.',
      ...EVENT_SCHEMAS.map(([name, schema, what]) => `- \`${name}\` (${schema}): ${what}`),
    ].join('\n'),
    content: {
      'text/event-stream': {
        schema: {
          type: 'string',
          description: "The SSE frames; `x-events` gives the schema of each event's `data`",
          'x-events': Object.fromEntries(EVENT_SCHEMAS.map(([name, schema]) => [name, ref(schema)])),
        },
      },
    },
  };
}

const toOpenApiPath = (p: string) => `/api${p.replace(/:(\w+)/g, '{$1}')}`;

/** Query parameters from the input class's generated schema (the same class parseQuery validates). */
function queryParameters(schema: Schema): Schema[] {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => ({ name, in: 'query', required: required.has(name), schema: s }));
}

/** Request schemas generated from the class-validator input classes; unknown fields are refused, as parse() does. */
function inputSchemas(): Record<string, Schema> {
  const generated = validationMetadatasToSchemas({
    refPointerPrefix: '#/components/schemas/',
    classTransformerMetadataStorage: defaultMetadataStorage as never,
  }) as Record<string, Schema>;
  return Object.fromEntries(Object.entries(generated).map(([name, s]) => [name, { ...s, additionalProperties: false }]));
}

let cached: Schema | null = null;

/** The OpenAPI 3.1 document of the REST API (built once per process). */
export function openApiDocument(): Schema {
  if (cached) return cached;
  const inputs = inputSchemas();
  const paths: Record<string, Record<string, Schema>> = {};
  for (const op of OPERATIONS) {
    const path = toOpenApiPath(op.path);
    const pathParams = [...op.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const responses: Record<string, Schema> = {};
    for (const [status, schema] of Object.entries(op.ok)) {
      if (op.stream) responses[status] = streamResponse();
      else
        responses[status] =
          schema === null ? { description: 'No content' } : { description: 'Success', content: { 'application/json': { schema } } };
    }
    for (const status of errorStatuses(op)) {
      responses[String(status)] = { description: ERROR_TEXT[status], content: { 'application/json': { schema: ref('Error') } } };
    }
    const operation: Schema = {
      operationId: `${op.method}${op.path.replace(/[:/-](\w)/g, (_m, c: string) => c.toUpperCase()).replace(/[^\w]/g, '')}`,
      tags: [op.tag],
      summary: op.summary,
      parameters: [...pathParams, ...(op.query ? queryParameters(inputs[op.query.name]) : [])],
      responses,
      ...(op.auth === false ? { security: [] } : {}),
    };
    if (op.body === 'multipart') {
      operation.requestBody = {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: {
                file: {
                  type: 'array',
                  maxItems: MAX_FILES_PER_UPLOAD,
                  items: { type: 'string', contentMediaType: 'application/octet-stream' },
                  description: 'PDF, DOCX, Markdown, plain text or HTML; repeat the field for several files',
                },
              },
              required: ['file'],
            },
          },
        },
      };
    } else if (op.body) {
      operation.requestBody = { required: !op.bodyOptional, content: { 'application/json': { schema: ref(op.body.name) } } };
    }
    (paths[path] ??= {})[op.method] = operation;
  }
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'DocQA API',
      version: '1.0.0',
      description:
        'REST and Server-Sent Events API of DocQA. Errors are `{"error": code, "message"?, "details"?}`. GraphQL is at `/graphql` (not described here).',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [...new Set(OPERATIONS.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The accessToken from POST /api/auth/login' },
      },
      schemas: { ...inputs, ...RESPONSE_SCHEMAS },
    },
  };
  return cached;
}

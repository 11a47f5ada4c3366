import addFormats from 'ajv-formats';
import Ajv2020 from 'ajv/dist/2020';
import OpenAPIBackend from 'openapi-backend';
import type { Document } from 'openapi-backend';
import { openApiDocument } from '../../src/transports/http/openapi';

/**
 * Checks REST responses against the OpenAPI document with openapi-backend (ajv): the operation
 * is found from the method and path, the status must be one the document lists for it, and the
 * body must match that status's schema. Built once per test file; validators compile lazily.
 */
let backend: Promise<OpenAPIBackend> | null = null;

function load(): Promise<OpenAPIBackend> {
  return (backend ??= (async () => {
    const api = new OpenAPIBackend({
      definition: structuredClone(openApiDocument()) as unknown as Document,
      quick: true,
      validate: true,
      ajvOpts: { strict: false },
      // uuid, date-time and the other formats the document uses are checked, not ignored
      customizeAjv: (ajv) => {
        addFormats(ajv);
        return ajv;
      },
    });
    await api.init();
    return api;
  })());
}

/** Responses outside the document: other routes, and paths that match no route (their 404 is the router's). */
const OUTSIDE = /^\/api\/(openapi\.json|docs)(\/|$)/;

/** Throws when a response to `method path` contradicts the document. */
export async function checkResponse(method: string, url: string, status: number, contentType: string | null, body: unknown): Promise<void> {
  const path = url.split('?')[0];
  if (!path.startsWith('/api/') || OUTSIDE.test(path)) return;
  const api = await load();
  const op = api.matchOperation({ method: method.toLowerCase(), path, headers: {}, query: {} });
  if (!op) return; // no such route: the document has nothing to say about it
  const declared = (op.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  const response = declared[String(status)];
  if (!response)
    throw new Error(
      `OpenAPI: ${method} ${op.path} answered ${status}, which the document does not list (it lists ${Object.keys(declared).join(', ')})`,
    );
  if (!response.content) return;
  if (response.content['text/event-stream'] && /^text\/event-stream/.test(contentType ?? '')) return;
  if (!/^application\/json/.test(contentType ?? ''))
    throw new Error(`OpenAPI: ${method} ${op.path} ${status} answered ${contentType}, the document says application/json`);
  const result = api.validateResponse(body, op, status);
  if (result.errors?.length) {
    throw new Error(
      `OpenAPI: ${method} ${op.path} ${status} body does not match the document: ${JSON.stringify(result.errors.slice(0, 5))}\nbody: ${JSON.stringify(body).slice(0, 1500)}`,
    );
  }
}

let shapes: Ajv2020 | null = null;

/**
 * Asserts `value` is the wire shape `component` (a schema of the OpenAPI document, closed: no field
 * more or less). Tests name the shape instead of keeping their own key lists.
 */
export function expectShape(value: unknown, component: string): void {
  if (!shapes) {
    shapes = new Ajv2020({ strict: false, allErrors: true });
    addFormats(shapes);
    shapes.addSchema({ ...structuredClone(openApiDocument()), $id: 'docqa' });
  }
  const validate = shapes.getSchema(`docqa#/components/schemas/${component}`);
  if (!validate) throw new Error(`no component schema ${component}`);
  if (!validate(value)) {
    throw new Error(`not a ${component}: ${JSON.stringify(validate.errors?.slice(0, 5))}\nvalue: ${JSON.stringify(value).slice(0, 1000)}`);
  }
}

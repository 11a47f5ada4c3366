import SwaggerParser from '@apidevtools/swagger-parser';
import { OPERATIONS, openApiDocument } from '../../src/transports/http/openapi';
import { listRoutes } from '../support/routes';

const toOpenApi = (path: string) => path.replace(/:(\w+)/g, '{$1}');

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    const doc = structuredClone(openApiDocument());
    const api = await SwaggerParser.validate(doc as never);
    expect((api as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('names every route of the Express routers, and no route they do not have', () => {
    const doc = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
    const inRouters = listRoutes()
      .map((r) => `${r.method} ${toOpenApi(r.path)}`)
      .sort();
    const inDocument = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(inDocument).toEqual(inRouters);
  });

  it('declares the public operations without security and every other one with the bearer scheme', () => {
    const doc = openApiDocument() as { security: unknown; paths: Record<string, Record<string, { security?: unknown[] }>> };
    expect(doc.security).toEqual([{ bearer: [] }]);
    const routes = listRoutes();
    for (const r of routes) {
      const op = doc.paths[toOpenApi(r.path)][r.method.toLowerCase()];
      if (r.auth === 'public') expect(op.security).toEqual([]);
      else expect(op.security).toBeUndefined();
    }
  });

  it('takes request schemas from the input classes the routes validate with', () => {
    const doc = openApiDocument() as {
      components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[]; additionalProperties: boolean }> };
    };
    const login = doc.components.schemas.LoginInput;
    expect(Object.keys(login.properties).sort()).toEqual(['email', 'password']);
    expect(login.required?.sort()).toEqual(['email', 'password']);
    expect(login.additionalProperties).toBe(false);
    expect(doc.components.schemas.CreateUserInput.properties.password).toEqual(expect.objectContaining({ minLength: 8 }));
    expect(OPERATIONS.filter((o) => o.body && o.body !== 'multipart').length).toBeGreaterThan(15);
  });

  it('describes the chat stream as text/event-stream with a schema for each event', () => {
    const doc = openApiDocument() as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> }>
      >;
    };
    const stream = doc.paths['/api/chat/projects/{projectId}'].post.responses['200'].content!['text/event-stream'];
    expect(Object.keys(stream.schema['x-events'] as object)).toEqual(['meta', 'sources', 'text', 'done', 'error']);
  });
});

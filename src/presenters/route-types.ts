import { typeOf, type RefName } from './dto-source';
import type { Schema } from './schema-builders';
import { RESPONSE_SCHEMAS } from './schemas';

/** An input class's schema keeps the class's name; a wire shape the server answers is `<name>Dto`. */
const refName: RefName = (name) => (name in RESPONSE_SCHEMAS ? `${name}Dto` : name);

const comment = (text: string, pad: string): string => `${pad}/** ${text.replace(/\*\//g, '* /')} */\n`;

/** The schemas an operation's JSON body names, and the ones they name in turn. */
function referenced(schema: Schema, all: Record<string, Schema>, seen: Set<string>): void {
  for (const m of JSON.stringify(schema).matchAll(/"#\/components\/schemas\/(\w+)"/g)) {
    if (seen.has(m[1]) || m[1] in RESPONSE_SCHEMAS) continue;
    seen.add(m[1]);
    referenced(all[m[1]], all, seen);
  }
}

/** An input schema whose fields @IsOptional() lets be null says so (its generated JSON Schema does not). */
function withNull(s: Schema, acceptsNull: ReadonlySet<string>): Schema {
  const props = s.properties as Record<string, Schema> | undefined;
  if (!props) return s;
  const nullable = (field: string, p: Schema): Schema => (acceptsNull.has(field) ? { oneOf: [p, { type: 'null' }] } : p);
  return { ...s, properties: Object.fromEntries(Object.entries(props).map(([k, p]) => [k, nullable(k, p)])) };
}

/** The JSON body an operation takes: its input type, FormData for an upload, nothing when it takes none. */
function bodyOf(op: Schema): string | null {
  const body = op.requestBody as { required?: boolean; content: Record<string, { schema: Schema }> } | undefined;
  if (!body) return null;
  const json = body.content['application/json'];
  const type = json ? typeOf(json.schema, 2, refName) : 'FormData';
  return body.required ? type : `${type} | undefined`;
}

/**
 * What a success answers: the union of its JSON bodies (`void` for 204), or `never` when it is no
 * JSON at all (an event stream, a file, a redirect), which api.fetch reads instead.
 */
function responseOf(op: Schema): string {
  const answers = Object.entries(op.responses as Record<string, Schema>).filter(([status]) => /^2/.test(status));
  const types = answers.map(([status, r]) => {
    const json = (r.content as Record<string, { schema: Schema }> | undefined)?.['application/json'];
    if (json) return typeOf(json.schema, 2, refName);
    return status === '204' ? 'void' : null;
  });
  return types.length === 0 || types.includes(null) ? 'never' : [...new Set(types)].join(' | ');
}

/**
 * The request side of the browser's wire file, from the OpenAPI document, whose request schemas
 * are the class-validator input classes the server validates with: one type per input a JSON body
 * uses, and `Routes`, which maps every operation (`'PATCH /projects/:id'`, Express syntax, under
 * /api) to its body and its answer, so web/lib/api.ts refuses at compile time a call the server
 * would refuse. `acceptsNull(input)` names the fields of an input class that may be null.
 */
export function requestDeclarations(doc: Schema, acceptsNull: (input: string) => ReadonlySet<string>): string {
  const schemas = (doc.components as { schemas: Record<string, Schema> }).schemas;
  const operations = Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      key: `${method.toUpperCase()} ${path.replace(/^\/api/, '').replace(/\{(\w+)\}/g, ':$1')}`,
      op,
    })),
  );
  const used = new Set<string>();
  for (const { op } of operations) if (op.requestBody) referenced(op.requestBody as Schema, schemas, used);
  const inputs = Object.keys(schemas)
    .filter((name) => used.has(name))
    .map((name) => `export interface ${name} ${typeOf(withNull(schemas[name], acceptsNull(name)), 0, refName)}`);
  const routes = operations.map(({ key, op }) => {
    const body = bodyOf(op);
    const fields = [...(body ? [`    body: ${body};`] : []), `    response: ${responseOf(op)};`];
    return `${comment(String(op.summary), '  ')}  '${key}': {\n${fields.join('\n')}\n  };`;
  });
  return [
    '// The request bodies: the input classes the server validates with (`null` where @IsOptional() allows it).',
    '',
    inputs.join('\n\n'),
    '',
    '/**',
    ' * Every REST operation under /api: its JSON body (none when it takes none; FormData for an upload)',
    ' * and what a success answers (`never`: not JSON, such as an event stream or a file: read it with api.fetch).',
    ' */',
    `export interface Routes {\n${routes.join('\n')}\n}`,
  ].join('\n');
}

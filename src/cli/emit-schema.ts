import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { getMetadataStorage, IS_OPTIONAL, ValidationTypes } from 'class-validator';
import { ROOT_DIR } from '../db/orm';
import { dtoFiles } from '../presenters/dto-source';
import { requestDeclarations } from '../presenters/route-types';
import { RESPONSE_SCHEMAS } from '../presenters/schemas';
import { printGraphqlSchema } from '../transports/graphql/schema';
import { OPERATIONS, openApiDocument } from '../transports/http/openapi';

/**
 * The fields of each body's input class (and of the classes nested in it) that @IsOptional() lets
 * be null, by class name: `departmentId: null` takes a user out of their department, a settings key
 * set to null is removed. The JSON Schemas generated from the classes leave null out, and the
 * browser's types must allow what the server accepts.
 */
function nullableInputFields(): Map<string, Set<string>> {
  const byClass = new Map<string, Set<string>>();
  const visit = (input: new () => object): void => {
    if (byClass.has(input.name)) return;
    const fields = new Set<string>();
    byClass.set(input.name, fields);
    for (const m of getMetadataStorage().getTargetValidationMetadatas(input, '', true, false)) {
      if (m.name === IS_OPTIONAL) fields.add(m.propertyName);
      const nested: unknown = Reflect.getMetadata('design:type', input.prototype as object, m.propertyName);
      if (m.type === ValidationTypes.NESTED_VALIDATION && typeof nested === 'function' && nested !== Object)
        visit(nested as new () => object);
    }
  };
  for (const { body } of OPERATIONS) if (typeof body === 'function') visit(body);
  return byClass;
}

/** The wire shapes' types, and in the browser's file the request bodies and routes of the OpenAPI document. */
function wireFiles(): Record<string, string> {
  const nullable = nullableInputFields();
  const acceptsNull = (input: string): ReadonlySet<string> => {
    const fields = nullable.get(input);
    if (!fields) throw new Error(`input ${input} is not a body's class nor nested in one: which of its fields take null is unknown`);
    return fields;
  };
  return dtoFiles(RESPONSE_SCHEMAS, requestDeclarations(openApiDocument(), acceptsNull));
}

/** The files `npm run schema` writes, from the code that declares them. */
export const EMITTED: Record<string, () => Promise<string>> = {
  /** The GraphQL schema, from the resolvers. */
  'schema.graphql': () => printGraphqlSchema(),
  /** The wire shapes' TypeScript types, from their JSON Schemas (one file per area), and the browser's request types. */
  ...Object.fromEntries(Object.entries(wireFiles()).map(([file, text]) => [file, () => Promise.resolve(text)])),
};

async function main(): Promise<void> {
  for (const [rel, emit] of Object.entries(EMITTED)) {
    mkdirSync(path.dirname(path.join(ROOT_DIR, rel)), { recursive: true });
    writeFileSync(path.join(ROOT_DIR, rel), await emit());
    process.stdout.write(`wrote ${rel}\n`);
  }
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write((e instanceof Error ? e.message : String(e)) + '\n');
    process.exit(1);
  });
}

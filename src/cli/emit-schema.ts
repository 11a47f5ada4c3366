import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { getMetadataStorage, IS_OPTIONAL } from 'class-validator';
import { ROOT_DIR } from '../db/orm';
import { dtoFiles } from '../presenters/dto-source';
import { requestDeclarations } from '../presenters/route-types';
import { RESPONSE_SCHEMAS } from '../presenters/schemas';
import { printGraphqlSchema } from '../transports/graphql/schema';
import { OPERATIONS, openApiDocument } from '../transports/http/openapi';

/**
 * The input fields that @IsOptional() lets be null (`Class.field`), such as `departmentId: null`,
 * which takes a user out of their department: the JSON Schemas generated from the classes leave
 * null out, and the browser's types must allow what the server accepts.
 */
function nullableInputFields(): Set<string> {
  const fields = new Set<string>();
  for (const { body } of OPERATIONS) {
    if (typeof body !== 'function') continue;
    for (const m of getMetadataStorage().getTargetValidationMetadatas(body, '', true, false))
      if (m.name === IS_OPTIONAL) fields.add(`${body.name}.${m.propertyName}`);
  }
  return fields;
}

/** The wire shapes' types, and in the browser's file the request bodies and routes of the OpenAPI document. */
const wireFiles = () => dtoFiles(RESPONSE_SCHEMAS, requestDeclarations(openApiDocument(), nullableInputFields()));

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

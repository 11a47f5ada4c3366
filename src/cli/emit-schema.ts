import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../db/orm';
import { dtoFiles } from '../presenters/dto-source';
import { printGraphqlSchema } from '../transports/graphql/schema';

/** The files `npm run schema` writes, from the code that declares them. */
export const EMITTED: Record<string, () => Promise<string>> = {
  /** The GraphQL schema, from the resolvers. */
  'schema.graphql': () => printGraphqlSchema(),
  /** The wire shapes' TypeScript types, from their JSON Schemas (one file per area). */
  ...Object.fromEntries(Object.entries(dtoFiles()).map(([file, text]) => [file, () => Promise.resolve(text)])),
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

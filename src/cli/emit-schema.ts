import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT_DIR } from '../db/orm';
import { printGraphqlSchema } from '../transports/graphql/schema';

/** Writes schema.graphql at the repository root from the resolvers (`npm run schema`). */
async function main(): Promise<void> {
  const file = path.join(ROOT_DIR, 'schema.graphql');
  writeFileSync(file, await printGraphqlSchema());
  process.stdout.write(`wrote ${path.relative(process.cwd(), file) || file}\n`);
}

main().catch((e) => {
  process.stderr.write((e instanceof Error ? e.message : String(e)) + '\n');
  process.exit(1);
});

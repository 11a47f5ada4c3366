import { readFileSync } from 'node:fs';
import path from 'node:path';
import { printGraphqlSchema } from '../../src/transports/graphql/schema';

describe('schema.graphql', () => {
  it('is the schema the resolvers build (run `npm run schema` after changing them)', async () => {
    const committed = readFileSync(path.join(__dirname, '../../schema.graphql'), 'utf8');
    expect(await printGraphqlSchema()).toBe(committed);
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EMITTED } from '../../src/cli/emit-schema';

describe('emitted files (run `npm run schema` after changing the resolvers or presenters/schemas.ts)', () => {
  it.each(Object.keys(EMITTED))('%s is what the code declares', async (rel) => {
    const committed = readFileSync(path.join(__dirname, '../..', rel), 'utf8');
    expect(await EMITTED[rel]()).toBe(committed);
  });
});

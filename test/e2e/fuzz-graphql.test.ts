import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  buildSchema,
  GraphQLField,
  GraphQLInputType,
  GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  isLeafType,
} from 'graphql';
import { factories } from '../support/factories';
import { gql } from '../support/graphql';
import { projectFixtures } from '../support/project-fixtures';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(300_000);

// Bounded so the suite stays fast; raise FUZZ_RUNS locally for a deeper search.
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);

const schema: GraphQLSchema = buildSchema(readFileSync(path.resolve(__dirname, '../../schema.graphql'), 'utf8'));

let t: TestApp;
let tokens: Record<string, string | undefined>;
let ids: string[];

const weirdString = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '../../etc/passwd',
    '💥',
    'a'.repeat(5000),
    '00000000-0000-0000-0000-000000000000',
    "' or 1=1 --",
    'draft',
  ),
  fc.uuid(),
);

/** A value for an input type: mostly well-typed (so requests reach the resolvers), sometimes wrong. */
function valueFor(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return valueFor(type.ofType, depth);
  if (isListType(type)) return fc.array(valueFor(type.ofType, depth + 1), { maxLength: 3 });
  if (isEnumType(type)) return fc.oneof(fc.constantFrom(...type.getValues().map((v) => v.name)), weirdString);
  if (isInputObjectType(type)) {
    if (depth > 2) return fc.constant({});
    const fields = Object.values(type.getFields());
    const rec: Record<string, fc.Arbitrary<unknown>> = {};
    for (const f of fields) rec[f.name] = valueFor(f.type, depth + 1);
    return fc.record(rec, { requiredKeys: fields.filter((f) => isNonNullType(f.type)).map((f) => f.name) });
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'Int':
        return fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31 - 1));
      case 'Float':
        return fc.double({ noNaN: true });
      case 'Boolean':
        return fc.boolean();
      case 'ID':
        return fc.oneof(fc.constantFrom(...ids), weirdString);
      default:
        return fc.oneof(weirdString, fc.constantFrom(...ids), fc.jsonValue({ maxDepth: 1 }));
    }
  }
  return fc.jsonValue({ maxDepth: 1 });
}

function operation(kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>): string {
  const vars = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
  return `${kind}${vars ? ` (${vars})` : ''} { ${field.name}${args ? `(${args})` : ''}${selection} }`;
}

/** A fingerprint of every application table, to prove rejected requests change nothing. */
async function fingerprint(): Promise<string> {
  return projectFixtures(t.orm).fingerprint();
}

beforeAll(async () => {
  t = await createTestApp();
  const f = factories(t.orm, t.services);
  const root = await f.superadmin();
  const dept = await f.makeDepartment();
  const admin = await f.makeUser({ platformRole: 'admin' });
  const member = await f.makeUser({ department: dept });
  const group = await f.makeGroup({ department: dept, members: [member] });
  const project = await f.makeProject({ owner: admin });
  const grant = await f.makeGrant({ project, user: member, tier: 'edit' });
  tokens = { anonymous: undefined, member: member.token, admin: admin.token, superadmin: root.token };
  ids = [root.id, dept.id, admin.id, member.id, group.id, project.id, grant.id];
});
afterAll(async () => t?.close());

it('no generated GraphQL query or mutation gets a 5xx or an internal_error; rejected ones change nothing', async () => {
  const ops = [
    ...Object.values(schema.getQueryType()!.getFields()).map((f) => ({ kind: 'query' as const, field: f })),
    ...Object.values(schema.getMutationType()!.getFields()).map((f) => ({ kind: 'mutation' as const, field: f })),
  ];
  expect(ops.length).toBeGreaterThan(20);
  const opArb = fc
    .constantFrom(...ops)
    .chain((op) =>
      fc.record(Object.fromEntries(op.field.args.map((a) => [a.name, valueFor(a.type)]))).map((variables) => ({ op, variables })),
    );
  const seen = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(opArb, fc.constantFrom(...Object.keys(tokens)), async ({ op, variables }, who) => {
      const before = await fingerprint();
      const res = await gql(t.baseUrl, operation(op.kind, op.field), { token: tokens[who], variables: variables });
      const where = `${op.kind} ${op.field.name} as ${who}`;
      if (res.status >= 500) throw new Error(`${where} → ${res.status} ${res.text.slice(0, 300)}`);
      const errorCodes = (res.errors ?? []).map((e) => e.extensions?.code);
      if (errorCodes.includes('internal_error')) throw new Error(`${where} → internal_error ${res.text.slice(0, 300)}`);
      expect(res.text).not.toMatch(/\bat .*\.(js|ts):\d+/);
      for (const c of errorCodes) expect(typeof c).toBe('string');
      const outcome = res.status >= 400 ? `http ${res.status}` : (errorCodes[0] ?? 'data');
      seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
      const rejected = res.status >= 400 || (res.errors?.length && (res.data == null || res.data[op.field.name] == null));
      if (rejected && op.kind === 'mutation') {
        const after = await fingerprint();
        if (after !== before) throw new Error(`${where} was rejected (${errorCodes.join(',')}) but changed the database`);
      }
    }),
    { numRuns: RUNS },
  );
  // the generator must reach the resolvers, not only be refused by variable coercion
  const reached = [...seen].filter(([k]) => !k.startsWith('http')).reduce((n, [, v]) => n + v, 0);
  expect(reached).toBeGreaterThan(RUNS / 4);
  expect(seen.get('data') ?? 0).toBeGreaterThan(0);
  console.log(`graphql fuzz outcomes: ${JSON.stringify(Object.fromEntries(seen))}`);
});

import { execute, GraphQLSchema, Kind, OperationDefinitionNode, parse } from 'graphql';
import { inRequestContext } from '../../src/db/request-context';
import { createLogger } from '../../src/logger';
import { createContext } from '../../src/transports/graphql/context';
import { formatErrors } from '../../src/transports/graphql/errors';
import { jitGateway, MAX_COMPILED_FIELDS } from '../../src/transports/graphql/jit';
import { buildGraphqlSchema } from '../../src/transports/graphql/schema';
import { factories } from '../support/factories';
import { codes, gql } from '../support/graphql';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * graphql-jit (jit.ts) answers exactly what graphql-js answers: the same data and the same errors
 * (message, code, path, locations; their order is not part of GraphQL's contract and may differ)
 * for the same caller, operation and variables, including fields
 * the caller may not see, missing objects, variable coercion failures, fragments and directives.
 */
let t: TestApp;
let f: ReturnType<typeof factories>;
let schema: GraphQLSchema;
const logger = createLogger('silent');

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
  schema = await buildGraphqlSchema();
});
afterAll(async () => t?.close());

type Run = (query: string, token: string, variables?: Record<string, unknown>) => Promise<unknown>;

/** One operation through the gateway's executor (compiled from the first sight) or through graphql-js. */
function runner(mode: 'jit' | 'graphql-js'): Run & { stats: () => { compiled: number; declined: number; tooLarge: number } } {
  let gateway: ReturnType<typeof jitGateway> | null = null;
  let executor: ReturnType<ReturnType<typeof jitGateway>['load']> | null = null;
  const run: Run = async (query, token, variables = {}) => {
    gateway ??= jitGateway(schema, 1);
    executor ??= gateway.load({ apollo: {} });
    const document = parse(query);
    const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
    const result = await inRequestContext(t.orm, async () => {
      const context = await createContext(t.services, `Bearer ${token}`, '127.0.0.1');
      if (mode === 'graphql-js') return execute({ schema, document, contextValue: context, variableValues: variables });
      const { executor: run } = await executor!;
      return run!({ document, operation, operationName: null, context, request: { variables } } as never);
    });
    // the order of `errors` is not part of GraphQL's contract (graphql-js lists them as they happen,
    // which depends on what resolved synchronously): compared as a set, in path order
    const errors = result.errors ? formatErrors(result.errors, logger) : undefined;
    const key = (e: { path?: readonly unknown[]; message: string }) => `${JSON.stringify(e.path ?? [])} ${e.message}`;
    return { data: result.data, errors: errors?.sort((a, b) => key(a).localeCompare(key(b))) };
  };
  return Object.assign(run, { stats: () => ({ ...(gateway?.stats ?? { compiled: 0, declined: 0, tooLarge: 0 }) }) });
}

describe('graphql: compiled queries answer what graphql-js answers', () => {
  const jit = runner('jit');
  const js = runner('graphql-js');

  it('the same data and errors for a set of callers and operations', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const member = await f.makeUser();
    const outsider = await f.makeUser();
    const dept = await f.makeDepartment();
    const group = await f.makeGroup({ department: dept });
    const project = await f.makeProject({ owner: admin, settings: { model: 'm', temperature: 0.2 } });
    await f.makeGrant({ project, user: member, tier: 'use', grantedBy: admin });
    await f.makeGrant({ project, group, tier: 'edit' });
    await f.makeGrant({ project, department: dept, tier: 'full' });

    const GRANTS =
      'grants { id tier createdAt user { id name email status platformRole } group { id name department { id name } } department { id name color } grantedBy { id email } }';
    const cases: Array<[string, { token: string }, string, Record<string, unknown>?]> = [
      [
        'nested list as admin',
        admin,
        `{ projects(limit: 10) { total items { id name description settings { model temperature topK } accessTier accessSource counts { documents conversations chunks } members { user { id name email } } ${GRANTS} } } }`,
      ],
      // a use-tier member: partial views, so some fields are null with forbidden errors at their paths
      ['nested list as a member (forbidden fields)', member, `{ projects { items { id name accessTier ${GRANTS} } } }`],
      ['a root the caller may not read', member, '{ users { total items { id } } }'],
      ['a missing object', admin, '{ project(id: "00000000-0000-4000-8000-000000000000") { id name } }'],
      ['an object outside the caller', outsider, `query($id: ID!) { project(id: $id) { id name } }`, { id: project.id }],
      [
        'variables, fragments, aliases and directives',
        admin,
        `query($id: ID!, $withGrants: Boolean!, $skipName: Boolean = true) { first: project(id: $id) { ...P grants @include(if: $withGrants) { tier } } second: project(id: $id) { name @skip(if: $skipName) __typename } } fragment P on Project { id name isPrivate }`,
        { id: project.id, withGrants: true },
      ],
      ['a missing required variable', admin, `query($id: ID!) { project(id: $id) { id } }`, {}],
      ['a variable of the wrong type', admin, `query($limit: Int) { projects(limit: $limit) { total } }`, { limit: 'ten' }],
      ['an argument the rules refuse', admin, '{ projects(limit: -1) { total } }'],
      ['introspection', admin, '{ __type(name: "ProjectGrant") { name fields { name } } }'],
      [
        'the caller and their departments',
        admin,
        '{ me { id email platformRole } departments { items { id name counts { members groups grants } } } }',
      ],
    ];
    for (const [name, caller, query, variables] of cases) {
      const [a, b] = [await js(query, caller.token, variables), await jit(query, caller.token, variables)];
      expect({ name, result: b }).toEqual({ name, result: a });
    }
    // every case ran compiled (none fell back to graphql-js for want of a compiled query)
    expect(jit.stats()).toEqual({ compiled: cases.length, declined: 0, tooLarge: 0 });
    // the cases do reach errors and data both
    const member1 = (await js(cases[1][2], member.token)) as { errors?: Array<{ extensions: { code: string } }> };
    expect(member1.errors?.some((e) => e.extensions.code === 'forbidden')).toBe(true);
  });

  it('a document too large to compile quickly stays on graphql-js, with the same answer', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    await f.makeProject({ owner: admin });
    const wide = 'id name email platformRole orgPosition departmentId avatarColor avatarUrl status lastLoginAt createdAt';
    const roots = Array.from(
      { length: 6 },
      (_, i) => `p${i}: projects(limit: 2) { total items { id name members { user { ${wide} } } grants { tier user { ${wide} } } } }`,
    );
    const query = `{ ${roots.join(' ')} }`;
    expect(6 * (6 + 11 + 3 + 11)).toBeGreaterThan(MAX_COMPILED_FIELDS);
    const large = runner('jit');
    const [a, b] = [await js(query, admin.token), await large(query, admin.token)];
    expect(b).toEqual(a);
    expect(large.stats()).toEqual({ compiled: 0, declined: 0, tooLarge: 1 });
    // 6 roots × (total items id name members user, 11 fields, grants tier user, 11 fields) = 186 fields
  });

  it('over HTTP, a query compiled on its second sight answers as on its first', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const { baseUrl } = t;
    const query = '{ projects(limit: 5) { total items { id name members { user { email } } grants { tier user { email } } } } }';
    const first = await gql(baseUrl, query, { token: admin.token });
    const second = await gql(baseUrl, query, { token: admin.token });
    const third = await gql(baseUrl, '{ users { total } }', { token: (await f.makeUser()).token });
    expect(second.text).toEqual(first.text);
    expect(first.errors).toBeUndefined();
    expect(codes(third)).toEqual(['forbidden']);
  });
});

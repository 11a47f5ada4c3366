import {
  DocumentNode,
  FragmentDefinitionNode,
  getIntrospectionQuery,
  GraphQLSchema,
  Kind,
  OperationDefinitionNode,
  parse,
  validate,
} from 'graphql';
import { costLimitRule, DEFAULT_LIST_SIZE, DEFAULT_PAGE_SIZE, operationCost } from '../../src/transports/graphql/cost';
import { depthLimitRule, operationShape, shapeLimitRule } from '../../src/transports/graphql/limits';
import { buildGraphqlSchema } from '../../src/transports/graphql/schema';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildGraphqlSchema();
});

function cost(query: string, variables: Record<string, unknown> = {}): number {
  const doc: DocumentNode = parse(query);
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const fragments = new Map(
    doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  return operationCost(schema, op, (n) => fragments.get(n), variables);
}

describe('static cost', () => {
  it('counts objects, not scalars', () => {
    expect(cost('{ me { id name } }')).toBe(1);
    expect(cost('{ me { id department { id } } }')).toBe(2);
  });

  it('multiplies a page by its limit (literal, variable, default, inside an input object)', () => {
    expect(cost('{ projects(limit: 3) { total items { id } } }')).toBe(3 * (1 + 1));
    expect(cost('query($n: Int!) { projects(limit: $n) { items { id } } }', { n: 7 })).toBe(7 * 2);
    expect(cost('{ projects { items { id } } }')).toBe(DEFAULT_PAGE_SIZE * 2);
    expect(cost('{ users(filter: { limit: 4 }) { items { id } } }')).toBe(4 * 2);
    expect(cost('query($f: ListUsersQuery) { users(filter: $f) { items { id } } }', { f: { limit: 6 } })).toBe(6 * 2);
  });

  it('multiplies other lists by DEFAULT_LIST_SIZE, level by level', () => {
    expect(cost('{ projects(limit: 1) { items { members { user { id } } } } }')).toBe(1 * (1 + 1 + DEFAULT_LIST_SIZE * (1 + 1)));
    expect(cost('{ projects(limit: 1) { items { grants { user { id } } members { userId } } } }')).toBe(
      1 * (1 + 1 + DEFAULT_LIST_SIZE * 2 + DEFAULT_LIST_SIZE),
    );
  });

  it('follows fragments and inline fragments on unions', () => {
    expect(cost('fragment P on Project { grants { id } } { projects(limit: 2) { items { ...P } } }')).toBe(2 * (1 + 1 + DEFAULT_LIST_SIZE));
    expect(
      cost(
        'subscription { chat(projectId: "x", input: { message: "m" }) { ... on ChatSources { chunks { id } } ... on ChatText { delta } } }',
      ),
    ).toBe(1 + DEFAULT_LIST_SIZE);
  });

  it('counts introspection like any other field', () => {
    expect(cost('{ __schema { types { name fields { name } } } }')).toBe(1 * (1 + DEFAULT_LIST_SIZE * (1 + DEFAULT_LIST_SIZE)));
    expect(cost('{ a: __type(name: "Query") { name } b: __type(name: "User") { name } }')).toBe(2);
  });

  it('counts every root field, scalar ones and aliases included', () => {
    expect(cost('mutation { logout }')).toBe(1);
    expect(cost('mutation { a: logout b: logout c: logout }')).toBe(3);
    expect(
      cost(
        Array.from({ length: 40 }, (_, i) => `a${i}: projects(limit: 1) { total }`)
          .join(' ')
          .replace(/^/, '{ ') + ' }',
      ),
    ).toBe(40);
  });

  it("uses a variable's default when the variable is not sent", () => {
    expect(cost('query($n: Int! = 1000) { projects(limit: $n) { items { id } } }')).toBe(1000 * 2);
    expect(cost('query($n: Int! = 1000) { projects(limit: $n) { items { id } } }', { n: 2 })).toBe(2 * 2);
    expect(cost('query($f: ListUsersQuery = { limit: 90 }) { users(filter: $f) { items { id } } }')).toBe(90 * 2);
  });

  it("lets a standard tool's introspection query (GraphiQL's) through the default limits", () => {
    const q = getIntrospectionQuery({ inputValueDeprecation: true, schemaDescription: true });
    const c = cost(q);
    expect(c).toBeGreaterThan(100);
    expect(c).toBeLessThanOrEqual(5000);
    expect(validate(schema, parse(q), [depthLimitRule(10), costLimitRule(5000), shapeLimitRule(30, 20)])).toEqual([]);
  });

  it('the rule reports query_too_costly with the limit and the cost', () => {
    const errors = validate(schema, parse('{ projects(limit: 100) { items { id } } }'), [costLimitRule(150)]);
    expect(errors.map((e) => e.extensions)).toEqual([expect.objectContaining({ code: 'query_too_costly', limit: 150, actual: 200 })]);
    expect(validate(schema, parse('{ projects(limit: 75) { items { id } } }'), [costLimitRule(150)])).toEqual([]);
  });
});

describe('depth', () => {
  it('counts object levels through fragments, introspection included; leaves and ofType chains are free', () => {
    const depthErrors = (q: string, max: number) => validate(schema, parse(q), [depthLimitRule(max)]).map((e) => e.extensions.actual);
    expect(depthErrors('{ me { id } }', 1)).toEqual([]);
    expect(depthErrors('{ projects { items { grants { user { id } } } } }', 3)).toEqual([4]);
    expect(depthErrors('fragment G on ProjectGrant { user { id } } { projects { items { grants { ...G } } } }', 3)).toEqual([4]);
    expect(depthErrors('{ __schema { types { fields { type { ofType { ofType { name } } } } } } }', 4)).toEqual([]);
    expect(depthErrors('{ __schema { types { fields { type { fields { type { name } } } } } } }', 4)).toEqual([6]);
  });
});

describe('shape', () => {
  it('counts aliases and root fields, through fragments', () => {
    const doc = parse('fragment F on Query { x: me { id } } { a: me { id } b: me { c: id } ...F ...F me { id } }');
    const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
    const frag = doc.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION) as FragmentDefinitionNode;
    expect(operationShape(op, () => frag)).toEqual({ aliases: 5, rootFields: 5, repeated: 2 });
  });

  it('reports query_too_complex over either cap', () => {
    const codes = (q: string) =>
      validate(schema, parse(q), [shapeLimitRule(2, 3)]).map((e) => [e.extensions.code, e.extensions.limit, e.extensions.actual]);
    expect(codes('{ a: me { id } b: me { id } }')).toEqual([]);
    expect(codes('{ a: me { id } b: me { id } c: me { id } }')).toEqual([['query_too_complex', 2, 3]]);
    expect(codes('{ me { id } a: me { id } b: me { id } projects { total } }')).toEqual([['query_too_complex', 3, 4]]);
  });
});

import { DocumentNode, FragmentDefinitionNode, GraphQLSchema, Kind, OperationDefinitionNode, parse, validate } from 'graphql';
import { costLimitRule, DEFAULT_LIST_SIZE, DEFAULT_PAGE_SIZE, depthLimitRule, operationCost } from '../../src/transports/graphql/limits';
import { buildGraphqlSchema } from '../../src/transports/graphql/schema';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildGraphqlSchema();
});

function cost(query: string, variables: Record<string, unknown> = {}): number {
  const doc: DocumentNode = parse(query);
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const fragments = new Map(doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
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
    expect(cost('{ projects(limit: 1) { items { grants { user { id } } members { userId } } } }')).toBe(1 * (1 + 1 + DEFAULT_LIST_SIZE * 2 + DEFAULT_LIST_SIZE));
  });

  it('follows fragments and inline fragments on unions; ignores introspection', () => {
    expect(cost('fragment P on Project { grants { id } } { projects(limit: 2) { items { ...P } } }')).toBe(2 * (1 + 1 + DEFAULT_LIST_SIZE));
    expect(cost('subscription { chat(projectId: "x", input: { message: "m" }) { ... on ChatSources { chunks { id } } ... on ChatText { delta } } }')).toBe(1 + DEFAULT_LIST_SIZE);
    expect(cost('{ __schema { types { name fields { name } } } }')).toBe(0);
  });

  it('the rule reports query_too_costly with the limit and the cost', () => {
    const errors = validate(schema, parse('{ projects(limit: 100) { items { id } } }'), [costLimitRule(150)]);
    expect(errors.map((e) => e.extensions)).toEqual([expect.objectContaining({ code: 'query_too_costly', limit: 150, actual: 200 })]);
    expect(validate(schema, parse('{ projects(limit: 75) { items { id } } }'), [costLimitRule(150)])).toEqual([]);
  });
});

describe('depth', () => {
  it('counts object levels through fragments; leaves and introspection are free', () => {
    const depthErrors = (q: string, max: number) => validate(schema, parse(q), [depthLimitRule(max)]).map((e) => e.extensions.actual);
    expect(depthErrors('{ me { id } }', 1)).toEqual([]);
    expect(depthErrors('{ projects { items { grants { user { id } } } } }', 3)).toEqual([4]);
    expect(depthErrors('fragment G on ProjectGrant { user { id } } { projects { items { grants { ...G } } } }', 3)).toEqual([4]);
    expect(depthErrors('{ __schema { types { fields { type { ofType { ofType { name } } } } } } }', 1)).toEqual([]);
  });
});

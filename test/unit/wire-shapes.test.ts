import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  buildSchema,
  getNamedType,
  GraphQLField,
  GraphQLNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLOutputType,
} from 'graphql';
import type { Schema } from '../../src/presenters/schema-builders';
import { RESPONSE_SCHEMAS } from '../../src/presenters/schemas';
import { GRAPHQL_TYPE_OF } from '../../src/transports/graphql/wire-map';

/**
 * One generic walk over every wire shape. Each shape is declared once, as a JSON Schema; its DTO type
 * is generated from it (schema.test.ts keeps that file fresh) and its presenter returns that type, so
 * the compiler ties presenter to schema. This ties the schema to its GraphQL type.
 */
const graph = buildSchema(readFileSync(path.join(__dirname, '../../schema.graphql'), 'utf8'));
const components = RESPONSE_SCHEMAS;

const deref = (s: Schema): Schema => (typeof s.$ref === 'string' ? components[s.$ref.split('/').pop()!] : s);
const types = (s: Schema): string[] => (Array.isArray(s.type) ? (s.type as string[]) : s.type ? [s.type as string] : []);
const nullable = (s: Schema) =>
  types(s).includes('null') || (Array.isArray(s.oneOf) && (s.oneOf as Schema[]).some((x) => types(x).includes('null')));
const nonNullPart = (s: Schema): Schema =>
  Array.isArray(s.oneOf) ? ((s.oneOf as Schema[]).find((x) => !types(x).includes('null')) ?? s) : s;

/** The branches of a shape: one, or each alternative of a oneOf. */
const branches = (s: Schema): Schema[] => (Array.isArray(s.oneOf) && !nullable(s) ? (s.oneOf as Schema[]) : [s]);

/** Problems with REST value schema `rest` shown as GraphQL output type `gql`. */
function compare(where: string, rest: Schema, gql: GraphQLOutputType): string[] {
  const problems: string[] = [];
  if (nullable(rest) && isNonNullType(gql)) problems.push(`${where}: nullable in REST, non-null in GraphQL`);
  const value = deref(nonNullPart(rest));
  const inner = isNonNullType(gql) ? gql.ofType : gql;
  const kinds = types(value).filter((t) => t !== 'null');
  const named: GraphQLNamedType = getNamedType(gql);
  if (kinds.includes('array')) {
    if (!isListType(inner)) return [...problems, `${where}: a list in REST, ${String(inner)} in GraphQL`];
    return [...problems, ...compare(`${where}[]`, value.items as Schema, inner.ofType)];
  }
  if (isListType(inner)) return [...problems, `${where}: a list in GraphQL only`];
  if (kinds.includes('object') || value.properties) {
    if (!isObjectType(named)) problems.push(`${where}: an object in REST, ${named.name} in GraphQL`);
    return problems;
  }
  if (Array.isArray(value.enum)) {
    if (isEnumType(named)) {
      const theirs = named.getValues().map((v) => v.value as string);
      const missing = (value.enum as string[]).filter((e) => !theirs.includes(e));
      if (missing.length) problems.push(`${where}: enum values ${missing.join(', ')} missing in GraphQL ${named.name}`);
    } else if (named.name !== 'String') problems.push(`${where}: an enum in REST, ${named.name} in GraphQL`);
    return problems;
  }
  const scalar = isScalarType(named) ? named.name : isEnumType(named) ? 'enum' : 'object';
  const expected: Record<string, string[]> = {
    string: ['String', 'ID', 'DateTimeISO'],
    integer: ['Int', 'Float'],
    number: ['Float'],
    boolean: ['Boolean'],
  };
  const kind = kinds[0] ?? (value.const !== undefined ? typeof value.const : undefined);
  const allowed = kind ? expected[kind] : undefined;
  // a schema without a type (free JSON such as audit metadata) may be any GraphQL type
  if (allowed && !allowed.includes(scalar)) problems.push(`${where}: ${kind} in REST, ${scalar} in GraphQL`);
  return problems;
}

describe('every wire shape and its GraphQL type', () => {
  it('lists every shape in GRAPHQL_TYPE_OF, and nothing else', () => {
    expect(Object.keys(GRAPHQL_TYPE_OF).sort()).toEqual(Object.keys(components).sort());
  });

  it.each(Object.keys(components))('%s: each field is in its GraphQL type, as nullable as REST and of the same kind', (name) => {
    const link = GRAPHQL_TYPE_OF[name];
    if (link === null) return;
    const type = graph.getType(link.type);
    expect(type && isObjectType(type) ? type.name : `no object type ${link.type}`).toBe(link.type);
    const fields = (type as { getFields(): Record<string, GraphQLField<unknown, unknown>> }).getFields();
    const problems: string[] = [];
    for (const branch of branches(components[name])) {
      const props = (deref(branch).properties ?? {}) as Record<string, Schema>;
      for (const [field, schema] of Object.entries(props)) {
        const gqlName = link.renamed?.[field] ?? field;
        const f = fields[gqlName];
        if (!f) problems.push(`${name}.${field}: no field ${link.type}.${gqlName}`);
        else problems.push(...compare(`${name}.${field}`, schema, f.type));
      }
    }
    expect(problems).toEqual([]);
  });
});

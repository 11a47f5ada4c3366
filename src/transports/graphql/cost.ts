import {
  ASTVisitor,
  FieldNode,
  getNamedType,
  getNullableType,
  GraphQLError,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLField,
  GraphQLSchema,
  isAbstractType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  OperationDefinitionNode,
  OperationTypeNode,
  SchemaMetaFieldDef,
  SelectionSetNode,
  TypeMetaFieldDef,
  ValidationContext,
  ValidationRule,
  ValueNode,
} from 'graphql';
import type { Fragments } from './limits';

// The static cost of an operation: each field costs one, times the list lengths above it (a `limit`
// argument, else an assumed size), so that a budget (GRAPHQL_MAX_COST) bounds the work a query asks for.

/**
 * Assumed length of a list the query cannot bound (members, grants, citations...): a typical size,
 * not a maximum, so that ordinary nested queries (`users { projects { grants { user } } } }`) fit the
 * default budget while each extra level of nesting still multiplies the cost.
 */
export const DEFAULT_LIST_SIZE = 5;
/** Assumed size of a page whose `limit` is not given (the services' default page size). */
export const DEFAULT_PAGE_SIZE = 50;
/** Page types (`{ items, total }`) are counted by their field's `limit`; their `items` list adds nothing. */
const isPageType = (t: GraphQLNamedType): boolean => isObjectType(t) && 'items' in t.getFields() && 'total' in t.getFields();

const asCount = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** A `limit` given directly (`limit: 5`, `limit: $n`) or inside an input object (`filter: { limit: 5 }`, `filter: $f`). */
function limitOf(field: FieldNode, variables: Record<string, unknown>): number | undefined {
  const value = (node: ValueNode): unknown => {
    if (node.kind === Kind.INT) return Number(node.value);
    if (node.kind === Kind.VARIABLE) return variables[node.name.value];
    return undefined;
  };
  for (const arg of field.arguments ?? []) {
    if (arg.name.value === 'limit') return asCount(value(arg.value));
  }
  for (const arg of field.arguments ?? []) {
    if (arg.value.kind === Kind.OBJECT) {
      const f = arg.value.fields.find((x) => x.name.value === 'limit');
      if (f) return asCount(value(f.value));
    } else if (arg.value.kind === Kind.VARIABLE) {
      const v = variables[arg.value.name.value];
      if (v && typeof v === 'object' && 'limit' in v) return asCount(v.limit);
    }
  }
  return undefined;
}

interface CostEnv {
  schema: GraphQLSchema;
  fragments: Fragments;
  variables: Record<string, unknown>;
}

/**
 * Static cost: every object-valued field costs 1 plus its children, times the number of objects it
 * returns: a page counts its `limit` (literal, variable or inside an input object; else its default),
 * any other list DEFAULT_LIST_SIZE.
 * Scalars are free, so the cost counts the objects a response could contain.
 */
function costOf(set: SelectionSetNode | undefined, parent: GraphQLNamedType | undefined, env: CostEnv, seen: Set<string>): number {
  if (!set || !parent) return 0;
  let total = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.INLINE_FRAGMENT) {
      const t = sel.typeCondition ? (env.schema.getType(sel.typeCondition.name.value) ?? undefined) : parent;
      total += costOf(sel.selectionSet, t, env, seen);
    } else if (sel.kind === Kind.FRAGMENT_SPREAD) {
      const name = sel.name.value;
      const frag = seen.has(name) ? null : env.fragments(name);
      if (frag)
        total += costOf(frag.selectionSet, env.schema.getType(frag.typeCondition.name.value) ?? undefined, env, new Set(seen).add(name));
    } else {
      total += fieldCost(sel, parent, env, seen);
    }
  }
  return total;
}

function fieldDef(schema: GraphQLSchema, parent: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined {
  // on a union only inline fragments select fields; on an interface the field is declared there
  if (!(isObjectType(parent) || isInterfaceType(parent))) return undefined;
  if (parent === schema.getQueryType()) {
    if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
    if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  }
  return (parent as GraphQLObjectType).getFields()[name]; // unknown fields are reported by the standard rules
}

function fieldCost(field: FieldNode, parent: GraphQLNamedType, env: CostEnv, seen: Set<string>): number {
  const name = field.name.value;
  // every root field is a service call, even one that returns a scalar
  const root =
    parent === env.schema.getQueryType() || parent === env.schema.getMutationType() || parent === env.schema.getSubscriptionType();
  if (!field.selectionSet) return root && name !== '__typename' ? 1 : 0;
  const def = fieldDef(env.schema, parent, name);
  if (!def) return 0;
  const named = getNamedType(def.type);
  const children = costOf(
    field.selectionSet,
    isAbstractType(named) || isObjectType(named) || isInterfaceType(named) ? named : undefined,
    env,
    seen,
  );
  const limitArg = def.args.find((a) => a.name === 'limit');
  const given = limitOf(field, env.variables);
  let size = 1;
  if (given !== undefined) size = given;
  else if (limitArg) size = typeof limitArg.defaultValue === 'number' ? limitArg.defaultValue : DEFAULT_PAGE_SIZE;
  else if (isPageType(named)) size = DEFAULT_PAGE_SIZE;
  else if (isListType(getNullableType(def.type)) && !(name === 'items' && isPageType(parent))) {
    size = DEFAULT_LIST_SIZE;
  }
  return Math.max(size, 0) * (1 + children);
}

/** Computes an operation's static cost (exported for tests and for the limit rule). */
export function operationCost(
  schema: GraphQLSchema,
  op: OperationDefinitionNode,
  fragments: Fragments,
  variables: Record<string, unknown> = {},
): number {
  const root =
    op.operation === OperationTypeNode.QUERY
      ? schema.getQueryType()
      : op.operation === OperationTypeNode.MUTATION
        ? schema.getMutationType()
        : schema.getSubscriptionType();
  return costOf(op.selectionSet, root ?? undefined, { schema, fragments, variables: withDefaults(op, variables) }, new Set());
}

/** The variables an operation runs with: those sent, else the operation's defaults (`$n: Int = 1000`). */
function withDefaults(op: OperationDefinitionNode, variables: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of op.variableDefinitions ?? []) {
    const d = def.defaultValue;
    if (d?.kind === Kind.INT) out[def.variable.name.value] = Number(d.value);
    else if (d?.kind === Kind.OBJECT) {
      const limit = d.fields.find((f) => f.name.value === 'limit');
      if (limit?.value.kind === Kind.INT) out[def.variable.name.value] = { limit: Number(limit.value.value) };
    }
  }
  for (const [k, v] of Object.entries(variables)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

/** Rejects operations whose static cost exceeds `maxCost`; `variables` make `limit: $n` count. */
export function costLimitRule(maxCost: number, variables: Record<string, unknown> = {}): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(op: OperationDefinitionNode) {
      const cost = operationCost(context.getSchema(), op, (n) => context.getFragment(n), variables);
      if (cost > maxCost) {
        context.reportError(
          new GraphQLError(`Query cost ${cost} exceeds the limit of ${maxCost}`, {
            nodes: [op],
            extensions: { code: 'query_too_costly', limit: maxCost, actual: cost, http: { status: 400 } },
          }),
        );
      }
    },
  });
}

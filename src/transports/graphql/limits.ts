import {
  ASTVisitor,
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLError,
  Kind,
  OperationDefinitionNode,
  SelectionSetNode,
  ValidationContext,
  ValidationRule,
} from 'graphql';

// The shape limits of an operation checked before it runs: depth, aliases, root fields, repeated fields, tokens.
// Its cost is bounded by cost.ts.

export type Fragments = (name: string) => FragmentDefinitionNode | null | undefined;

/**
 * Depth of a selection set: each field with sub-selections adds one level, introspection included
 * (`{ __schema { types { fields { name } } } }` is 3). The one exception is `ofType`: a type
 * reference (`[String!]!` is three wrappers) is as deep as the schema's own wrapping, returns a
 * single object, and standard tools' introspection query nests it nine times; its cost still counts.
 */
function depthOf(set: SelectionSetNode | undefined, fragments: Fragments, seen: Set<string>): number {
  if (!set) return 0;
  let max = 0;
  for (const sel of set.selections) {
    if (sel.kind === Kind.FIELD) {
      if (!sel.selectionSet) continue;
      const level = sel.name.value === 'ofType' ? 0 : 1;
      max = Math.max(max, level + depthOf(sel.selectionSet, fragments, seen));
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      max = Math.max(max, depthOf(sel.selectionSet, fragments, seen));
    } else {
      const name = sel.name.value;
      if (seen.has(name)) continue; // a cycle is reported by NoFragmentCycles
      const frag = fragments(name);
      if (frag) max = Math.max(max, depthOf(frag.selectionSet, fragments, new Set(seen).add(name)));
    }
  }
  return max;
}

/** Rejects operations nested deeper than `maxDepth` object levels (`{ users { items { projects { id } } } }` is 3). */
export function depthLimitRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(op: OperationDefinitionNode) {
      const depth = depthOf(op.selectionSet, (n) => context.getFragment(n), new Set());
      if (depth > maxDepth) {
        context.reportError(
          new GraphQLError(`Query depth ${depth} exceeds the limit of ${maxDepth}`, {
            nodes: [op],
            extensions: { code: 'query_too_deep', limit: maxDepth, actual: depth, http: { status: 400 } },
          }),
        );
      }
    },
  });
}

/** Largest number of times one response name may be selected in one selection set (fragments merged). */
export const MAX_REPEATED_FIELD = 20;
/** Largest document, in lexical tokens (GraphiQL's full introspection query is about 200). */
export const MAX_TOKENS = 10_000;

/**
 * Counts the aliased fields and the root fields of an operation (fragments expanded where spread),
 * and the most times one response name is selected in one selection set: graphql-js compares such
 * fields pairwise (OverlappingFieldsCanBeMerged), so `{ me { department { id } department { id } … } }`
 * costs quadratic time in validation alone. Linear in the document, so it runs before validation.
 */
export function operationShape(
  op: OperationDefinitionNode,
  fragments: Fragments,
): { aliases: number; rootFields: number; repeated: number } {
  let aliases = 0;
  let rootFields = 0;
  let repeated = 0;
  let visits = 0;
  const walk = (set: SelectionSetNode | undefined, atRoot: boolean, seen: Set<string>, names: Map<string, number>): void => {
    if (!set) return;
    for (const sel of set.selections) {
      // fragments spread inside fragments can multiply the walk; stop once any cap is certainly exceeded
      visits += 1;
      if (visits > 100_000) {
        aliases = Number.MAX_SAFE_INTEGER;
        return;
      }
      if (sel.kind === Kind.FIELD) {
        if (sel.alias) aliases += 1;
        if (atRoot) rootFields += 1;
        const key = (sel.alias ?? sel.name).value;
        const n = (names.get(key) ?? 0) + 1;
        names.set(key, n);
        repeated = Math.max(repeated, n);
        walk(sel.selectionSet, false, seen, new Map());
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet, atRoot, seen, names);
      } else if (!seen.has(sel.name.value)) {
        walk(fragments(sel.name.value)?.selectionSet, atRoot, new Set(seen).add(sel.name.value), names);
      }
    }
  };
  walk(op.selectionSet, true, new Set(), new Map());
  return { aliases, rootFields, repeated };
}

/** The first cap an operation exceeds, as the error to report (none: undefined). */
export function shapeError(
  op: OperationDefinitionNode,
  fragments: Fragments,
  maxAliases: number,
  maxRootFields: number,
): GraphQLError | undefined {
  const { aliases, rootFields, repeated } = operationShape(op, fragments);
  const over =
    aliases > maxAliases
      ? { what: 'aliases', limit: maxAliases, actual: aliases }
      : rootFields > maxRootFields
        ? { what: 'root fields', limit: maxRootFields, actual: rootFields }
        : repeated > MAX_REPEATED_FIELD
          ? { what: 'selections of one field in one selection set', limit: MAX_REPEATED_FIELD, actual: repeated }
          : undefined;
  if (!over) return undefined;
  const actual = over.actual === Number.MAX_SAFE_INTEGER ? 'too many' : String(over.actual);
  return new GraphQLError(`The operation has ${actual} ${over.what}; the limit is ${over.limit}`, {
    nodes: [op],
    extensions: { code: 'query_too_complex', limit: over.limit, actual: over.actual, http: { status: 400 } },
  });
}

/**
 * Caps the aliased fields and the root fields of one operation: each alias of a root field is a
 * service call of its own, so `a1: projects(limit: 1) { total } a2: …` is refused by count, not
 * only by cost.
 */
export function shapeLimitRule(maxAliases: number, maxRootFields: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(op: OperationDefinitionNode) {
      const error = shapeError(op, (n) => context.getFragment(n), maxAliases, maxRootFields);
      if (error) context.reportError(error);
    },
  });
}

/** The shape check on a parsed document, before graphql-js validation (whose cost it bounds). */
export function documentShapeError(document: DocumentNode, maxAliases: number, maxRootFields: number): GraphQLError | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    const error = shapeError(d, (n) => fragments.get(n), maxAliases, maxRootFields);
    if (error) return error;
  }
  return undefined;
}

import { GraphQLObjectType, GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { FROM_VIEW, resolveFromView } from './view';

type Resolve = (root: unknown, args: unknown, context: unknown) => unknown;
type FieldResolverMeta = ReturnType<typeof getMetadataStorage>['fieldResolvers'][number];

/**
 * A field resolver method `(@Root() parent, @Ctx() context)` with an untyped parent and no middleware
 * or role: called directly. type-graphql's own wrapper would copy the parent into a new instance of
 * the object type, sort the parameters and run an empty middleware chain on every call. Anything
 * else keeps type-graphql's resolver (null).
 */
function directResolver(r: FieldResolverMeta, instances: Map<unknown, object>): Resolve | null {
  if (r.kind !== 'external' || r.middlewares?.length || r.roles) return null;
  const [root, context, ...rest] = [...(r.params ?? [])].sort((a, b) => a.index - b.index);
  const plain =
    rest.length === 0 &&
    root?.kind === 'root' &&
    !root.propertyName &&
    (!root.getType || root.getType() === Object) &&
    context?.kind === 'context' &&
    !context.propertyName;
  if (!plain) return null;
  const target = r.target as new () => object;
  let instance = instances.get(target);
  if (!instance) instances.set(target, (instance = new target()));
  const method = (instance as Record<string, unknown>)[r.methodName];
  if (typeof method !== 'function') return null;
  const bound = instance;
  return (parent, _args, ctx) => (method as (p: unknown, c: unknown) => unknown).call(bound, parent, ctx);
}

/**
 * type-graphql gives every field a resolver of its own that runs the field's middleware chain and
 * returns the root's property, even for a plain scalar with no middleware: one closure call per
 * field per object. After the schema is built, such fields get graphql-js's default resolver (a
 * synchronous property read) and FromView fields get `resolveFromView` (synchronous when the view
 * has the value); field resolvers of the plain (parent, context) kind are called directly. A field
 * with a middleware, a role, other parameters or a renamed property keeps type-graphql's resolver:
 * nothing a field declares is skipped.
 */
export function streamlineResolvers(schema: GraphQLSchema): number {
  const storage = getMetadataStorage();
  const typeName = new Map<unknown, string>(storage.objectTypes.map((o) => [o.target, o.name]));
  const fieldResolvers = new Map(storage.fieldResolvers.map((r) => [`${typeName.get(r.getObjectType?.())}.${r.schemaName}`, r]));
  const instances = new Map<unknown, object>();
  const plain = new Set<string>();
  for (const o of storage.objectTypes) {
    for (const f of o.fields ?? []) {
      if (!f.middlewares?.length && !f.roles && f.name === f.schemaName) plain.add(`${o.name}.${f.schemaName}`);
    }
  }
  const rootTypes = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]);
  let changed = 0;
  for (const type of Object.values(schema.getTypeMap())) {
    if (!(type instanceof GraphQLObjectType) || rootTypes.has(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const key = `${type.name}.${field.name}`;
      const resolver = fieldResolvers.get(key);
      if (resolver) {
        const direct = directResolver(resolver, instances);
        if (direct) {
          field.resolve = direct as typeof field.resolve;
          changed++;
        }
        continue;
      }
      if (!plain.has(key)) continue;
      field.resolve = field.extensions[FROM_VIEW] ? (resolveFromView as typeof field.resolve) : undefined;
      changed++;
    }
  }
  return changed;
}

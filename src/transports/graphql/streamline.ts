import { GraphQLObjectType, GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { FROM_VIEW, resolveFromView } from './view';

/**
 * type-graphql gives every field a resolver of its own that runs the field's middleware chain and
 * returns the root's property, even for a plain scalar with no middleware: one closure call per
 * field per object. After the schema is built, such fields get graphql-js's default resolver (a
 * synchronous property read) and FromView fields get `resolveFromView` (synchronous when the view
 * has the value). Fields with a field resolver, a middleware, a role or a renamed property keep
 * type-graphql's resolver: nothing a field declares is skipped.
 */
export function streamlineResolvers(schema: GraphQLSchema): number {
  const storage = getMetadataStorage();
  const typeName = new Map<unknown, string>(storage.objectTypes.map((o) => [o.target, o.name]));
  const withResolver = new Set(storage.fieldResolvers.map((r) => `${typeName.get(r.getObjectType?.())}.${r.schemaName}`));
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
      if (withResolver.has(key) || !plain.has(key)) continue;
      field.resolve = field.extensions[FROM_VIEW] ? (resolveFromView as typeof field.resolve) : undefined;
      changed++;
    }
  }
  return changed;
}

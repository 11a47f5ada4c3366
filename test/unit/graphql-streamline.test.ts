import 'reflect-metadata';
import { GraphQLObjectType, GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { buildGraphqlSchema } from '../../src/transports/graphql/schema';
import { resolveFromView } from '../../src/transports/graphql/view';

/**
 * The resolvers the built schema runs (streamline.ts): plain fields read the loaded object
 * synchronously, FromView fields complete only what the view lacks, field resolvers keep theirs,
 * and the authentication check runs once, on the root operation.
 */
let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildGraphqlSchema();
});

const fields = (type: string) => (schema.getType(type) as GraphQLObjectType).getFields();

describe('graphql: resolvers after streamlining', () => {
  it('plain fields use graphql-js default resolver; FromView fields the view resolver; field resolvers their own', () => {
    expect(fields('Project').name.resolve).toBeUndefined();
    expect(fields('Project').isPrivate.resolve).toBeUndefined();
    expect(fields('ProjectGrant').tier.resolve).toBeUndefined();
    expect(fields('ProjectGrant').user.resolve).toBeUndefined();
    expect(fields('User').email.resolve).toBeUndefined();
    expect(fields('Project').description.resolve).toBe(resolveFromView);
    expect(fields('User').platformRole.resolve).toBe(resolveFromView);
    expect(fields('Department').id.resolve).toBe(resolveFromView);
    for (const f of ['members', 'grants', 'counts', 'accessTier', 'documents'])
      expect(typeof fields('Project')[f].resolve).toBe('function');
    expect(typeof fields('ProjectGrant').grantedBy.resolve).toBe('function');
  });

  it('every field with a middleware or a role keeps a resolver of its own', () => {
    const storage = getMetadataStorage();
    for (const o of storage.objectTypes) {
      const type = schema.getType(o.name);
      if (!(type instanceof GraphQLObjectType)) continue;
      for (const f of o.fields ?? []) {
        if (f.middlewares?.length || f.roles)
          expect([`${o.name}.${f.schemaName}`, typeof type.getFields()[f.schemaName]?.resolve]).toEqual([
            `${o.name}.${f.schemaName}`,
            'function',
          ]);
      }
    }
  });

  it('field resolvers carry no per-field authentication: the root operation checks it once (every root is @Authorized)', () => {
    const storage = getMetadataStorage();
    expect(storage.fieldResolvers.length).toBeGreaterThan(10);
    expect(storage.fieldResolvers.filter((r) => r.roles !== undefined).map((r) => r.methodName)).toEqual([]);
  });

  it('a view answers what it has synchronously, and completes a missing field through the full view', async () => {
    const info = { fieldName: 'description', parentType: { name: 'Project' } } as never;
    const context = { loaders: { full: jest.fn(() => Promise.resolve({ description: 'from the full view' })) } } as never;
    expect(resolveFromView({ id: 'p1', description: 'in the view' }, {}, context, info)).toBe('in the view');
    expect(resolveFromView({ id: 'p1', description: null }, {}, context, info)).toBeNull();
    await expect(resolveFromView({ id: 'p1' }, {}, context, info)).resolves.toBe('from the full view');
    // a view without an id cannot be completed: forbidden, never another object's data
    expect(() => resolveFromView({}, {}, context, info)).toThrow(expect.objectContaining({ code: 'forbidden' }));
  });

  it('field resolvers of the (parent, context) kind are called directly: a value the parent carries comes back synchronously', async () => {
    const accessTier = fields('Project').accessTier.resolve!;
    const load = jest.fn(() => Promise.resolve({ accessTier: 'edit' }));
    const context = { loaders: { projects: { load } } };
    // the list's rows carry the tier: no promise, no loader call
    expect(accessTier({ id: 'p1', accessTier: 'use' }, {}, context, {} as never)).toBe('use');
    expect(load).not.toHaveBeenCalled();
    // a parent without it (a project reached through another object) is completed by the batched read
    await expect(accessTier({ id: 'p2' }, {}, context, {} as never)).resolves.toBe('edit');
    expect(load).toHaveBeenCalledWith('p2');
    // a field resolver with other parameters keeps type-graphql's resolver (four arguments)
    expect(fields('ProjectGrant').grantedBy.resolve!.length).toBe(4);
  });
});

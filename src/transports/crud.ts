import type { Actor } from '../access/actor';

/** A kind's service calls behind its writes (a provider's, and those below). */
export interface WriteCalls<View, Create, Update> {
  create(actor: Actor, input: Create): Promise<View>;
  update(actor: Actor, id: string, input: Update): Promise<View>;
  delete(actor: Actor, id: string): Promise<{ id: string }>;
}

/**
 * A kind's service calls behind its CRUD run (a group, a department, a project, a user): REST
 * (http/crud-routes.ts) and GraphQL (graphql/crud.ts) make the same four calls.
 */
export interface CrudCalls<View, Create, Update> extends WriteCalls<View, Create, Update> {
  get(actor: Actor, id: string): Promise<View>;
}

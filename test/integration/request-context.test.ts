import { RequestContext } from '@mikro-orm/core';
import { inRequestContext } from '../../src/db/request-context';
import { User } from '../../src/entities';
import { factories } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/** src/db/request-context.ts: each request's EntityManager fork, made on first use only. */
describe('request contexts with a fork made on first use', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('makes no fork until the ORM is used, then one, the same for the whole request, resolved by the global EntityManager too', async () => {
    const u = await factories(t.orm, t.services).makeUser();
    await inRequestContext(t.orm, async () => {
      const ctx = RequestContext.currentRequestContext()!;
      expect(ctx.map.size).toBe(0);
      const em = RequestContext.getEntityManager()!;
      expect(em).toBeDefined();
      expect(em).not.toBe(t.orm.em);
      expect(ctx.map.size).toBe(1);
      expect(RequestContext.getEntityManager()).toBe(em);
      // the global EntityManager resolves to the request's fork, as with RequestContext.create
      expect(t.orm.em.getContext()).toBe(em);
      const found = await t.orm.em.findOneOrFail(User, { id: u.id });
      expect(em.getUnitOfWork().getById(User.name, u.id)).toBe(found);
      // across an await, and inside a transaction of the fork, the context holds
      await em.transactional(async (tx) => {
        expect(await tx.findOneOrFail(User, { id: u.id })).toBeDefined();
      });
      expect(RequestContext.getEntityManager()).toBe(em);
    });
  });

  it('each request gets a fork of its own, even when they interleave', async () => {
    const forks = await Promise.all(
      [1, 2].map((i) =>
        inRequestContext(t.orm, async () => {
          await new Promise((r) => setTimeout(r, 5 * i));
          return RequestContext.getEntityManager();
        }),
      ),
    );
    expect(forks[0]).toBeDefined();
    expect(forks[1]).toBeDefined();
    expect(forks[0]).not.toBe(forks[1]);
    // outside a request there is no context
    expect(RequestContext.getEntityManager()).toBeUndefined();
  });
});

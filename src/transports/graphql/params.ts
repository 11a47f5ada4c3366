import { Args, ClassType, createParameterDecorator } from 'type-graphql';
import type { Actor } from '../../access/actor';
import { parse } from '../../validation';
import { actorOf, GraphqlContext } from './context';

/** The operation's context once a caller is signed in: what an operation behind `@Authorized()` works with. */
export type Caller = GraphqlContext & { actor: Actor };

/**
 * The signed-in caller and the services and loaders to serve them with, in one parameter:
 * `@Caller() { actor, services }: Caller` (resolvers behind `@Authorized()` always have an actor).
 */
export function Caller() {
  return createParameterDecorator<GraphqlContext>(({ context }): Caller => ({ ...context, actor: actorOf(context) }));
}

/**
 * An argument of input class `cls`, run through the same `parse()` (class-validator, whitelist) REST
 * uses: the resolver receives the validated instance, or the operation fails with validation_failed.
 * An absent nullable argument is parsed as `{}`, like an empty REST body or query string.
 */
export function ValidArg<T extends object>(name: string, cls: ClassType<T>, options: { nullable?: boolean; description?: string } = {}) {
  return createParameterDecorator<GraphqlContext>(({ args }) => parse(cls, args[name]), { arg: { name, typeFunc: () => cls, options } });
}

/** A list's optional `filter` argument (REST's query string): validated like `ValidArg`, `{}` when left out. */
export function FilterArg<T extends object>(cls: ClassType<T>) {
  return ValidArg('filter', cls, { nullable: true });
}

/** Flattened arguments (an `@ArgsType` class such as PageArgs), validated with `parse()` like `ValidArg`. */
export function ValidArgs<T extends object>(cls: ClassType<T>) {
  return Args(() => cls, { validateFn: async (value) => void (await parse(cls, value)) });
}

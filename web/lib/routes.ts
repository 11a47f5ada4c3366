/**
 * The routes of the REST API as types: a call names a method and a path as it writes it
 * (`/projects/${id}`, with or without a query string), and the path is matched, segment by segment,
 * to an operation of the generated `Routes` map (`'PATCH /projects/:id'`), whose body and answer the
 * call then has. A path no operation has, a body the server would refuse (an unknown field, a wrong
 * type, a missing one) or a body where none is taken fails to compile. A path held in a variable
 * keeps its shape with `as const`; a plain `string` matches nothing.
 */
import type { Routes } from './types';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

type WithoutQuery<P extends string> = P extends `${infer Path}?${string}` ? Path : P;
type Segments<P extends string> = P extends `${infer Head}/${infer Rest}` ? [Head, ...Segments<Rest>] : [P];

/** A `:param` segment takes any non-empty segment (`${string}` included); any other takes only itself. */
type SegmentMatches<S extends string, T extends string> = T extends `:${string}`
  ? S extends ''
    ? false
    : true
  : [S] extends [T]
    ? true
    : false;
type SegmentsMatch<S extends string[], T extends string[]> = S extends [infer S0 extends string, ...infer SR extends string[]]
  ? T extends [infer T0 extends string, ...infer TR extends string[]]
    ? SegmentMatches<S0, T0> extends true
      ? SegmentsMatch<SR, TR>
      : false
    : false
  : T extends []
    ? true
    : false;

type Templates<M extends Method> = { [K in keyof Routes]: K extends `${M} ${infer T}` ? T : never }[keyof Routes];

/** The operation a call reaches: the route written out (`GET /users/me`) before one with parameters (`GET /users/:id`). */
export type RouteKey<M extends Method, P extends string> = `${M} ${WithoutQuery<P>}` extends keyof Routes
  ? `${M} ${WithoutQuery<P>}`
  : { [T in Templates<M>]: SegmentsMatch<Segments<WithoutQuery<P>>, Segments<T>> extends true ? `${M} ${T}` : never }[Templates<M>];

/** The path itself when it reaches an operation, else a type that names the mistake. */
export type RoutePath<M extends Method, P extends string> = [RouteKey<M, P>] extends [never] ? `${M} ${P} is not a route of the API` : P;

type Route<M extends Method, P extends string> = Routes[RouteKey<M, P> & keyof Routes];

/** The body argument: required, optional (a body that may be left out) or none at all. */
export type BodyArgs<M extends Method, P extends string> =
  Route<M, P> extends { body: infer B } ? (undefined extends B ? [body?: B] : [body: B]) : [];

/** What a success answers. */
export type ResponseOf<M extends Method, P extends string> = Route<M, P>['response'];

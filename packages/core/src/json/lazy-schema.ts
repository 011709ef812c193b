/**
 * A zod schema built when it is first used, not when its module loads.
 * Building a zod schema is work (each `z.object`, `z.string()`, `.regex` …
 * constructs and initializes an object), and the modules of the store, the
 * journal and the Workspace declare about 270 of them: a process that loads
 * them only to inspect runs (`xmd workflow list`, `status`) parses with a
 * few dozen, yet built all of them before its first read (MDX-131).
 *
 * Invariants:
 * - The handle is the schema `build` returns, built once, on the first use of
 *   any of its members (a parse, a refinement, being composed into another
 *   schema): every value parsed through it is parsed by that schema, with the
 *   same result, issues and messages.
 * - Nothing is parsed less: laziness defers a construction, never a parse.
 *
 * @module
 */

/**
 * The schema `build` returns, built on its first use. The handle forwards
 * every member to it (zod binds a schema's methods to the schema), and
 * `instanceof` sees its class.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => built ??= build();
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(schema(), key),
    has: (_target, key) => Reflect.has(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}

/**
 * The bindings an expression reads. An expression sees nothing but its scope:
 * there are no globals, so a name is either bound here or unknown.
 *
 * @module
 */
import type { JsonValue } from "../json/json-value.ts";

/**
 * Looks up a name bound for an expression (`props`, `meta` and names bound
 * with `as="…"`), returning `undefined` when the name is not bound. Bound
 * values are JSON; the evaluator trusts that and does not re-check them.
 *
 * @example A scope over a map of bindings
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Scope } from "./scope.ts";
 * const bindings = new Map([["props", { name: "Ada" }]]);
 * const scope: Scope = (name) => bindings.get(name);
 * assert.deepEqual(scope("props"), { name: "Ada" });
 * assert.equal(scope("meta"), undefined);
 * ```
 */
export type Scope = (name: string) => JsonValue | undefined;

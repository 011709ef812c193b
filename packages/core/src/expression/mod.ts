/**
 * Safe document expressions: compile `{…}` once, evaluate it against the
 * bindings in scope, and get JSON back or a positioned refusal.
 *
 * @module
 */
export { type CompiledExpression, compileEstree, compileSource } from "./expression.ts";
export type { Scope } from "./scope.ts";

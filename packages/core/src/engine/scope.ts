/**
 * Lexical bindings. A scope sees its own names, then its parent's. `<Each>`
 * iterations and component bodies open a scope; `as` binds in the current one.
 *
 * @module
 */
import type { JsonValue } from "../json/json-value.ts";

/** A chain of binding maps. */
export class BindingScope {
  readonly #names = new Map<string, JsonValue>();
  readonly #parent: BindingScope | undefined;

  /** A scope whose lookups fall back to `parent`. */
  constructor(parent?: BindingScope, initial?: Record<string, JsonValue>) {
    this.#parent = parent;
    if (initial) {
      for (const [name, value] of Object.entries(initial)) {
        this.#names.set(name, value);
      }
    }
  }

  /** Binds (or rebinds) `name` in this scope. */
  bind(name: string, value: JsonValue): void {
    this.#names.set(name, value);
  }

  /** The value bound to `name`, or `undefined`. */
  lookup = (name: string): JsonValue | undefined => {
    const value = this.#names.get(name);
    if (value !== undefined || this.#names.has(name)) return value;
    return this.#parent?.lookup(name);
  };
}

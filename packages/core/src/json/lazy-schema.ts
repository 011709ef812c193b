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
 * - A schema is built with classic zod's defaults, whichever of zod's APIs
 *   builds it: English messages and the memoizer that gives containers
 *   cycle support. The schemas of the store, the journal and the Workspace
 *   are built with `zod/mini` (MDX-132), which installs neither, and a
 *   process that inspects runs loads no classic zod to install them; where
 *   classic zod has installed them (or a caller has chosen others) they are
 *   left as they are.
 *
 * @module
 */
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

let defaulted = false;

/** Installs what classic zod installs on its first schema, where nothing is installed yet. */
function useZodDefaults(): void {
  if (defaulted) return;
  defaulted = true;
  const config = z.config();
  if (!config.localeError) z.config(en());
  if (!config.memoizer) z.config({ memoizer: z.memoizer() });
}

/**
 * The schema `build` returns, built on its first use. The handle forwards
 * every member to it (zod binds a schema's methods to the schema), and
 * `instanceof` sees its class.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => {
    if (built === undefined) {
      useZodDefaults();
      built = build();
    }
    return built;
  };
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(schema(), key),
    has: (_target, key) => Reflect.has(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}

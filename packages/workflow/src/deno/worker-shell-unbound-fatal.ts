/**
 * An unbound variable under `set -u` ends the shell, as in bash (WS-153).
 *
 * just-bash throws its `NounsetError` where a script expands an unset
 * variable under nounset, but every compound command it runs (a group, an
 * `if`, loop or `case` body, a function) catches an error it does not list
 * as control flow and turns it into a message and status 1 for that command
 * alone. Only errexit, `exit`, `return`, `break`, `continue` and its limits
 * pass through. Worker Shell wraps each top-level statement of a block in a
 * group (streaming, WS-40), so `set -u; echo "$TYPO"; rm -r "$DIR/"` went on
 * to `rm`, and `while :; do echo "$TYPO"; break; done` never reached its
 * `break`. In bash, such an error ends the shell (or the subshell, command
 * substitution or pipeline part that met it).
 *
 * just-bash's `exit` has exactly that reach: its `ExitError` passes through
 * every compound command and ends the script, a subshell, a `$( )` or a
 * pipeline part with its status. Neither class is exported, so the warm-up
 * (worker-shell-child.ts) runs a script that meets both once, while a hook
 * on `Error[Symbol.hasInstance]` watches the `instanceof` checks just-bash
 * makes on them; then `NounsetError`'s prototype is made to inherit from
 * `ExitError`'s, with an exit status of 1.
 *
 * Invariants:
 * - The hook only watches: it answers every `instanceof` as the language
 *   does, and it is removed before the warm-up's promise settles, so no
 *   block ever runs with it.
 * - An unbound variable's message is just-bash's own (`bash: NAME: unbound
 *   variable`), written where `exit`'s output goes.
 * - If the warm-up did not meet both errors, or they do not share their
 *   base class (another just-bash), nothing is changed: just-bash's own
 *   behaviour stays. The version is pinned (worker-shell-child-lock.json)
 *   and a test holds the behaviour.
 * - The status is 1, bash's under `set -e` and in a subshell or `$( )`;
 *   bash gives 127 when the shell itself exits without errexit.
 *
 * @module
 */

/** Script text that meets both errors: an unbound variable and an `exit`, each in a group. */
export const MEET_UNBOUND_AND_EXIT = 'set -u; { : "$__xmd_unbound"; }; { exit 0; }';

const WATCHED = ["NounsetError", "ExitError"] as const;
type Watched = typeof WATCHED[number];

/** The error's own `name`, when it is one the capture watches for. */
function watchedName(value: unknown): Watched | undefined {
  if (typeof value !== "object" || value === null || !Object.hasOwn(value, "name")) {
    return undefined;
  }
  const name = (value as { name: unknown }).name;
  return WATCHED.find((watched) => watched === name);
}

const ordinaryHasInstance = Function.prototype[Symbol.hasInstance];

/**
 * Runs `meet` (which must run {@linkcode MEET_UNBOUND_AND_EXIT} in a `Bash`)
 * while watching `instanceof` checks, then makes an unbound variable end
 * the shell as `exit 1` would. Resolves whether it could; `meet`'s own
 * failure is the caller's.
 */
export async function makeUnboundVariablesFatal(meet: () => Promise<unknown>): Promise<boolean> {
  const seen = new Map<Watched, object>();
  Object.defineProperty(Error, Symbol.hasInstance, {
    configurable: true,
    value(this: unknown, value: unknown): boolean {
      const name = watchedName(value);
      if (name && !seen.has(name)) seen.set(name, value as object);
      return Reflect.apply(ordinaryHasInstance, this, [value]);
    },
  });
  try {
    await meet();
  } finally {
    Reflect.deleteProperty(Error, Symbol.hasInstance);
  }
  const nounset = seen.get("NounsetError");
  const exit = seen.get("ExitError");
  if (!nounset || !exit) return false;
  const nounsetPrototype = Object.getPrototypeOf(nounset);
  const exitPrototype = Object.getPrototypeOf(exit);
  if (Object.getPrototypeOf(nounsetPrototype) !== Object.getPrototypeOf(exitPrototype)) {
    return false;
  }
  Object.setPrototypeOf(nounsetPrototype, exitPrototype);
  Object.defineProperty(nounsetPrototype, "exitCode", { value: 1 });
  return true;
}

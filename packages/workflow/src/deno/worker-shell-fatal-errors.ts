/**
 * Errors that end the shell in bash end it in Worker Shell too: an unbound
 * variable under `set -u` (WS-153) and an arithmetic error in an expansion
 * (WS-165: `$((7/0))`, `$(( 1 + ))`, `$((08))`, `${a[@]:1/0}`).
 *
 * just-bash throws its `NounsetError` and `ArithmeticError` there, but every
 * compound command it runs (a group, an `if`, loop or `case` body, a
 * function) catches an error it does not list as control flow and turns it
 * into a message and status 1 for that command alone, and its script loop
 * goes on to the next statement after an arithmetic error. Only errexit,
 * `exit`, `return`, `break`, `continue` and its limits pass through. Worker
 * Shell wraps each top-level statement of a block in a group (streaming,
 * WS-40), so `set -u; echo "$TYPO"; rm -r "$DIR/"` went on to `rm`, and
 * `while :; do echo $((n / 0)); break; done` never reached its `break` (it
 * printed until the block's time was up). In bash, such an error ends the
 * shell (or the subshell, command substitution or pipeline part that met
 * it) with status 1.
 *
 * just-bash's `exit` has exactly that reach: its `ExitError` passes through
 * every compound command and ends the script, a subshell, a `$( )` or a
 * pipeline part with its status. None of these classes is exported, so the
 * warm-up (worker-shell-child.ts) runs a script that meets each once, while
 * a hook on `Error[Symbol.hasInstance]` watches the `instanceof` checks
 * just-bash makes on them; then the prototypes of `NounsetError` and
 * `ArithmeticError` are made to inherit from `ExitError`'s, with an exit
 * status of 1.
 *
 * Invariants:
 * - The hook only watches: it answers every `instanceof` as the language
 *   does, and it is removed before the warm-up's promise settles, so no
 *   block ever runs with it.
 * - The messages are just-bash's own (`bash: NAME: unbound variable`,
 *   `bash: division by 0`), written where `exit`'s output goes; bash's also
 *   name the expression and its error token.
 * - Where bash treats an arithmetic error as the status of a command, so
 *   does Worker Shell: `(( ))`, `let` and `[[ ]]` catch every error of
 *   their own evaluation before it reaches anything else. A `for (( ))`
 *   header does not, so an error there ends the shell (bash: status 1).
 * - An error the warm-up did not meet, or one that does not share
 *   `ExitError`'s base class (another just-bash), is left as it was:
 *   just-bash's own behaviour stays. The version is pinned
 *   (worker-shell-child-lock.json) and tests hold the behaviour.
 * - The status is 1, bash's under `set -e`, in a subshell or `$( )`, and
 *   for an arithmetic error; bash gives 127 for an unbound variable when
 *   the shell itself exits without errexit.
 *
 * @module
 */

/** Script text that meets each error once, each in a group: an unbound variable, a division by 0, an `exit`. */
export const MEET_FATAL_ERRORS = 'set -u; { : "$__xmd_unbound"; }; { : $((1 / 0)); }; { exit 0; }';

/** The errors made fatal, in the order the warm-up meets them. */
const FATAL = ["NounsetError", "ArithmeticError"] as const;
const WATCHED = [...FATAL, "ExitError"] as const;
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
 * Runs `meet` (which must run {@linkcode MEET_FATAL_ERRORS} in a `Bash`)
 * while watching `instanceof` checks, then makes each error it met end the
 * shell as `exit 1` would. Resolves the names of the errors it changed;
 * `meet`'s own failure is the caller's.
 */
export async function makeShellErrorsFatal(meet: () => Promise<unknown>): Promise<string[]> {
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
  const exit = seen.get("ExitError");
  if (!exit) return [];
  const exitPrototype = Object.getPrototypeOf(exit);
  const changed: string[] = [];
  for (const name of FATAL) {
    const error = seen.get(name);
    if (!error) continue;
    const prototype = Object.getPrototypeOf(error);
    if (Object.getPrototypeOf(prototype) !== Object.getPrototypeOf(exitPrototype)) continue;
    Object.setPrototypeOf(prototype, exitPrototype);
    Object.defineProperty(prototype, "exitCode", { value: 1 });
    changed.push(name);
  }
  return changed;
}

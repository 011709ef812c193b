/**
 * Reads a command line into option values and positionals with the grammar
 * of `node:util`'s `parseArgs` in strict mode with positionals allowed, the
 * way `command-line.ts` used it, without importing `node:util`: its first
 * import loads Deno's Node compatibility layer, about 4–6 ms of CPU of every
 * workflow command, `list` and `status` included (`bench/profile-startup.md`,
 * sixth pass).
 *
 * Invariant: for every command line, this returns what `parseArgs` returns
 * (the same values and positionals), or refuses it where `parseArgs` throws,
 * for the same reason and naming the same option (`argument_reader_test.ts`
 * compares them). That grammar:
 * - `--name=value` and `--name value` give a valued option its value; a
 *   valued option with no value, or whose next argument looks like an option
 *   (`-x`, `--x`), is refused; a switch given a value (`--json=1`) is refused.
 * - `-h` is `--help`; `-hx` is `-h -x`; an unknown option is refused.
 * - `--` ends the options: everything after it is a positional, as is `-`.
 * - A later occurrence of an option replaces an earlier one.
 *
 * @module
 */

/** How a command declares one option: a switch (`boolean`) or a valued option (`string`). */
export interface ArgumentOption {
  /** A switch or a valued option. */
  type: "string" | "boolean";
  /** Its one-letter alias, if any (`h` for `help`). */
  short?: string;
}

/** What a command line holds. */
export interface ReadArguments {
  /** Each option given, by name: its value, or `true` for a switch. */
  values: Record<string, string | boolean | undefined>;
  /** The positionals, in order. */
  positionals: string[];
}

/** Why a command line is refused: an option not declared, or a value that does not fit. */
export interface RefusedArguments {
  /** `unknown-option`, or `invalid-value` (missing, ambiguous, or given to a switch). */
  refused: "unknown-option" | "invalid-value";
  /** The option as typed (`--josn`, `-x`) for an unknown one; its long name otherwise. */
  option: string;
}

/** Reads `args` against `options`: what they hold, or why `parseArgs` would refuse them. */
export function readArguments(
  args: readonly string[],
  options: Readonly<Record<string, ArgumentOption>>,
): ReadArguments | RefusedArguments {
  const values: Record<string, string | boolean | undefined> = Object.create(null);
  const positionals: string[] = [];
  const declared = (name: string) => Object.hasOwn(options, name) ? options[name] : undefined;
  const longOf = (short: string) =>
    Object.keys(options).find((name) => options[name].short === short) ?? short;
  // One option as given: its value (inline after `=`, or the next argument), checked in order.
  const give = (
    name: string,
    typed: string,
    value: string | undefined,
    inline: boolean,
  ): RefusedArguments | undefined => {
    const option = declared(name);
    if (option === undefined) return { refused: "unknown-option", option: typed };
    if (
      (option.type === "string" && value === undefined) ||
      (option.type === "boolean" && value !== undefined) ||
      (!inline && value !== undefined && value.length > 1 && value.startsWith("-"))
    ) return { refused: "invalid-value", option: name };
    values[name] = value ?? true;
  };
  const remaining = [...args];
  let refusal: RefusedArguments | undefined;
  while (remaining.length > 0) {
    const arg = remaining.shift()!;
    const next = remaining[0];
    if (arg === "--") {
      positionals.push(...remaining);
      break;
    }
    if (arg.length < 2 || !arg.startsWith("-")) {
      positionals.push(arg);
    } else if (arg.startsWith("--")) {
      // `--=x` is an option named `=x`: a value follows an `=` only after a name's first letter.
      if (arg.indexOf("=", 3) !== -1) {
        const equals = arg.indexOf("=");
        refusal = give(arg.slice(2, equals), arg.slice(0, equals), arg.slice(equals + 1), true);
      } else {
        const name = arg.slice(2);
        const valued = declared(name)?.type === "string" && next !== undefined;
        refusal = give(name, arg, valued ? remaining.shift() : undefined, false);
      }
    } else if (arg.length === 2) {
      const name = longOf(arg[1]);
      const valued = declared(name)?.type === "string" && next !== undefined;
      refusal = give(name, arg, valued ? remaining.shift() : undefined, false);
    } else if (declared(longOf(arg[1]))?.type !== "string") {
      // A group of short options (`-hx` is `-h -x`); a valued one takes the rest of the group.
      const expanded: string[] = [];
      for (let at = 1; at < arg.length; at++) {
        if (declared(longOf(arg[at]))?.type !== "string" || at === arg.length - 1) {
          expanded.push(`-${arg[at]}`);
        } else {
          expanded.push(`-${arg.slice(at)}`);
          break;
        }
      }
      remaining.unshift(...expanded);
    } else {
      // A valued short option with its value attached (`-ovalue`).
      refusal = give(longOf(arg[1]), arg.slice(0, 2), arg.slice(2), true);
    }
    if (refusal) return refusal;
  }
  return { values, positionals };
}

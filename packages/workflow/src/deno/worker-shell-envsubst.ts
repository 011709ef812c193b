/**
 * `envsubst` in Worker Shell (WS-144), which just-bash lacks ("command not
 * found"): GNU gettext's, the templating step CI scripts run
 * (`envsubst < deploy.tmpl > deploy.yaml`). It copies standard input to
 * standard output with each `$NAME` and `${NAME}` (a name of letters, digits
 * and `_`, not starting with a digit) replaced by the exported variable's
 * value, or by nothing when it is not exported; `${NAME:-word}`, `$1`, `$$`
 * and a lone `$` stay as they are, and a backslash escapes nothing. With a
 * SHELL-FORMAT operand only the names it mentions are replaced; `-v`
 * (`--variables`) prints the names SHELL-FORMAT mentions, one a line, in
 * order. Another option, or a second operand, is refused as GNU's is
 * (status 1).
 *
 * @module
 */
import {
  type Command,
  decodeBytesToUtf8,
  type ExecResult,
  type ResolvedCommandContext,
  // The interpreter runs with no configuration file, so its import names the exact version.
  // deno-lint-ignore no-import-prefix
} from "npm:just-bash@3.4.2";

/** A reference GNU envsubst replaces: `${NAME}` (group 1) or `$NAME` (group 2). */
const REFERENCE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/** The names `format` mentions, in order, each time it mentions one. */
export function namesIn(format: string): string[] {
  return Array.from(format.matchAll(REFERENCE), (match) => match[1] ?? match[2]);
}

/** `text` with the references to `names` (every name when undefined) replaced from `env`. */
export function substitute(
  text: string,
  env: Readonly<Record<string, string>>,
  names?: ReadonlySet<string>,
): string {
  return text.replace(REFERENCE, (reference, braced?: string, bare?: string) => {
    const name = braced ?? bare!;
    if (names !== undefined && !names.has(name)) return reference;
    return Object.hasOwn(env, name) ? env[name] : "";
  });
}

/** GNU's refusal: an option it does not know adds where to look for help. */
function refused(message: string, hint = false): ExecResult {
  const help = hint ? "Try 'envsubst --help' for more information.\n" : "";
  return { stdout: "", stderr: `envsubst: ${message}\n${help}`, exitCode: 1 };
}

/** Worker Shell's `envsubst` (see the module's documentation). */
export const envsubstCommand: Command = {
  name: "envsubst",
  execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    let variables = false;
    const operands: string[] = [];
    for (let index = 0; index < args.length; index++) {
      const arg = args[index];
      if (arg === "--") {
        operands.push(...args.slice(index + 1));
        break;
      }
      if (arg === "-v" || arg === "--variables") variables = true;
      else if (arg.startsWith("--")) {
        return Promise.resolve(refused(`unrecognized option '${arg}'`, true));
      } else if (arg.startsWith("-") && arg !== "-") {
        return Promise.resolve(refused(`invalid option -- '${arg[1]}'`, true));
      } else operands.push(arg);
    }
    if (operands.length > 1) return Promise.resolve(refused("too many arguments"));
    const [format] = operands;
    if (variables) {
      if (format === undefined) return Promise.resolve(refused("missing arguments"));
      const names = namesIn(format);
      return Promise.resolve({
        stdout: names.map((name) => `${name}\n`).join(""),
        stderr: "",
        exitCode: 0,
      });
    }
    const env = ctx.exportedEnv ?? Object.fromEntries(ctx.env);
    const names = format === undefined ? undefined : new Set(namesIn(format));
    const text = decodeBytesToUtf8(ctx.stdin);
    return Promise.resolve({ stdout: substitute(text, env, names), stderr: "", exitCode: 0 });
  },
};

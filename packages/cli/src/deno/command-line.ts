/**
 * One argument grammar for `xmd` commands: `node:util`'s `parseArgs`
 * grammar (`argument-reader.ts`) over a declared command, so `--flag value`
 * and `--flag=value` mean the same everywhere, and every command has its own
 * help page.
 *
 * Invariant: an unknown option or command is refused with a `UsageError`
 * naming it (and the closest known one, when one is close), and the command's
 * `--help`; nothing runs.
 *
 * @module
 */
import { didYouMean } from "@xmd/core/internal";
import { type ArgumentOption, readArguments, type RefusedArguments } from "./argument-reader.ts";
import { UsageError } from "./usage-error.ts";

/** One option of a command. */
export interface OptionSpec {
  /** Long name without `--`. */
  name: string;
  /** The value's placeholder (`<run-id>`); none for a switch. */
  value?: string;
  /** One line saying what it does. */
  description: string;
}

/** A command as its help page and the parser see it. */
export interface CommandSpec {
  /** `xmd workflow status`. */
  command: string;
  /** One line: what the command does. */
  summary: string;
  /**
   * The positionals, as they appear in the synopsis; trailing ones written in
   * brackets (`[<json>|-]`) may be left out.
   */
  positionals: readonly string[];
  /** Its options (`--help` is implied). */
  options: readonly OptionSpec[];
  /** Further lines of explanation, if any. */
  details?: string;
  /** At least one example command line. */
  examples: readonly string[];
}

/** What a command line holds once parsed. */
export interface ParsedCommand {
  /** Option values by name: a string for a valued option, `true` for a switch. */
  values: Record<string, string | boolean | undefined>;
  /** The positionals: as many as the command declares, less optional ones left out. */
  positionals: string[];
  /** `--help` or `-h` was given. */
  help: boolean;
}

/** Parses `args` against `spec`. */
export function parseCommand(spec: CommandSpec, args: readonly string[]): ParsedCommand {
  const options: Record<string, ArgumentOption> = {
    help: { type: "boolean", short: "h" },
  };
  for (const option of spec.options) {
    options[option.name] = { type: option.value === undefined ? "boolean" : "string" };
  }
  const parsed = readArguments(args, options);
  if ("refused" in parsed) throw usageError(spec, parsed);
  const values = parsed.values;
  const help = values.help === true;
  const required = spec.positionals.filter((positional) => !positional.startsWith("[")).length;
  const given = parsed.positionals.length;
  if (!help && (given < required || given > spec.positionals.length)) {
    const expected = spec.positionals.length ? spec.positionals.join(" ") : "no arguments";
    const extra = given > spec.positionals.length
      ? `, not ${parsed.positionals.length} argument${parsed.positionals.length === 1 ? "" : "s"}`
      : "";
    throw new UsageError(`${spec.command} takes ${expected}${extra}: run ${spec.command} --help`);
  }
  return { values, positionals: parsed.positionals, help };
}

/** The help page of `spec`: synopsis, summary, options and examples. */
export function commandHelp(spec: CommandSpec): string {
  const synopsis = [
    spec.command,
    ...spec.options.map((option) => `[--${option.name}${option.value ? ` ${option.value}` : ""}]`),
    ...spec.positionals,
  ].join(" ");
  const rows = [
    ...spec.options.map((option) => [
      `--${option.name}${option.value ? ` ${option.value}` : ""}`,
      option.description,
    ]),
    ["-h, --help", "show this help"],
  ];
  const width = Math.max(...rows.map(([left]) => left.length));
  return [
    `Usage: ${synopsis}`,
    "",
    spec.summary,
    ...(spec.details ? ["", spec.details] : []),
    "",
    "Options:",
    ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`),
    "",
    spec.examples.length === 1 ? "Example:" : "Examples:",
    ...spec.examples.map((example) => `  ${example}`),
    "",
  ].join("\n");
}

/** An unknown command, named with the closest known one if any. */
export function unknownCommand(
  typed: string,
  known: readonly string[],
  where: string,
): UsageError {
  const close = didYouMean(typed, known);
  return new UsageError(
    `Unknown command "${typed}"${close ? ` (did you mean "${close}"?)` : ""}: run ${where} --help`,
  );
}

function usageError(spec: CommandSpec, refusal: RefusedArguments): UsageError {
  if (refusal.refused === "unknown-option") {
    const typed = refusal.option;
    const close = didYouMean(
      typed.replace(/^-+/, ""),
      spec.options.map((option) => option.name),
    );
    return new UsageError(
      `Unknown option "${typed}" for ${spec.command}${
        close ? ` (did you mean "--${close}"?)` : ""
      }: run ${spec.command} --help`,
    );
  }
  const name = refusal.option;
  const option = spec.options.find((candidate) => candidate.name === name);
  return new UsageError(
    option?.value
      ? `Option --${option.name} needs a value: write --${option.name} ${option.value}`
      : `Option --${name} takes no value: run ${spec.command} --help`,
  );
}

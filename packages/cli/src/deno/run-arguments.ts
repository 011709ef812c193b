/**
 * The grammar of `xmd run`:
 *
 * ```
 * xmd run [--journal=<file> | --replay=<file>] [--answer <name>=<json>]…
 *         [--props=<json>] [--props-<name>=<value>]… [--no-secret-detection]
 *         <document.md[#Section/Sub]> [--help]
 * ```
 *
 * @module
 */
import { didYouMean } from "@xmd/core/internal";
import { UsageError } from "./usage-error.ts";

/** Parsed `xmd run` arguments. */
export interface RunArguments {
  /** The document path as typed. */
  document?: string;
  /** `Section/Sub` after `#`. */
  target?: string;
  /** Start a new JSON Lines journal. */
  journal?: string;
  /** Replay (and continue) an existing journal. */
  replay?: string;
  /** `--answer name=json` pairs. */
  answers: Map<string, string>;
  /** `--props=<json>`. */
  propsJson?: string;
  /** `--props-<name>` values by option name (`props-dry-run`). */
  propOptions: Map<string, string[]>;
  /** `--no-secret-detection`. */
  noSecretDetection: boolean;
  /** `--help`. */
  help: boolean;
}

const VALUE_FLAGS = new Set(["journal", "replay", "answer", "props"]);

/** Parses the arguments after `run` (`command` names it in messages: `xmd workflow start`). */
export function parseRunArguments(
  args: readonly string[],
  command = "xmd run",
): RunArguments {
  const result: RunArguments = {
    answers: new Map(),
    propOptions: new Map(),
    noSecretDetection: false,
    help: false,
  };
  const positionals: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      positionals.push(...args.slice(index + 1));
      break;
    }
    if (!arg.startsWith("--")) {
      if (arg.startsWith("-") && arg !== "-") {
        if (arg === "-h") {
          result.help = true;
          continue;
        }
        throw new UsageError(`Unknown option "${arg}": run ${command} --help for the options`);
      }
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    let value = eq < 0 ? undefined : arg.slice(eq + 1);
    if (name.startsWith("props-")) {
      const list = result.propOptions.get(name) ?? [];
      list.push(value ?? "true");
      result.propOptions.set(name, list);
      continue;
    }
    if (name === "help") {
      result.help = true;
      continue;
    }
    if (name === "no-secret-detection") {
      result.noSecretDetection = true;
      continue;
    }
    if (!VALUE_FLAGS.has(name)) {
      const close = didYouMean(name, [...VALUE_FLAGS, "help", "no-secret-detection"]);
      throw new UsageError(
        `Unknown option "--${name}"${
          close ? ` (did you mean "--${close}"?)` : ""
        }: run ${command} --help for the options`,
      );
    }
    if (value === undefined) {
      value = args[++index];
      if (value === undefined) {
        throw new UsageError(`Option --${name} needs a value: write --${name}=<value>`);
      }
    }
    if (value === "" && (name === "journal" || name === "replay")) {
      // An empty path would name the current folder.
      throw new UsageError(`Option --${name} needs a file path: write --${name}=<file.jsonl>`);
    }
    switch (name) {
      case "journal":
        result.journal = value;
        break;
      case "replay":
        result.replay = value;
        break;
      case "props":
        result.propsJson = value;
        break;
      case "answer": {
        const at = value.indexOf("=");
        if (at <= 0) {
          throw new UsageError(
            `Invalid --answer: write --answer <name>=<json>, for example --answer approval='{"ok":true}'`,
          );
        }
        result.answers.set(value.slice(0, at), value.slice(at + 1));
        break;
      }
    }
  }
  if (result.journal !== undefined && result.replay !== undefined) {
    throw new UsageError(
      "Options --journal and --replay cannot be combined: --replay continues the journal it names",
    );
  }
  if (positionals.length > 1) {
    throw new UsageError(
      `Too many arguments (${positionals.length}): ${command} takes one document path`,
    );
  }
  if (positionals.length === 1) {
    const [path] = positionals;
    const hash = path.indexOf("#");
    if (hash >= 0) {
      result.document = path.slice(0, hash);
      result.target = path.slice(hash + 1);
    } else {
      result.document = path;
    }
  }
  return result;
}

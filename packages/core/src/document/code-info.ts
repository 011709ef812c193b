/**
 * Code block info strings: `<lang> <modifiers…>`. A block runs only with
 * `exec`; its other modifiers are validated strictly so a typo never turns a
 * checked block into a silently different one.
 *
 * @module
 */
import { didYouMean } from "../text/did-you-mean.ts";
import { DocumentError } from "./document-error.ts";
import type { SourcePosition } from "./source-position.ts";

/** The modifiers of an `exec` block. */
export interface CodeModifiers {
  /** Whether the block has `exec`. */
  exec: boolean;
  /** `as="name"`. */
  as?: string;
  /** `timeout=…` in milliseconds, if given. */
  timeoutMs?: number;
  /** `silent`. */
  silent: boolean;
}

const TOKEN = /\s*([A-Za-z_][\w-]*)(?:=(?:"([^"]*)"|'([^']*)'|([^\s"']+)))?/y;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|min|h)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, min: 60_000, h: 3_600_000 };
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses a duration such as `500ms`, `30s`, `5min`, `1h` into milliseconds, or `undefined`. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNIT_MS[match[2]]);
}

/**
 * Parses the modifiers after the language. Blocks without `exec` accept any
 * meta (they are plain Markdown); `exec` blocks refuse unknown modifiers.
 */
export function parseCodeModifiers(meta: string | null, position: SourcePosition): CodeModifiers {
  const text = meta ?? "";
  const tokens: { name: string; value?: string }[] = [];
  TOKEN.lastIndex = 0;
  let index = 0;
  while (index < text.length) {
    if (/^\s*$/.test(text.slice(index))) break;
    TOKEN.lastIndex = index;
    const match = TOKEN.exec(text);
    if (!match) {
      if (!tokens.some((token) => token.name === "exec")) return { exec: false, silent: false };
      throw new DocumentError(
        `Cannot read the code block modifiers "${text}": write them as exec, silent, timeout=30s or as="name"`,
        position,
      );
    }
    tokens.push({ name: match[1], value: match[2] ?? match[3] ?? match[4] });
    index = TOKEN.lastIndex;
  }
  if (!tokens.some((token) => token.name === "exec" && token.value === undefined)) {
    return { exec: false, silent: false };
  }
  const modifiers: CodeModifiers = { exec: true, silent: false };
  const seen = new Set<string>();
  for (const token of tokens) {
    if (seen.has(token.name)) {
      throw new DocumentError(
        `Duplicate code block modifier "${token.name}": give it once`,
        position,
      );
    }
    seen.add(token.name);
    switch (token.name) {
      case "exec":
        break;
      case "silent":
        if (token.value !== undefined) {
          throw new DocumentError(`Modifier "silent" takes no value: write silent`, position);
        }
        modifiers.silent = true;
        break;
      case "timeout": {
        const ms = token.value === undefined ? undefined : parseDuration(token.value);
        if (ms === undefined || ms <= 0) {
          throw new DocumentError(
            `Invalid timeout: write a positive duration such as timeout=500ms, timeout=30s or timeout=5min`,
            position,
          );
        }
        modifiers.timeoutMs = ms;
        break;
      }
      case "as":
        if (token.value === undefined || !IDENTIFIER.test(token.value)) {
          throw new DocumentError(
            `Invalid as: write as="name" with a name made of letters, digits and _`,
            position,
          );
        }
        modifiers.as = token.value;
        break;
      default:
        throw new DocumentError(
          `Unknown code block modifier "${token.name}"${
            suggestion(didYouMean(token.name, MODIFIERS))
          }: exec blocks accept silent, timeout=<duration> and as="name"`,
          position,
        );
    }
  }
  return modifiers;
}

const MODIFIERS = ["exec", "silent", "timeout", "as"];

function suggestion(name: string | undefined): string {
  return name === undefined ? "" : ` (did you mean "${name}"?)`;
}

/**
 * `printf` and `echo -e` write the byte an escape names (WS-143). just-bash's
 * `printf '\x80'`, `printf '\377'`, `printf '%b' '\x1f\x8b'` and
 * `echo -e '\xff'` wrote the character U+0080 (or U+00FF) as UTF-8, two
 * bytes, where bash writes the one byte: a gzip header or any binary fixture
 * written that way came out wrong. These commands hand each escape of a byte
 * from 0x80 to 0xFF (`\xHH`, `\NNN`, and `\0NNN` where `echo -e` and `%b`
 * read it) to just-bash's command as a placeholder character of Unicode's
 * private use area (U+E080 to U+E0FF), and write just-bash's output as
 * UTF-8 with each placeholder as its byte. An escaped backslash (`\\x80`)
 * stays text. A command whose format or arguments already hold such a
 * character, `printf -v`, a `*` width (which moves the arguments `%b` reads)
 * and output just-bash already gives as bytes are just-bash's, unchanged;
 * so is a block whose text holds no such escape ({@linkcode BYTE_ESCAPE}),
 * which never registers these commands.
 *
 * @module
 */
import {
  bytesOutput,
  type Command,
  type ExecResult,
  type ResolvedCommandContext,
  unsafeBytesFromLatin1,
  // The interpreter runs with no configuration file, so its import names the exact version.
  // deno-lint-ignore no-import-prefix
} from "npm:just-bash@3.4.2";

/**
 * What a block's text holds when it may escape a byte from 0x80 to 0xFF:
 * `\x8`–`\xf`, or an octal `\2NN`, `\3NN` (with `\0` before them too). A
 * block without one runs just-bash's `printf` and `echo` (these cost each
 * call a second command context, about 0.05 ms).
 */
export const BYTE_ESCAPE = /\\(x[89a-fA-F]|0?[23][0-7]{2})/;

const PLACEHOLDER = 0xe000;
const PLACEHOLDERS = /[\ue080-\ue0ff]/;

/**
 * `text` with each escape of a byte from 0x80 to 0xFF replaced by its
 * placeholder; `zeroOctal` reads `\0NNN` (`echo -e`, `%b`), `plainOctal`
 * reads `\NNN` (a format, `%b`).
 */
export function placeholdersFor(text: string, zeroOctal: boolean, plainOctal: boolean): string {
  let out = "";
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char !== "\\" || at + 1 === text.length) {
      out += char;
      continue;
    }
    const rest = text.slice(at + 1);
    const escape = /^x([0-9a-fA-F]{1,2})/.exec(rest) ??
      (zeroOctal ? /^0([0-7]{1,3})/.exec(rest) : null) ??
      (plainOctal ? /^([0-7]{1,3})/.exec(rest) : null);
    const value = escape ? parseInt(escape[1], escape[0][0] === "x" ? 16 : 8) : -1;
    if (escape && value >= 0x80 && value <= 0xff) {
      out += String.fromCharCode(PLACEHOLDER + value);
      at += escape[0].length;
      continue;
    }
    // Any other escape (an escaped backslash too) is the command's: copied whole.
    out += char + text[at + 1];
    at++;
  }
  return out;
}

/** `text` as bytes: UTF-8, each placeholder its byte; as the latin1 string just-bash's bytes are. */
function bytesOf(text: string): string {
  let latin1 = "";
  const encoder = new TextEncoder();
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= PLACEHOLDER + 0x80 && code <= PLACEHOLDER + 0xff) {
      latin1 += String.fromCharCode(code - PLACEHOLDER);
    } else {
      for (const byte of encoder.encode(char)) latin1 += String.fromCharCode(byte);
    }
  }
  return latin1;
}

/** just-bash's `result` with its placeholders written as their bytes. */
function withBytes(result: ExecResult): ExecResult {
  if (result.stdoutKind === "bytes" || result.stdoutEncoding === "binary") return result;
  if (!PLACEHOLDERS.test(result.stdout)) return result;
  return { ...result, ...bytesOutput(unsafeBytesFromLatin1(bytesOf(result.stdout))) };
}

/** The conversions of a printf format in order (`%%` aside), or undefined with a `*` width. */
function conversionsOf(format: string): string[] | undefined {
  const conversions: string[] = [];
  for (const match of format.matchAll(/%(%|[-+ #0]*(\*|\d+)?(?:\.(\*|\d+)?)?([a-zA-Z]))/g)) {
    if (match[1] === "%") continue;
    if (match[2] === "*" || match[3] === "*") return undefined;
    conversions.push(match[4]);
  }
  return conversions;
}

/** Worker Shell's `printf`: just-bash's, writing the bytes escapes name (see above). */
export const printfCommand: Command = {
  name: "printf",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    const own = ctx.origCommand;
    if (own === undefined) throw new Error("printf needs just-bash's own printf");
    const at = args[0] === "--" ? 1 : 0;
    const format = args[at];
    if (format === undefined || args[0] === "-v" || args.some((arg) => PLACEHOLDERS.test(arg))) {
      return await own(args);
    }
    const conversions = conversionsOf(format);
    if (conversions === undefined) return await own(args);
    const spelled = [...args];
    spelled[at] = placeholdersFor(format, false, true);
    if (conversions.length > 0) {
      for (let index = at + 1; index < args.length; index++) {
        if (conversions[(index - at - 1) % conversions.length] === "b") {
          spelled[index] = placeholdersFor(args[index], true, true);
        }
      }
    }
    if (spelled.every((arg, index) => arg === args[index])) return await own(args);
    return withBytes(await own(spelled));
  },
};

/** Worker Shell's `echo`: just-bash's, writing the bytes `-e` escapes name (see above). */
export const echoCommand: Command = {
  name: "echo",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    const own = ctx.origCommand;
    if (own === undefined) throw new Error("echo needs just-bash's own echo");
    let escapes = false;
    let first = 0;
    while (first < args.length && /^-[neE]+$/.test(args[first])) {
      for (const flag of args[first].slice(1)) {
        if (flag === "e") escapes = true;
        if (flag === "E") escapes = false;
      }
      first++;
    }
    if (!escapes || args.some((arg) => PLACEHOLDERS.test(arg))) return await own(args);
    const spelled = args.map((arg, index) =>
      index < first ? arg : placeholdersFor(arg, true, false)
    );
    if (spelled.every((arg, index) => arg === args[index])) return await own(args);
    return withBytes(await own(spelled));
  },
};

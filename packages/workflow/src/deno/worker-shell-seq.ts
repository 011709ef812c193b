/**
 * `seq -f FORMAT` in Worker Shell (WS-161): GNU's `seq` prints each number
 * with a printf format of one floating-point directive (`seq -f
 * 'part%03g' 3`); just-bash's refused the option. With `-f` (`-fFORMAT`,
 * `--format=FORMAT`, `--format FORMAT`) this command prints the sequence
 * itself: FIRST, INCREMENT and LAST as GNU reads them (1 when left out),
 * each number from FIRST by INCREMENT up to LAST (down, for a negative
 * INCREMENT) formatted as C's printf formats it (`%e`, `%f`, `%g` and their
 * capitals, with flags `-+ #0`, a width and a precision; `%%` is `%`),
 * joined by `-s SEPARATOR` (a newline when not given) and ended by a
 * newline. Any other `seq` is just-bash's, unchanged.
 *
 * Invariants:
 * - A format with no directive, more than one, or another conversion
 *   (`%d`) is GNU's refusal, status 1, and nothing is printed; so is `-f`
 *   with `-w`.
 * - The last number is printed when it is within a ten-billionth of an
 *   increment of LAST, as GNU's long doubles give `seq 0 0.1 0.3` its 0.3.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";

/** One directive of a format: `%[flags][width][.precision]conversion`. */
interface Directive {
  flags: string;
  width: number;
  precision: number | undefined;
  conversion: string;
}

const DIRECTIVE = /%([-+ #0']*)(\d*)(?:\.(\d*))?([a-zA-Z%])/g;

/** The text before and after the format's one directive, or GNU's refusal. */
export function parseFormat(format: string): [string, Directive, string] | string {
  let found: [number, number, Directive] | undefined;
  for (const match of format.matchAll(DIRECTIVE)) {
    if (match[4] === "%") continue;
    if (!"eEfFgGaA".includes(match[4])) {
      return `seq: format '${format}' has unknown %${match[4]} directive`;
    }
    if (found) return `seq: format '${format}' has too many % directives`;
    found = [match.index, match.index + match[0].length, {
      flags: match[1],
      width: match[2] === "" ? 0 : Number(match[2]),
      precision: match[3] === undefined ? undefined : Number(match[3] || "0"),
      conversion: match[4],
    }];
  }
  if (!found) return `seq: format '${format}' has no % directive`;
  const literal = (text: string) => text.replaceAll("%%", "%");
  return [literal(format.slice(0, found[0])), found[2], literal(format.slice(found[1]))];
}

/** `value` in C's `%e` spelling: at least two digits of exponent. */
function exponential(value: number, precision: number): string {
  return value.toExponential(precision).replace(/e([+-])(\d)$/, "e$10$2");
}

/** The digits of `value` under `directive` (its sign included), before padding. */
function digits(value: number, directive: Directive): string {
  const upper = directive.conversion === directive.conversion.toUpperCase();
  if (!Number.isFinite(value)) {
    const text = Number.isNaN(value) ? "nan" : value < 0 ? "-inf" : "inf";
    return upper ? text.toUpperCase() : text;
  }
  const kind = directive.conversion.toLowerCase();
  const alternate = directive.flags.includes("#");
  let text: string;
  if (kind === "f") {
    text = value.toFixed(directive.precision ?? 6);
  } else if (kind === "e") {
    text = exponential(value, directive.precision ?? 6);
  } else if (kind === "a") {
    // Hexadecimal floats are rare in a seq format; C's %g spelling stands in.
    text = value.toString();
  } else {
    const significant = directive.precision === 0 ? 1 : directive.precision ?? 6;
    const exponent = value === 0 ? 0 : Number(value.toExponential(significant - 1).split("e")[1]);
    text = significant > exponent && exponent >= -4
      ? value.toFixed(significant - 1 - exponent)
      : exponential(value, significant - 1);
    if (!alternate) {
      // %g drops the fraction's trailing zeros, and its point when nothing is left.
      const [mantissa, power] = text.split("e");
      const trimmed = mantissa.includes(".")
        ? mantissa.replace(/0+$/, "").replace(/\.$/, "")
        : mantissa;
      text = power === undefined ? trimmed : `${trimmed}e${power}`;
    }
  }
  if (alternate && !text.includes(".") && kind !== "a") text = text.replace(/(?=e|$)/, ".");
  if (upper) text = text.toUpperCase();
  if (!text.startsWith("-")) {
    if (directive.flags.includes("+")) text = `+${text}`;
    else if (directive.flags.includes(" ")) text = ` ${text}`;
  }
  return text;
}

/** `value` formatted by `directive`, padded to its width. */
export function formatted(value: number, directive: Directive): string {
  const text = digits(value, directive);
  const pad = directive.width - text.length;
  if (pad <= 0) return text;
  if (directive.flags.includes("-")) return text + " ".repeat(pad);
  if (directive.flags.includes("0") && Number.isFinite(value)) {
    const sign = /^[-+ ]/.test(text) ? text[0] : "";
    return sign + "0".repeat(pad) + text.slice(sign.length);
  }
  return " ".repeat(pad) + text;
}

/** What a `seq` with `-f` asks, or undefined for any other. */
interface SeqLine {
  format: string;
  separator: string;
  equalWidth: boolean;
  operands: string[];
}

function readSeqLine(args: readonly string[]): SeqLine | undefined {
  const line: SeqLine = { format: "", separator: "\n", equalWidth: false, operands: [] };
  let format: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    // A negative number is an operand, as GNU reads it.
    if (line.operands.length > 0 || !arg.startsWith("-") || /^-\d|^-\.\d/.test(arg)) {
      line.operands.push(arg);
    } else if (arg === "-f" || arg === "--format") format = args[++index];
    else if (arg.startsWith("--format=")) format = arg.slice(9);
    else if (arg.startsWith("-f")) format = arg.slice(2);
    else if (arg === "-s" || arg === "--separator") line.separator = args[++index] ?? "";
    else if (arg.startsWith("--separator=")) line.separator = arg.slice(12);
    else if (arg.startsWith("-s")) line.separator = arg.slice(2);
    else if (arg === "-w" || arg === "--equal-width") line.equalWidth = true;
    else return undefined;
  }
  if (format === undefined) return undefined;
  line.format = format;
  return line;
}

function refused(message: string): ExecResult {
  return { stdout: "", stderr: `${message}\n`, exitCode: 1 };
}

/** Worker Shell's `seq` (see the module's documentation). */
export const seqCommand: Command = {
  name: "seq",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    if (ctx.origCommand === undefined) throw new Error("seq needs just-bash's own seq");
    const line = readSeqLine(args);
    if (line === undefined) return await ctx.origCommand(args);
    if (line.equalWidth) {
      return refused(
        "seq: format string may not be specified when printing equal width strings\nTry 'seq --help' for more information.",
      );
    }
    const parsed = parseFormat(line.format);
    if (typeof parsed === "string") return refused(parsed);
    const numbers = line.operands.map(Number);
    const bad = line.operands.find((operand, index) =>
      operand.trim() === "" || Number.isNaN(numbers[index])
    );
    if (bad !== undefined) {
      return refused(
        `seq: invalid floating point argument: '${bad}'\nTry 'seq --help' for more information.`,
      );
    }
    if (numbers.length === 0 || numbers.length > 3) {
      return refused(
        numbers.length === 0 ? "seq: missing operand" : `seq: extra operand '${line.operands[3]}'`,
      );
    }
    const [first, increment, last] = numbers.length === 1
      ? [1, 1, numbers[0]]
      : numbers.length === 2
      ? [numbers[0], 1, numbers[1]]
      : numbers;
    if (increment === 0) return refused(`seq: invalid Zero increment value: '${line.operands[1]}'`);
    const [before, directive, after] = parsed;
    const slack = Math.abs(increment) * 1e-10;
    const bound = ctx.limits?.maxStringLength ?? Infinity;
    const out: string[] = [];
    let length = 0;
    for (let step = 0;; step++) {
      const value = first + step * increment;
      if (increment > 0 ? value > last + slack : value < last - slack) break;
      const text = before + formatted(value, directive) + after;
      length += text.length + line.separator.length;
      if (length > bound) return refused(`seq: output exceeds ${bound} characters`);
      out.push(text);
    }
    return {
      stdout: out.length === 0 ? "" : `${out.join(line.separator)}\n`,
      stderr: "",
      exitCode: 0,
    };
  },
};

/**
 * `date -d` with relative items (WS-160): GNU's `date -d '+1 day'`,
 * `-d '2 hours ago'`, `-d '2020-01-31 +1 month'`, `-d 'next week'`; just-bash's
 * `date` read only absolute dates and refused these (`invalid date`). The
 * items at the end of the string (`[+-]N UNIT`, also with the sign apart as
 * `+ N UNIT` (WS-188), `next UNIT`, `last UNIT`, a
 * bare `UNIT` for one, then an optional `ago` that turns them all back) are
 * taken off; what is before them is read by just-bash's `date` itself (empty
 * is now), the items are added to it (years and months on the calendar, a
 * month's overflow carried as GNU's is, `2020-01-31 +1 month` being March 2;
 * days, weeks and fortnights as whole days; hours, minutes and seconds as
 * time), and just-bash's `date` prints the result, given as `@SECONDS`, with
 * every other option as it was.
 *
 * Invariants:
 * - A `-d` string without such items, and a `date` without `-d`, is just-
 *   bash's, unchanged.
 * - The calendar is UTC's, as just-bash's `date` reads a date without `TZ`;
 *   under a `TZ` with daylight saving, an item of days that crosses a change
 *   is 24 hours, where GNU's keeps the wall clock.
 * - A string this takes apart but whose base just-bash cannot read, or is
 *   `@SECONDS` (which GNU reads only alone), is GNU's refusal of the whole
 *   string: `date: invalid date '…'`, status 1.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult, ResolvedCommandContext } from "npm:just-bash@3.4.2";

type Unit = "year" | "month" | "day" | "second";

/** Each unit GNU reads, as an amount of one of four kinds. */
const UNITS: ReadonlyMap<string, [Unit, number]> = new Map([
  ["year", ["year", 1]],
  ["month", ["month", 1]],
  ["fortnight", ["day", 14]],
  ["week", ["day", 7]],
  ["day", ["day", 1]],
  ["hour", ["second", 3600]],
  ["minute", ["second", 60]],
  ["min", ["second", 60]],
  ["second", ["second", 1]],
  ["sec", ["second", 1]],
]);

function unitOf(word: string | undefined): [Unit, number] | undefined {
  if (word === undefined) return undefined;
  const lower = word.toLowerCase();
  return UNITS.get(lower) ?? (lower.endsWith("s") ? UNITS.get(lower.slice(0, -1)) : undefined);
}

/** A `-d` string taken apart: what just-bash reads, and the items to add to it. */
export interface RelativeDate {
  base: string;
  items: [Unit, number][];
}

/** `text` taken apart, or undefined when it ends in no relative item. */
export function relativeDate(text: string): RelativeDate | undefined {
  const words = text.trim().split(/\s+/).filter((word) => word !== "");
  let end = words.length;
  const ago = words[end - 1]?.toLowerCase() === "ago";
  if (ago) end--;
  const items: [Unit, number][] = [];
  while (end > 0) {
    const unit = unitOf(words[end - 1]);
    if (unit === undefined) break;
    const before = words[end - 2]?.toLowerCase();
    let count = 1;
    let used = 1;
    if (before !== undefined && /^[+-]?\d+$/.test(before)) {
      count = Number(before);
      used = 2;
      // A sign written apart from its number (`+ 1 day`), as GNU reads it (WS-188).
      const sign = words[end - 3];
      if (/^\d/.test(before) && (sign === "+" || sign === "-")) {
        count *= sign === "-" ? -1 : 1;
        used = 3;
      }
    } else if (before === "next" || before === "last") {
      count = before === "next" ? 1 : -1;
      used = 2;
    }
    items.unshift([unit[0], count * unit[1] * (ago ? -1 : 1)]);
    end -= used;
  }
  if (items.length === 0) return undefined;
  return { base: words.slice(0, end).join(" "), items };
}

/** `seconds` (since the epoch) with `items` added, on UTC's calendar. */
export function added(seconds: number, items: readonly [Unit, number][]): number {
  const date = new Date(seconds * 1000);
  for (const [unit, amount] of items) {
    if (unit === "year") date.setUTCFullYear(date.getUTCFullYear() + amount);
    else if (unit === "month") date.setUTCMonth(date.getUTCMonth() + amount);
    else if (unit === "day") date.setUTCDate(date.getUTCDate() + amount);
    else date.setTime(date.getTime() + amount * 1000);
  }
  return Math.floor(date.getTime() / 1000);
}

/** Where `args` give `-d`'s string: the index of the word holding it, and its prefix there. */
function dateOption(args: readonly string[]): { index: number; prefix: string } | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "-d" || arg === "--date") return { index: index + 1, prefix: "" };
    if (arg.startsWith("--date=")) return { index, prefix: "--date=" };
    if (arg.startsWith("-d") && arg.length > 2 && !arg.startsWith("--")) {
      return { index, prefix: "-d" };
    }
  }
  return undefined;
}

/** Worker Shell's `date` (see the module's documentation). */
export const dateCommand: Command = {
  name: "date",
  async execute(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
    const original = ctx.origCommand;
    if (original === undefined) throw new Error("date needs just-bash's own date");
    const option = dateOption(args);
    const text = option && args[option.index]?.slice(option.prefix.length);
    const relative = text === undefined ? undefined : relativeDate(text);
    if (option === undefined || relative === undefined) return await original(args);
    let seconds = Math.floor(Date.now() / 1000);
    // GNU reads `@SECONDS` only alone.
    if (relative.base.startsWith("@")) {
      return { stdout: "", stderr: `date: invalid date '${text}'\n`, exitCode: 1 };
    }
    if (relative.base !== "") {
      // Read as the command reads it: in UTC with `-u`, else in `TZ`'s zone.
      const utc = args.some((arg) =>
        arg === "--utc" || arg === "--universal" || /^-[IR]*u[uIR]*$/.test(arg)
      );
      const base = await original([...(utc ? ["-u"] : []), "-d", relative.base, "+%s"]);
      const read = Number(base.stdout.trim());
      if (base.exitCode !== 0 || !Number.isFinite(read)) {
        return { stdout: "", stderr: `date: invalid date '${text}'\n`, exitCode: 1 };
      }
      seconds = read;
    }
    const rewritten = [...args];
    rewritten[option.index] = `${option.prefix}@${added(seconds, relative.items)}`;
    return await original(rewritten);
  },
};

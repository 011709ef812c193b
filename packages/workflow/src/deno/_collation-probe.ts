/**
 * Run as the interpreter process is (no permission, its environment): prints
 * `{ checked, mismatches }` as JSON, comparing the plain-string
 * `localeCompare` of `worker-shell-collation.ts` with ICU's over every pair
 * of short plain strings, just-bash's option names and seeded random ones.
 *
 * @module
 */
import { collatePlainStringsWithoutIcu } from "./worker-shell-collation.ts";

const icu = String.prototype.localeCompare;
collatePlainStringsWithoutIcu();

const strings = new Set<string>([
  "allexport",
  "braceexpand",
  "errexit",
  "hashall",
  "interactive-comments",
  "noclobber",
  "noexec",
  "noglob",
  "nounset",
  "pipefail",
  "posix",
  "verbose",
  "xtrace",
  "a-b",
  "ab",
  "a-",
  // Not plain: ICU answers these, and every comparison with them.
  "a_",
  "A",
  "a.b",
  "B-",
  "é",
  "a b",
  "Z",
]);
const short = ["-", "0", "5", "9", "a", "b", "m", "y", "z"];
const grow = (prefixes: string[]) => prefixes.flatMap((prefix) => short.map((c) => prefix + c));
for (
  const text of [
    [""],
    ...[1, 2, 3].map((n) => {
      let level = [""];
      for (let i = 0; i < n; i++) level = grow(level);
      return level;
    }),
  ].flat()
) strings.add(text);
const alphabet = "-0123456789abcdefghijklmnopqrstuvwxyz";
let seed = 12345;
const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
for (let i = 0; i < 400; i++) {
  let text = "";
  for (let length = Math.floor(next() * 14); length > 0; length--) {
    text += alphabet[Math.floor(next() * alphabet.length)];
  }
  strings.add(text);
}

const list = [...strings];
const mismatches: { a: string; b: string; icu: number; plain: number }[] = [];
let checked = 0;
for (const a of list) {
  for (const b of list) {
    checked++;
    const expected = Reflect.apply(icu, a, [b]) as number;
    const got = a.localeCompare(b);
    if (expected !== got && mismatches.length < 5) {
      mismatches.push({ a, b, icu: expected, plain: got });
    }
  }
}
console.log(JSON.stringify({ checked, mismatches }));

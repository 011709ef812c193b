import assert from "node:assert/strict";
import { assertBashCases } from "./_test-bash-cases.ts";
import { perlPattern } from "./worker-shell-grep-perl.ts";

/**
 * `grep -P` with a leading lookbehind or `(?i)` (WS-187), with what GNU grep
 * and bash 5.2 write: just-bash's `-P` engine refused a lookbehind as an
 * invalid regular expression (status 2) and did not read `(?i)`.
 */
Deno.test("worker shell: grep -P reads a leading lookbehind and (?i), as GNU grep does", async () => {
  await assertBashCases([
    ["echo \"foo=bar\" | grep -oP '(?<=foo=)\\w+'", "bar\n", 0],
    ["echo \"version: 1.2.3\" | grep -oP '\\d+\\.\\d+\\.\\d+'", "1.2.3\n", 0],
    ["echo \"a1b2\" | grep -P '\\d'", "a1b2\n", 0],
    ["echo \"key=val\" | grep -oP 'key=\\K\\w+'", "val\n", 0],
    ["echo \"abc\" | grep -P '(?i)ABC'", "abc\n", 0],
    ["echo \"x  y\" | grep -oP '\\s+' | wc -c", "3\n", 0],
    ["echo \"tag v1.0\" | grep -oP '(?<=v)[0-9.]+'", "1.0\n", 0],
    [
      'printf \'{"version": "1.4.2"}\\n\' > p.json; grep -oP \'(?<="version": ")[^"]+\' p.json',
      "1.4.2\n",
      0,
    ],
    ["printf 'a=1\\nb=2\\n' | grep -oPe '(?<=b=)\\d'", "2\n", 0],
    ["echo \"ABC\" | grep -oP '(?i)(?<=a)b'", "B\n", 0],
    ['echo "no match" | grep -P \'(?<=x)y\'; echo "rc $?"', "rc 1\n", 0],
    ["echo \"(a)b\" | grep -oP '(?<=\\(a\\))b'", "b\n", 0],
    ['echo "x[)]y" | grep -oP \'(?<=[)])\\]y\' ; echo "rc $?"', "]y\nrc 0\n", 0],
  ], { fresh: true });
});

Deno.test("worker shell: a -P pattern is given as \\K only for a leading, balanced lookbehind", () => {
  assert.deepEqual(perlPattern("(?<=v)[0-9.]+"), { pattern: "v\\K[0-9.]+", ignoreCase: false });
  assert.deepEqual(perlPattern("(?i)(?<=(a|b))c"), { pattern: "(a|b)\\Kc", ignoreCase: true });
  assert.deepEqual(perlPattern("x(?<=x)y"), { pattern: "x(?<=x)y", ignoreCase: false });
  assert.deepEqual(perlPattern("(?<!x)y"), { pattern: "(?<!x)y", ignoreCase: false });
  assert.deepEqual(perlPattern("(?<=[)])y"), { pattern: "[)]\\Ky", ignoreCase: false });
  assert.deepEqual(perlPattern("(?<=unbalanced"), { pattern: "(?<=unbalanced", ignoreCase: false });
});

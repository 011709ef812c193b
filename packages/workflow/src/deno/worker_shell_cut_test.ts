import assert from "node:assert/strict";
import { assertBashCases } from "./_test-bash-cases.ts";
import { rangesOf } from "./worker-shell-cut.ts";

/**
 * `cut --output-delimiter` and `--complement` (WS-190), with what GNU cut
 * and bash 5.2 write: just-bash's `cut` refused both (`unrecognized
 * option`, status 1).
 */
Deno.test("worker shell: cut --output-delimiter and --complement cut as GNU cut does", async () => {
  await assertBashCases([
    ["echo \"a b c\" | cut -d' ' -f1,3 --output-delimiter=:", "a:c\n", 0],
    ['echo "a:b:c:d" | cut -d: --complement -f2', "a:c:d\n", 0],
    ["echo \"a:b:c:d\" | cut -d: -f2- --output-delimiter=' | '", "b | c | d\n", 0],
    ["printf 'a\\tb\\tc\\n' | cut -f2,3 --output-delimiter=,", "b,c\n", 0],
    ['echo "abcdef" | cut -c2-3,5 --output-delimiter=-', "bc-e\n", 0],
    ['echo "abcdef" | cut --complement -c2-3', "adef\n", 0],
    ["printf 'x:y\\nnodelim\\n' | cut -d: -f2 -s --output-delimiter=,", "y\n", 0],
    ["echo \"a:b:c\" | cut -d: -f1,2 --output-delimiter ','", "a,b\n", 0],
    ['echo "a:b:c" | cut -d : -f 3', "c\n", 0],
    [
      'echo "a:b" | cut --complement; echo "rc $?"',
      "cut: you must specify a list of bytes, characters, or fields\nTry 'cut --help' for more information.\nrc 1\n",
      0,
    ],
    [
      'echo "a:b" | cut -d: -f0 --complement; echo "rc $?"',
      "cut: fields are numbered from 1\nTry 'cut --help' for more information.\nrc 1\n",
      0,
    ],
    [
      'echo "a:b" | cut -d: -f3-2 --complement; echo "rc $?"',
      "cut: invalid decreasing range\nTry 'cut --help' for more information.\nrc 1\n",
      0,
    ],
    [
      "printf 'a:b:c\\nd:e:f\\n' > f; cut -d: -f1,3 --output-delimiter=' ' f missing; echo \"rc $?\"",
      "a c\nd f\ncut: missing: No such file or directory\nrc 1\n",
      0,
    ],
    ["printf 'a:b:c' | cut -d: --complement -f1", "b:c\n", 0],
    ["echo \"a,b,c,d,e\" | cut -d, -f1-2,4- --output-delimiter=';'", "a;b;d;e\n", 0],
    ['echo "a,b,c" | cut -d, -f2 --complement -s', "a,c\n", 0],
    [
      'echo "héllo" | cut -c1-2 --output-delimiter=- | od -c | head -1',
      "0000000   h 303  \\n\n",
      0,
    ],
  ], { fresh: true });
});

Deno.test("worker shell: cut's LIST is read, sorted and merged as GNU's", () => {
  assert.deepEqual(rangesOf("3,1-2,5-", "fields"), [[1, 3], [5, Infinity]]);
  assert.deepEqual(rangesOf("-2,4", "bytes"), [[1, 2], [4, 4]]);
  assert.throws(() => rangesOf("x", "fields"), /invalid field value 'x'/);
  assert.throws(() => rangesOf("1x", "fields"), /invalid field value 'x'/);
  assert.throws(() => rangesOf("0", "bytes"), /byte\/character positions are numbered from 1/);
});

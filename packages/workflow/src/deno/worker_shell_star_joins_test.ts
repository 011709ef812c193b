import assert from "node:assert/strict";
import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";
import { MAY_JOIN_ARRAYS } from "./worker-shell-star-joins.ts";

/**
 * `"${arr[*]}"` expanded to one string joins with the first character of
 * `IFS` (WS-169): what GNU bash 5.2 writes, stdout and stderr together, and
 * its status. just-bash joined with a space in every one of these places
 * but a command's words and an array's elements.
 */
const JOINS: BashCase[] = [
  ['arr=(b c a); IFS=,; j="${arr[*]/#/}"; echo "$j"', "b,c,a\n", 0],
  ['arr=(b c a); IFS=,; j="${arr[*]:0}"; echo "$j"', "b,c,a\n", 0],
  ['arr=(b c a); IFS=,; j="${arr[*]@E}"; echo "$j"', "b,c,a\n", 0],
  ['arr=(b c a); IFS=,; j="${arr[*]#}"; echo "$j"', "b,c,a\n", 0],
  ['arr=(b c a); IFS=,; j="${arr[*]%%}"; echo "$j"', "b,c,a\n", 0],
  ['arr=("b x" c a); IFS=; j="${arr[*]}"; echo "$j"', "b xca\n", 0],
  ['arr=(b c a); unset IFS; j="${arr[*]}"; echo "$j"', "b c a\n", 0],
  [
    'arr=(b c a); IFS=,; local_test() { local j="${arr[*]}"; echo "$j"; }; local_test',
    "b,c,a\n",
    0,
  ],
  [
    'arr=(b c a); IFS=,; declare j="${arr[*]}"; echo "$j"; export k="${arr[*]}"; echo "$k"',
    "b,c,a\nb,c,a\n",
    0,
  ],
  ['arr=(b c a); IFS=,; j=${arr[*]}; echo "$j"', "b,c,a\n", 0],
  ['arr=(b c a); IFS=,; j+="${arr[*]}"; echo "$j"', "b,c,a\n", 0],
  ['arr=(b c a); IFS=,; x=("${arr[*]}"); echo "${x[0]}"', "b,c,a\n", 0],
  ['declare -A m=([k]=v [l]=w); IFS=,; j="${m[*]}"; echo "${#j}"', "3\n", 0],
  [
    'set -- b c a; IFS=,; j="$*"; echo "$j"; j="${*}"; echo "$j"; j="${@}"; echo "$j"',
    "b,c,a\nb,c,a\nb c a\n",
    0,
  ],
  ['arr=(b c a); IFS=,; cat <<< "${arr[*]}"', "b,c,a\n", 0],
  ["arr=(b c a); IFS=,; cat <<EOT\n${arr[*]}\nEOT", "b,c,a\n", 0],
  ['arr=(b c a); IFS=,; case "${arr[*]}" in b,c,a) echo match;; *) echo no;; esac', "match\n", 0],
  ['arr=(b c a); IFS=,; [[ "${arr[*]}" == "b,c,a" ]] && echo yes || echo no', "yes\n", 0],
  ['arr=(b c a); IFS=,; for x in "${arr[*]}"; do echo "$x"; done', "b,c,a\n", 0],
  ['arr=(b c a); IFS=,; echo "${arr[*]}" > out; cat out', "b,c,a\n", 0],
  ['arr=(b c a); IFS=,; x="${arr[*]}" printenv x 2>/dev/null || echo noprintenv', "b,c,a\n", 0],
  ["arr=(b c a); IFS=,; printf '%s\\n' \"pre-${arr[*]}-post\"", "pre-b,c,a-post\n", 0],
  ["arr=(b c a); IFS=,; echo $(( ${#arr[*]} + 1 ))", "4\n", 0],
  [
    'arr=(b c a); IFS=$\'\\n\' sorted=($(sort <<<"${arr[*]}")); unset IFS; echo "${sorted[@]}"',
    "a b c\n",
    0,
  ],
  [
    'arr=(b c a); f() { local IFS=,; echo "${arr[*]}"; local j="${arr[*]}"; echo "$j"; }; f',
    "b,c,a\nb,c,a\n",
    0,
  ],
  [
    'set -e; arr=(b c a); IFS=,; j="$(false)${arr[*]}" || echo "failed $?"; echo "$j"',
    "failed 1\nb,c,a\n",
    0,
  ],
  ['arr=(b c a); IFS=,; joined="${arr[*]}"; echo "$joined"', "b,c,a\n", 0],
  ['arr=(b c a); IFS=, ; echo "${arr[*]}"', "b,c,a\n", 0],
  ['arr=(b c a); IFS=, x=1 joined="${arr[*]}"; echo "$joined"', "b,c,a\n", 0],
  ['arr=(b c a); IFS=, joined=${arr[*]}; echo "$joined"', "b,c,a\n", 0],
  ['arr=(b c a); IFS=, joined="x${arr[*]}"; echo "$joined"', "xb,c,a\n", 0],
  ['arr=(b c a); IFS=, joined="${arr[@]}"; echo "$joined"', "b c a\n", 0],
];

Deno.test("worker shell: an array joined into one string joins with IFS, as in bash", async () => {
  await assertBashCases(JOINS);
});

Deno.test("worker shell: a command that reads $? keeps just-bash's join, and the join's array stays set", async () => {
  await assertBashCases([
    // bash: `1 b,c,a`; the command is left as written so `$?` reads the status before it.
    ['arr=(b c a); IFS=,; false; cat <<< "$? ${arr[*]}"', "1 b c a\n", 0],
    ['arr=(b c a); IFS=,; j="${arr[*]}"; echo "${__xmd_join[0]}"', "b,c,a\n", 0],
  ]);
});

Deno.test("worker shell: a block is read as joining an array only when its text can", () => {
  assert.equal(MAY_JOIN_ARRAYS.test('x="${a[*]}"'), true);
  assert.equal(MAY_JOIN_ARRAYS.test('x="${a[@]}"; echo $*'), false);
});

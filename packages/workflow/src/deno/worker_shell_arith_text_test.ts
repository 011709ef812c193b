import assert from "node:assert/strict";
import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";
import { mayExpandInArithmetic } from "./worker-shell-arith-text.ts";

/**
 * An arithmetic expression holding a `${…}` is expanded as text, then
 * evaluated (WS-172): what GNU bash 5.2 writes and its status. just-bash
 * read most of these `${…}` as unset: `$(( ${v#0} + 1 ))` was 1.
 */
const ARITHMETIC_TEXT: BashCase[] = [
  ["v=08; echo $(( ${v#0} + 1 ))", "9\n", 0],
  ["ver=3.14; echo $(( ${ver%%.*} + 1 ))", "4\n", 0],
  ["x=abc; echo $(( ${#x} * 2 ))", "6\n", 0],
  ["a=(1 2 3); echo $(( ${#a[@]} - 1 )) $(( ${a[1]} + 1 )) $(( ${a[-1]} * 2 ))", "2 3 6\n", 0],
  ["declare -A m=([k]=4); echo $(( ${m[k]:-0} + 1 )) $(( ${m[z]:-7} + 1 ))", "5 8\n", 0],
  ["u=; echo $(( ${u:-3} + ${undefined:-4} ))", "7\n", 0],
  ['s="5 apples"; echo $(( ${s%% *} * 2 ))', "10\n", 0],
  ["p=x10; echo $(( ${p/x/} + 1 ))", "11\n", 0],
  ["n=5; (( n = ${n:-0} + 1 )); echo $n", "6\n", 0],
  ["declare -A m=([k]=4); (( m[k] = ${m[k]:-0} + 1 )); echo ${m[k]}", "5\n", 0],
  ["v=08; (( r = ${v#0} * 2 )); echo $r", "16\n", 0],
  ["a=(4 5); i=1; echo $(( ${a[i]:-0} + ${a[$i]} ))", "10\n", 0],
  ["for (( i=${start:-1}; i<=3; i++ )); do printf '%d ' $i; done; echo", "1 2 3 \n", 0],
  ["v=3; echo $(( ${v:+10} + 1 ))", "11\n", 0],
  ["v=0042; echo $(( 10#${v} + 1 )) $(( 10#$v ))", "43 42\n", 0],
  ["str=hello; echo $(( ${#str} ))", "5\n", 0],
  [
    'ver=1.4.9; IFS=. read -r ma mi pa <<< "$ver"; echo "$ma.$mi.$(( ${pa%%-*} + 1 ))"',
    "1.4.10\n",
    0,
  ],
  ['ver=2.7; next="${ver%%.*}.$(( ${ver#*.} + 1 ))"; echo "$next"', "2.8\n", 0],
  [
    'declare -A c; for w in x y x; do c[$w]=$(( ${c[$w]:-0} + 1 )); done; echo "${c[x]} ${c[y]}"',
    "2 1\n",
    0,
  ],
  [
    'declare -A c; for w in x y x; do (( c[$w] = ${c[$w]:-0} + 1 )); done; echo "${c[x]} ${c[y]}"',
    "2 1\n",
    0,
  ],
  ['t="12:05"; echo $(( 10#${t%%:*} * 60 + 10#${t##*:} ))', "725\n", 0],
  ['set -e; n=""; x=$(( ${n:-0} + 1 )); echo $x', "1\n", 0],
  ['s="abc"; if (( ${#s} > 2 )); then echo long; fi', "long\n", 0],
  ['a=(5 6 7); echo "last $(( ${a[-1]} + ${a[@]: -2:1} ))"', "last 13\n", 0],
  ['false || v=$(( ${u:-1} + 1 )); echo "v=$v"', "v=2\n", 0],
  ['x=3; y=$(( ${x/3/4} )) z=$(( y * 2 )); echo "$y $z"', "4 8\n", 0],
  ["echo $(( ${undefined_thing%x} + 0 ))", "0\n", 0],
  ["f() { echo $(( ${1%/*} + 1 )); }; f 41/x", "42\n", 0],
  ["e='m = 4 + 1'; (( e )); echo $m", "5\n", 0],
  ["e='m[k] = 4 + 1'; declare -A m; (( e )); echo ${m[k]}", "5\n", 0],
  ["e='i++'; i=3; (( e )); echo $i", "4\n", 0],
  ["e='8 + 1'; echo $(( e ))", "9\n", 0],
  ["e=''; echo $(( e ))", "0\n", 0],
  [
    "e='5 apples'; echo $(( e ))",
    'bash: 5 apples: syntax error in expression (error token is "apples")\n',
    1,
  ],
];

Deno.test("worker shell: an arithmetic expression holding ${…} is expanded as text first, as in bash", async () => {
  await assertBashCases(ARITHMETIC_TEXT);
});

Deno.test("worker shell: a ${name} whose value is an expression is still read as a value (bash: as text)", async () => {
  // bash substitutes the text, 2+3*2; just-bash reads the variable: a plain name is left to it.
  await assertBashCases([['e="2+3"; echo $(( ${e} * 2 )) $(( e * 2 ))', "4 10\n", 0]]);
});

/**
 * A command substitution inside an arithmetic expression runs its text as
 * written (WS-185; GNU bash 5.2's output): just-bash dropped its quotes, so
 * `(( $(echo "$a > $b" | bc -l) ))` redirected `echo` into a file named by
 * `$b` and `$(( $(echo "3 > 2" | wc -l) ))` counted nothing.
 */
Deno.test("worker shell: a command substitution inside arithmetic keeps its quotes, as in bash", async () => {
  await assertBashCases([
    ['a=2; b=1; if (( $(echo "$a > $b" | cat) )); then echo yes; fi', "yes\n", 0],
    ["(( $(echo 1) )) && echo one", "one\n", 0],
    ['x=$(( $(echo "3 > 2" | wc -l) )); echo $x', "1\n", 0],
    ['(( $(echo "1>0" | cat) )) && echo ok', "ok\n", 0],
    ["if (( $(printf '%s' \"2 > 1\" | wc -c) > 3 )); then echo big; fi", "big\n", 0],
    ["start=100; echo $(( $(echo 150) - start ))", "50\n", 0],
    ["printf 'a\\nb\\nc\\n' > f; (( $(wc -l < f) > 2 )) && echo three", "three\n", 0],
    ["echo $(( `echo 2` * 3 ))", "6\n", 0],
    ["printf 'x\\nx\\n' > f; (( count = $(grep -c x f) )); echo $count", "2\n", 0],
    ['echo "$(( $(echo 2) + 1 ))"', "3\n", 0],
    ['v=$(( $(echo "1 + 2") * 2 )); echo $v', "5\n", 0],
    [
      'a=5; b=3; if (( $(echo "$a > $b" | bc -l 2>/dev/null || echo 1) )); then echo gt; fi',
      "gt\n",
      0,
    ],
    ['n=$(( $(printf \'%s\' "a b c" | wc -w) )); echo "words $n"', "words 3\n", 0],
    ['for (( i = $(echo 0); i < 2; i++ )); do echo "i$i"; done', "i0\ni1\n", 0],
    ["x=7; echo $(( x > $(echo 3) ? 1 : 0 ))", "1\n", 0],
  ], { fresh: true });
});

Deno.test("worker shell: a block is read as expanding inside arithmetic only when its text can", () => {
  assert.equal(mayExpandInArithmetic("echo $(( ${v#0} + 1 ))"), true);
  assert.equal(mayExpandInArithmetic("echo $[ ${v} ]"), true);
  assert.equal(mayExpandInArithmetic("echo $((v + 1)) ${x}"), true);
  assert.equal(mayExpandInArithmetic("echo $((v + 1))"), false);
  assert.equal(mayExpandInArithmetic('echo "${v#0}"'), false);
  assert.equal(mayExpandInArithmetic('(( $(echo "1 > 0") ))'), true);
  assert.equal(mayExpandInArithmetic("echo $(( `echo 2` * 3 ))"), true);
  assert.equal(mayExpandInArithmetic("echo $(( $((1)) + 2 ))"), false);
});

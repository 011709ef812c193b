import { assertBashCases } from "./_test-bash-cases.ts";

/**
 * The scripts just-bash parses while a block runs get the block's
 * transforms (WS-177): a sourced library, a script run by its path and the
 * text of `eval` behave as GNU bash 5.2 runs them (its output below). Before,
 * just-bash ran each untransformed: the wrapper looked for a command named
 * `echo hello world` (127), `for x; do` split `a b`, the sourced `set -e`
 * library ended at its command substitution or its `&&` list, and
 * `"${a[*]}"`, `10#${n}` and `local -a a=("$@")` came out wrong.
 */
Deno.test("worker shell: a sourced library gets the transforms its text needs", async () => {
  await assertBashCases([
    [
      "printf 'run() { \"$@\"; }\\n' > lib.sh; source ./lib.sh; run echo hello world",
      "hello world\n",
      0,
    ],
    [
      'printf \'for x; do echo "[$x]"; done\\n\' > s.sh; source ./s.sh "a b" c',
      "[a b]\n[c]\n",
      0,
    ],
    [
      "set -e; printf 'v=$(false; echo fallback)\\necho \"$v\"\\n' > lib.sh; . ./lib.sh; echo after",
      "fallback\nafter\n",
      0,
    ],
    [
      'set -e; printf \'[ -n "$NOPE" ] && echo ci\\nx=1\\necho "x=$x"\\n\' > lib.sh; . ./lib.sh; echo after',
      "x=1\nafter\n",
      0,
    ],
    [
      'printf \'a=(one two three)\\nIFS=,\\ncsv="${a[*]}"\\necho "$csv"\\n\' > lib.sh; . ./lib.sh',
      "one,two,three\n",
      0,
    ],
    [
      'printf \'f() { local OPTIND o; while getopts v o; do echo "opt $o"; done; ' +
      'shift $((OPTIND - 1)); echo "rest $*"; }\\n\' > lib.sh; set -u; . ./lib.sh; f a b',
      "rest a b\n",
      0,
    ],
    [
      'printf \'check() { "$@" || { echo "failed: $*"; return 1; }; }\\n\' > lib.sh; set -e; ' +
      ". ./lib.sh; check true && echo ok; check false || echo caught; echo end",
      "ok\nfailed: false\ncaught\nend\n",
      0,
    ],
  ], { fresh: true });
});

Deno.test("worker shell: a script run by its path gets the transforms its text needs", async () => {
  await assertBashCases([
    [
      'printf \'for x; do echo "[$x]"; done\\n\' > s.sh; chmod +x s.sh; ./s.sh "a b" c',
      "[a b]\n[c]\n",
      0,
    ],
    [
      'printf \'#!/bin/bash\\nset -e\\nv=$(false; echo fb)\\n[ -z "$v" ] && echo empty\\n' +
      'echo "v=$v"\\n\' > s.sh; chmod +x s.sh; ./s.sh; echo "rc $?"',
      "v=fb\nrc 0\n",
      0,
    ],
  ], { fresh: true });
});

Deno.test("worker shell: the text of eval gets the transforms its text needs", async () => {
  await assertBashCases([
    ['set -- "a b" c; eval \'for x; do echo "[$x]"; done\'', "[a b]\n[c]\n", 0],
    ["eval 'n=08; echo $(( 10#${n} + 1 ))'", "9\n", 0],
    ['eval \'f() { local -a a=("$@"); echo "${#a[@]}"; }\'; f "x y" z', "2\n", 0],
    ["eval '{ echo out; echo err >&2; echo out2; } 2>&1' | cat", "out\nerr\nout2\n", 0],
    // Nested: the text an eval'd loop evals, and a substitution inside eval'd text.
    ["eval 'for i in 1 2; do eval \"x=\\$(( \\${i} * 2 ))\"; echo $x; done'", "2\n4\n", 0],
    // Under `set -e`, a failure in eval'd text ends the script, as in bash, also when it is the
    // status of an assignment from a substitution.
    ["set -e; eval 'v=$(echo inner; false); echo \"got $v\"'; echo after", "", 1],
    ["set -e; eval 'false; x=1'; echo \"status $?\"", "", 1],
    ["eval 'exit 4'; echo no", "", 4],
  ]);
});

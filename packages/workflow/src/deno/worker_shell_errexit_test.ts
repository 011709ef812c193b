import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * Scripts under `set -e` whose and-or lists call functions, groups, subshells,
 * loops, `case` or `eval` (WS-149), or assign after a failure (WS-150), with
 * what GNU bash 5.2 writes (stdout and stderr together) and its status.
 */
const CASES: BashCase[] = [
  ['set -e; { false; echo x; } || echo "A $?"; echo end', "x\nend\n", 0],
  ['set -e; f() { false; echo in-f; }; f || echo "C $?"; echo end', "in-f\nend\n", 0],
  ['set -e; ( false; echo x ) || echo "S $?"; echo end', "x\nend\n", 0],
  ['set -e; { false; echo x; } && echo "D $?"; echo end', "x\nD 0\nend\n", 0],
  ['set -e; for i in 1; do false; echo x; done || echo "L $?"; echo end', "x\nend\n", 0],
  ['set -e; ! { false; echo x; }; echo "end $?"', "x\nend 1\n", 0],
  ["set -e; f() { grep -q foo /dev/null; }; f || echo missing; echo end", "missing\nend\n", 0],
  ['set -e; f() { false; }; f && echo T; echo "end $?"', "end 1\n", 0],
  ['set -e; f() { return 3; }; f || echo "r $?"; echo end', "r 3\nend\n", 0],
  ["set -e; f() { false; }; f || g() { echo g; }; echo end", "end\n", 0],
  ["set -e; f() { false; }; true && f; echo never", "", 1],
  ["set -e; f() { false; }; false || f; echo never", "", 1],
  [
    'set -e; f() { echo f; return 2; }; f || f || echo "both $?"; echo end',
    "f\nf\nboth 2\nend\n",
    0,
  ],
  [
    'set -e; f() { echo f; return 2; }; f && echo no || echo "or $?"; echo end',
    "f\nor 2\nend\n",
    0,
  ],
  ["set -e; f() { return 0; }; f && { false; echo x; }; echo never", "", 1],
  ['set -euo pipefail; f() { false; echo in; }; f | cat || echo "pf $?"; echo end', "in\nend\n", 0],
  ["set -e; f() { false; echo in; }; if f || false; then echo T; fi; echo end", "in\nT\nend\n", 0],
  [
    'set -e; f() { false; echo in; return 4; }; ! f; echo "neg $?"; echo end',
    "in\nneg 0\nend\n",
    0,
  ],
  ["set -e; eval 'false; echo ev' || echo no; echo end", "ev\nend\n", 0],
  ['set -e; f() { false; echo in; }; x=$(f || echo sub); echo "[$x]"', "[in]\n", 0],
  ["set -e; f() { false; }; for i in 1 2; do f || continue; echo no; done; echo end", "end\n", 0],
  ['set -e; f() { false; }; while true; do f || break; done; echo "end $?"', "end 0\n", 0],
  ['set -e; g() { f || return 7; }; f() { false; echo in; }; g; echo "g $?"', "in\ng 0\n", 0],
  ['set -e; f() { echo "st $?"; }; false || f; echo end', "st 1\nend\n", 0],
  ['set -e; f() { false; }; f || echo "$LINENO"', "1\n", 0],
  ["set -e; case x in x) false; echo c;; esac || echo no; echo end", "c\nend\n", 0],
  ["set -e; f() { false; }; f || exit 3; echo never", "", 3],
  ["set +e; f() { false; echo in; }; f || echo no; echo end", "in\nend\n", 0],
  ['set -e; f() { return 3; }; if f; then s=0; else s=$?; fi; echo "c $s"', "c 3\n", 0],
  ['set -e; rc=0; false || rc=$?; echo "rc $rc $?"', "rc 1 0\n", 0],
  ['set -e; f() { return 4; }; rc=0; f || rc=$?; echo "rc $rc"', "rc 4\n", 0],
  ['set -e; if false; then :; else x=1 y=2; fi; echo "$x$y $?"', "12 0\n", 0],
  ['set -e; n=0; until [ $n = 2 ]; do n=$((n+1)); done; echo "n $n"', "n 2\n", 0],
  ['set -e; grep -q x /dev/null || found=no; echo "$found"', "no\n", 0],
  ["set -e; false || x=$(exit 3); echo never", "", 3],
  ['set -e; f() { false; }; f && echo T || r=$?; echo "r $r"', "r 1\n", 0],
  ["set -o errexit; f() { false; echo in; }; f || echo no; echo end", "in\nend\n", 0],
];

Deno.test("worker shell errexit: and-or lists and assignments after a failure behave as in bash", async () => {
  await assertBashCases(CASES);
});

/**
 * An assignment alone ends with status 0 wherever it runs (WS-168), with
 * what GNU bash 5.2 writes: just-bash gave it the status before it, so
 * under `set -e` an assignment after any failure the script went on after
 * (an `&&` list, `!`, the first statement of a body) ended the script, and
 * `false; x=1; echo $?` printed 1.
 */
const ASSIGNMENTS_ALONE: BashCase[] = [
  ['false; x=$?; echo "$x $?"', "1 0\n", 0],
  ["false; a=(1 2); echo $?", "0\n", 0],
  ["x=$(exit 3); echo $?; y=$(exit 4) z=1; echo $?", "3\n4\n", 0],
  ['declare -i n; n=5+3; echo $n; m=~; [ "$m" = "$HOME" ] && echo tilde', "8\ntilde\n", 0],
  ['x=; echo "[$x] $?"; false; y=""; echo $?', "[] 0\n0\n", 0],
  ['x=a; x+=b; echo $x; false; x+=c; echo "$x $?"', "ab\nabc 0\n", 0],
  ['set -e; false || rc=$?; echo "rc=$rc"', "rc=1\n", 0],
  ['set -e; if false; then :; else v=1; fi; echo "v=$v"', "v=1\n", 0],
  ['set -eu; [ -z "${CI:-}" ] && LOCAL=1; echo "local=${LOCAL:-0}"', "local=1\n", 0],
  ['f() { local a=1; b=2; echo "$a$b"; }; false; f; echo $?', "12\n0\n", 0],
  ['x=*; echo "$x"', "*\n", 0],
  ['IFS=: read -r a b <<< "1:2"; echo "$a $b"', "1 2\n", 0],
  ["false; x=1; echo $?", "0\n", 0],
  ['set -e; [ -n "" ] && echo never; x=1; echo after', "after\n", 0],
  ['set -e; for i in 1 2; do [ $i = 1 ] && continue; y=$i; done; echo "after $y"', "after 2\n", 0],
  ["set -e; case a in a) false && :; esac; z=1; echo after", "after\n", 0],
  ["set -e; ! true; w=1; echo after", "after\n", 0],
  ["set -e; false || { x=1; echo hi; }; echo after", "hi\nafter\n", 0],
  ["set -e; false || { declare y=2; echo hi; }; echo after", "hi\nafter\n", 0],
  ["set -e; false || { echo first; x=1; }; echo after", "first\nafter\n", 0],
  ["set -e; if false; then :; else { x=1; echo in; }; fi; echo after", "in\nafter\n", 0],
  ["set -e; f() { x=1; echo in-f; }; false || f; echo after", "in-f\nafter\n", 0],
  ["set -e; false || { true; x=1; }; echo after", "after\n", 0],
  ["set -e; false || ( x=1; echo sub ); echo after", "sub\nafter\n", 0],
  ["set -e; false || { local_v=1; }; echo after", "after\n", 0],
];

Deno.test("worker shell errexit: an assignment alone ends with status 0 wherever it runs, as in bash", async () => {
  await assertBashCases(ASSIGNMENTS_ALONE);
});

Deno.test("worker shell errexit: under set -x an assignment alone traces as written (an array's with one more line)", async () => {
  await assertBashCases([
    ["set -x; x=1; echo $x", "+ x=1\n+ echo 1\n1\n", 0],
    // just-bash traces no array assignment; the status's own assignment shows after it.
    ["set -x; a=(p q); echo ${a[1]}", "+ __xmd_zero=\n+ echo q\nq\n", 0],
  ]);
});

/**
 * A function the block's text does not define, called in an and-or list under
 * `set -e` (WS-178): one from a sourced library or an `eval` runs its body to
 * its end as in bash (GNU bash 5.2's output below), where it ended the block
 * at its first failure. A command the shell has, a builtin and a missing
 * command keep their statuses.
 */
Deno.test("worker shell errexit: a function from a sourced library or eval is exempt in an and-or list, as in bash", async () => {
  const lib = "printf 'check() { false; echo \"in check\"; }\\n' > lib.sh";
  await assertBashCases([
    [`${lib}; set -e; . ./lib.sh; check || echo handled; echo end`, "in check\nend\n", 0],
    [
      `${lib}; set -e; source lib.sh; ! check; check && echo "and $?"; echo end`,
      "in check\nin check\nand 0\nend\n",
      0,
    ],
    [
      "set -e; eval 'check() { false; echo \"in check\"; }'; check || echo handled; echo end",
      "in check\nend\n",
      0,
    ],
    [`${lib}; set -e; . ./lib.sh; check; echo end`, "", 1],
    [
      'set -e; grep -q x /dev/null || echo "grep $?"; read -r v < /dev/null || echo "read $?"; echo end',
      "grep 1\nread 1\nend\n",
      0,
    ],
    ['set -e; nosuchcmd 2>/dev/null || echo "missing $?"; echo end', "missing 127\nend\n", 0],
  ], { fresh: true });
});

/**
 * Under `set -e`, a function whose status came from a failure bash exempts
 * inside it (the last statement `[ … ] && …`) ends the script at its call,
 * as in bash (WS-179; GNU bash 5.2's output below), where just-bash let the
 * exemption reach the call and went on; so does the text of `eval` or
 * `source` ending that way. A group, `if` or loop whose status
 * came that way still does not, and neither does a call bash exempts.
 */
Deno.test("worker shell errexit: a function returning an exempt failure ends the script at its call, as in bash", async () => {
  await assertBashCases([
    ['set -e; log() { [ "$VERBOSE" = 1 ] && echo "log: $*"; }; log start; echo after', "", 1],
    ['set -e; f() { [ -n "$1" ] && echo "has $1"; }; f a; f; echo after', "has a\n", 1],
    ["set -e; f() { { false && :; }; }; f; echo after", "", 1],
    ["set -e; f() { for i in 1 2; do [ $i = 3 ] && echo 3; done; }; f; echo after", "", 1],
    ["set -e; f() { false && :; }; true && f; echo after", "", 1],
    ["set -e; f() { false && :; }; v=$(f); echo after", "", 1],
    // The text of `eval` and `source` is checked at the command that ran it.
    ['set -e; eval "false && :"; echo after', "", 1],
    [
      "set -e; printf '[ -n \"$DEBUG\" ] && set -x\\n' > env.sh; . ./env.sh; echo after",
      "",
      1,
    ],
    ["set -e; eval 'false && :' || echo caught; echo end", "caught\nend\n", 0],
    ['set -e; f() { eval "false && :"; echo in-f; }; f || echo "f $?"; echo end', "in-f\nend\n", 0],
    // Unchanged: a compound command's status, and calls bash exempts.
    ["set -e; { false && :; }; if :; then false && :; fi; echo after", "after\n", 0],
    ["set -e; for i in 1; do false && :; done; echo after", "after\n", 0],
    [
      'set -e; f() { [ -n "$1" ] && echo has; }; f || echo "or $?"; if f; then :; else echo else; fi; f | cat; echo after',
      "or 1\nelse\nafter\n",
      0,
    ],
    ['f() { false && :; }; f; echo "no errexit $?"', "no errexit 1\n", 0],
  ]);
});

import assert from "node:assert/strict";
import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";
import { INHERITS_ERREXIT } from "./worker-shell-substitution-errexit.ts";

/**
 * A command substitution runs with errexit off, as in bash outside POSIX
 * mode and without `inherit_errexit` (WS-170), and its `set` stays inside
 * it: what GNU bash 5.2 writes, stdout and stderr together, and its status.
 */
const SUBSTITUTIONS: BashCase[] = [
  ['set -e; x=$(false; echo inner); echo "after $x"', "after inner\n", 0],
  ['set -e; echo "$(false; echo inner)"; echo after', "inner\nafter\n", 0],
  ['set -e; x=$(set -e; false; echo inner); echo "after $x"', "", 1],
  ['set -e; f() { false; echo in-f; }; x=$(f); echo "after $x"', "after in-f\n", 0],
  ['set -eo pipefail; x=$(false | true; echo ok); echo "$x"', "ok\n", 0],
  ['set -o posix; set -e; x=$(false; echo inner); echo "after $x"', "", 1],
  ["set -e; ( set +e ); false; echo after", "", 1],
  ["set -e; x=$(set +e; echo a); false; echo after", "", 1],
  ['set -e; x=$( (set +e; false; echo a) ); echo "after $x"; false; echo never', "after a\n", 1],
  ['false; x=$( (echo "st $?") ); echo "$x"', "st 1\n", 0],
  ['set -e; false || { x=$(echo "st $?"); echo "$x"; }', "st 1\n", 0],
  ['set -e; v=$(cat /nonexistent 2>/dev/null || echo default); echo "$v"', "default\n", 0],
  ['set -e; out=$(for i in 1 2; do false; echo "i$i"; done); echo "$out"', "i1\ni2\n", 0],
  ["set -e; n=$(echo 5); echo $((n + 1))", "6\n", 0],
  ['set -e; x=$(exit 3) || echo "rc $?"; echo after', "rc 3\nafter\n", 0],
  ['set -e; x=`false; echo bt`; echo "$x"', "bt\n", 0],
  ['set -e; echo "$(echo a; false)"; echo after', "a\nafter\n", 0],
  ['set -e; y=$(x=$(false; echo deep); echo "[$x]"); echo "$y"', "[deep]\n", 0],
  [
    'set -e; v=$(< /dev/null); echo "empty[$v]"; printf \'c\\n\' > f; w=$(< f); echo "$w"',
    "empty[]\nc\n",
    0,
  ],
  ["set -e; x=$(set -e; false; echo no); echo never", "", 1],
  ['set -eu; x=$(echo "${UNSET_VAR:-d}"); echo "$x"', "d\n", 0],
  ['set -e; f() { local x=$(false); echo "in $x"; }; f; echo after', "in \nafter\n", 0],
  ["set -e; x=$(false); echo after", "", 1],
  ['set -e; echo "$(false)"; echo after', "\nafter\n", 0],
  ['set -e; x=$(false) || echo "caught $?"; echo after', "caught 1\nafter\n", 0],
  ["set -e; export V=$(false); echo after", "after\n", 0],
  ['set -e; shopt -s inherit_errexit; x=$(false; echo inner); echo "after $x"', "", 1],
];

Deno.test("worker shell: a command substitution does not inherit set -e, and its set stays inside, as in bash", async () => {
  await assertBashCases(SUBSTITUTIONS);
});

Deno.test("worker shell: a block naming inherit_errexit or POSIX mode keeps the substitution's errexit", () => {
  for (const text of ["shopt -s inherit_errexit", "set -o posix", "export POSIXLY_CORRECT=1"]) {
    assert.equal(INHERITS_ERREXIT.test(text), true, text);
  }
  assert.equal(INHERITS_ERREXIT.test("set -euo pipefail"), false);
});

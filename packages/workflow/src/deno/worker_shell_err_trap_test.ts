import { assertBashCases } from "./_test-bash-cases.ts";

/**
 * The ERR trap runs as bash runs it (WS-184; GNU bash 5.2's output below):
 * after each command that fails where `set -e` would end the script (not in
 * a condition, a part of an `&&`/`||` list but the last, under `!`, or a
 * function called from one), once per failing command (a group or `if`
 * does not run it again), with `$?`, `$LINENO` and `$BASH_COMMAND` of the
 * failure, before `set -e` ends the script, and its `exit` ends it with its
 * status. Before, `trap … ERR` was refused with status 1, which ended every
 * block whose header was `set -Eeuo pipefail; trap … ERR` at its second line.
 */
Deno.test("worker shell: the ERR trap runs after a failing command, as in bash", async () => {
  await assertBashCases([
    [
      "set -Eeuo pipefail\ntrap 'echo \"error on line $LINENO\" >&2' ERR\necho start\nfalse\necho never",
      "start\nerror on line 4\n",
      1,
    ],
    ["set -e\ntrap 'echo \"failed: $BASH_COMMAND\"' ERR\necho ok", "ok\n", 0],
    ["trap 'echo caught $?' ERR\nfalse\necho after", "caught 1\nafter\n", 0],
    [
      "set -E\ntrap 'echo \"T$? at $LINENO: $BASH_COMMAND\"' ERR\n{ false; }\nif true; then false; fi\nf() { false; }\nf\n( false )\nfalse | true\n! false\nfalse || true\nif false; then :; fi\nwhile false; do :; done\ng() { false; }\nif g; then :; fi\ng || echo handled\necho end",
      "T1 at 3: false\nT1 at 4: false\nT1 at 5: false\nT1 at 6: false\nT1 at 7: false\nT1 at 7: ( false )\nhandled\nend\n",
      0,
    ],
    [
      "trap 'echo \"failed: $BASH_COMMAND (status $?)\"; exit 3' ERR\necho one\ngrep -q nothing /dev/null\necho never",
      "one\nfailed: grep -q nothing /dev/null (status 1)\n",
      3,
    ],
    [
      "set -eo pipefail\ntrap 'echo \"error $? on line $LINENO\" >&2' ERR\nfalse | true\necho never",
      "error 1 on line 3\n",
      1,
    ],
    [
      "trap 'echo T' ERR\ntrap -p ERR\ntrap - ERR\nfalse\ntrap -p\necho \"rc $?\"",
      "trap -- 'echo T' ERR\nrc 0\n",
      0,
    ],
    ["trap '' ERR\nfalse\necho \"ignored $?\"", "ignored 1\n", 0],
    [
      'set -E; trap \'echo "T$?"\' ERR\nx=$(false)\necho "x done $?"\n(( 0 ))\n[[ a == b ]]\necho end',
      "T1\nx done 1\nT1\nT1\nend\n",
      0,
    ],
    [
      'set -e\ntrap \'echo "in trap"; false; echo "still in trap"\' ERR\nfalse\necho never',
      "in trap\n",
      1,
    ],
    ['trap \'echo "T $?"\' ERR\nf() { return 4; }\nf\necho "after $?"', "T 4\nafter 4\n", 0],
    ['set -eE; trap "echo T" ERR; f() { false; }; f; echo no', "T\n", 1],
    ['set -eE; trap "echo T" ERR; { false; echo x; }; echo no', "T\n", 1],
    [
      "set -eE; trap 'echo \"T $BASH_COMMAND\"' ERR; g() { grep -q x /dev/null; echo after; }; h() { g; }; h; echo no",
      "T grep -q x /dev/null\n",
      1,
    ],
  ], { fresh: true });
});

import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * A redirection whose file cannot be opened fails its command only (WS-154),
 * with what GNU bash 5.2 writes (stdout and stderr together) and its status.
 * Worker Shell's message names the path from the Workspace's root where
 * bash's names it as written (with bash's `line N:`), and a statement's
 * output streams before its errors, so a message comes after the output of
 * its statement.
 */
const CASES: BashCase[] = [
  [
    'echo hi > nope/x || echo "fallback $?"; echo after',
    "fallback 1\nbash: /nope/x: No such file or directory\nafter\n",
    0,
  ],
  [
    'f() { echo hi > nope/x; echo "in $?"; }; f; echo "after $?"',
    "in 1\nbash: /nope/x: No such file or directory\nafter 0\n",
    0,
  ],
  [
    'echo hi > nope/x | cat; echo "after $? ${PIPESTATUS[*]}"',
    "bash: /nope/x: No such file or directory\nafter 0 1 0\n",
    0,
  ],
  [
    'if echo hi > nope/x; then echo yes; else echo "no $?"; fi',
    "bash: /nope/x: No such file or directory\nno 1\n",
    0,
  ],
  [
    'for i in 1 2; do echo "$i" >> nope/x; echo "i $i $?"; done',
    "i 1 1\nbash: /nope/x: No such file or directory\ni 2 1\nbash: /nope/x: No such file or directory\n",
    0,
  ],
  [
    "set -e; echo hi > nope/x || echo handled; echo after",
    "bash: /nope/x: No such file or directory\nhandled\nafter\n",
    0,
  ],
  ["set -e; echo hi > nope/x; echo after", "bash: /nope/x: No such file or directory\n", 1],
  [
    '{ echo a; echo b; } > nope/x && echo ok || echo "failed $?"',
    "failed 1\nbash: /nope/x: No such file or directory\n",
    0,
  ],
  [
    'while read -r l; do echo "$l"; done < /dev/null > nope/x; echo "after $?"',
    "bash: /nope/x: No such file or directory\nafter 1\n",
    0,
  ],
  [
    'x=$(echo hi > nope/x; echo "inner $?"); echo "[$x]"',
    "bash: /nope/x: No such file or directory\n[inner 1]\n",
    0,
  ],
  ['echo hi &> nope/x; echo "after $?"', "bash: /nope/x: No such file or directory\nafter 1\n", 0],
  [
    'touch f; echo hi > f/x || echo "not a dir $?"',
    "not a dir 1\nbash: /f/x: Not a directory\n",
    0,
  ],
  // The command never ran: `touch` made nothing.
  ["touch a > nope/x; ls", "bash: /nope/x: No such file or directory\n", 0],
  ["mkdir -p out; echo hi > out/x && cat out/x", "hi\n", 0],
  [
    'printf \'echo hi > nope/x; echo "in $?"\\n\' > s.sh; bash s.sh; echo "after $?"',
    "in 1\nbash: /nope/x: No such file or directory\nafter 0\n",
    0,
  ],
];

Deno.test("worker shell: a redirection that cannot open its file fails its command only, as in bash", async () => {
  await assertBashCases(CASES, { fresh: true });
});

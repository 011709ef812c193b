import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * A `cp` or `mv` whose destination's folder is missing names the
 * destination, not the source (WS-155), with what GNU bash 5.2 and
 * coreutils write (stdout and stderr together) and the status.
 */
const CASES: BashCase[] = [
  [
    'touch a; cp a nope/x; echo "after $?"',
    "cp: cannot create regular file 'nope/x': No such file or directory\nafter 1\n",
    0,
  ],
  [
    'touch a; mv a nope/x; echo "after $?"; ls',
    "mv: cannot move 'a' to 'nope/x': No such file or directory\nafter 1\na\n",
    0,
  ],
  [
    'mkdir d; touch d/f; cp -r d nope/x; echo "after $?"',
    "cp: cannot create directory 'nope/x': No such file or directory\nafter 1\n",
    0,
  ],
  [
    'touch a; cp -- a nope/x; echo "after $?"',
    "cp: cannot create regular file 'nope/x': No such file or directory\nafter 1\n",
    0,
  ],
  [
    'touch a; mv -v a nope/x; echo "after $?"',
    "mv: cannot move 'a' to 'nope/x': No such file or directory\nafter 1\n",
    0,
  ],
  // A missing source is still said as one, and what succeeds is unchanged.
  [
    'cp missing x; echo "after $?"',
    "cp: cannot stat 'missing': No such file or directory\nafter 1\n",
    0,
  ],
  [
    'mv missing x; echo "after $?"',
    "mv: cannot stat 'missing': No such file or directory\nafter 1\n",
    0,
  ],
  ["touch a b; mkdir t; cp a b t/ && ls t", "a\nb\n", 0],
  ["touch a; cp a a2 && ls", "a\na2\n", 0],
];

Deno.test("worker shell: cp and mv into a missing folder name the destination, as GNU's do", async () => {
  await assertBashCases(CASES, { fresh: true });
});

import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * A command named by an expansion of several words runs the first with the
 * rest as its first arguments (WS-174): what GNU bash 5.2 writes and its
 * status. just-bash looked for a command named by all the words joined
 * (`bash: echo a b: command not found`, status 127).
 */
const COMMAND_WORDS: BashCase[] = [
  ['f() { "$@"; echo "rc=$?"; }; echo x > file; f grep -q x file', "rc=0\n", 0],
  [
    'f() { "$@"; }; f ls /nowhere; echo "rc=$?"',
    "ls: cannot access '/nowhere': No such file or directory\nrc=2\n",
    0,
  ],
  ['f() { "$@" >/dev/null 2>&1; echo "rc=$?"; }; f ls /nowhere', "rc=2\n", 0],
  [
    'f() { if "$@" >/dev/null 2>&1; then echo yes; else echo "no $?"; fi; }; f ls /nowhere',
    "no 2\n",
    0,
  ],
  [
    'f() { if "$@" 2>/dev/null; then echo yes; else echo "no $?"; fi; }; f ls /nowhere',
    "no 2\n",
    0,
  ],
  ['if ls /nowhere 2>/dev/null; then echo yes; else echo "no $?"; fi', "no 2\n", 0],
  ['if ls /nowhere >/dev/null 2>&1; then echo yes; else echo "no $?"; fi', "no 2\n", 0],
  ['set -- echo a b; "$@"', "a b\n", 0],
  ['set -- echo "a  b" c; "$@"', "a  b c\n", 0],
  ['f() { "$@"; }; f echo hi there', "hi there\n", 0],
  ['f() { "${@}"; }; f echo hi there', "hi there\n", 0],
  ['f() { "$1" "${@:2}"; }; f echo hi there', "hi there\n", 0],
  ['f() { local cmd=("$@"); "${cmd[@]}"; }; f echo hi there', "hi there\n", 0],
  ["f() { $@; }; f echo hi there", "hi there\n", 0],
  ['f() { command "$@"; }; f echo hi there', "hi there\n", 0],
  ['f() { x=1 "$@"; }; f echo hi there', "hi there\n", 0],
  ['f() { "$@" | cat; }; f echo hi there', "hi there\n", 0],
  ['arr=(echo a b); "${arr[@]}"', "a b\n", 0],
  ['f() { "$@" > out; cat out; }; f echo hi there', "hi there\n", 0],
];

Deno.test('worker shell: a command named by "$@" or an array runs its first word, as in bash', async () => {
  await assertBashCases(COMMAND_WORDS);
});

Deno.test("worker shell: where a command's own output and stderr are ordered, \"$@\" keeps just-bash's order", async () => {
  // bash prints ls's error before the `else` branch's line; within one statement just-bash
  // gives stdout first (WS-166's limits).
  await assertBashCases([[
    'f() { if "$@"; then echo yes; else echo "no $?"; fi; }; f ls /nowhere',
    "no 2\nls: cannot access '/nowhere': No such file or directory\n",
    0,
  ]]);
});

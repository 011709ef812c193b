import { assertBashCases } from "./_test-bash-cases.ts";

/**
 * `which` prints the path a block would run, as Debian's `which` does
 * (WS-180; the output below is GNU bash 5.2 with debianutils' `which`): the
 * first match in `PATH` (every one with `-a`), a path as written when it is
 * executable, nothing and status 1 for a builtin, a function or a missing
 * command, status 2 and the usage for an unknown option. A command of
 * Worker Shell's own is where `command -v` says, `/usr/bin/NAME`. Before,
 * `which` was "command not found" (127) for every name.
 */
Deno.test("worker shell: which prints the path a command runs from, as Debian's which does", async () => {
  await assertBashCases([
    ['which ls >/dev/null && echo found; which nope || echo "missing $?"', "found\nmissing 1\n", 0],
    [
      'if which sort >/dev/null 2>&1; then echo has-sort; fi; which ls nope ls; echo "rc $?"',
      "has-sort\n/usr/bin/ls\n/usr/bin/ls\nrc 1\n",
      0,
    ],
    [
      'mkdir -p b1 b2; printf \'#!/bin/sh\\necho t\\n\' > b1/tool; cp b1/tool b2/tool; chmod +x b1/tool b2/tool; PATH="$PWD/b1:$PWD/b2:$PATH"; which tool | sed "s#$PWD#.#"; which -a tool | sed "s#$PWD#.#"; tool',
      "./b1/tool\n./b1/tool\n./b2/tool\nt\n",
      0,
    ],
    [
      'mkdir -p b1; printf \'echo t\\n\' > b1/tool; chmod +x b1/tool; touch plain; which ./b1/tool b1/tool; echo "rc $?"; which ./plain || echo "plain $?"; PATH="b1:$PATH" which tool',
      "./b1/tool\nb1/tool\nrc 0\nplain 1\nb1/tool\n",
      0,
    ],
    [
      'which; echo "rc $?"; which -x 2>/dev/null; echo "rc $?"; which -x 2>&1 >/dev/null; which -- ls',
      "rc 1\nUsage: /usr/bin/which [-a] args\nrc 2\nIllegal option -x\n/usr/bin/ls\n",
      0,
    ],
    [
      'which cd || echo "builtin $?"; f() { :; }; which f || echo "function $?"',
      "builtin 1\nfunction 1\n",
      0,
    ],
  ], { fresh: true });
});

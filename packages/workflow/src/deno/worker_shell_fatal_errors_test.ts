import assert from "node:assert/strict";
import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";
import { makeShellErrorsFatal } from "./worker-shell-fatal-errors.ts";

/**
 * An unbound variable under `set -u` ends the shell (WS-153), with what GNU
 * bash 5.2 writes (stdout and stderr together) and its status. bash's
 * messages also name where it was (`bash: line 1: `, `environment: line 1: `
 * in a function); Worker Shell's say `bash: ` only.
 */
const ENDS_THE_BLOCK: BashCase[] = [
  [
    'set -euo pipefail; echo before; echo "$TYPO"; echo after',
    "before\nbash: TYPO: unbound variable\n",
    1,
  ],
  ['set -eu; { echo "$TYPO"; echo in; }; echo after', "bash: TYPO: unbound variable\n", 1],
  [
    'set -eu; if true; then echo "$TYPO"; echo in; fi; echo after',
    "bash: TYPO: unbound variable\n",
    1,
  ],
  [
    'set -eu; for i in 1 2; do echo "$i"; echo "$TYPO"; done; echo after',
    "1\nbash: TYPO: unbound variable\n",
    1,
  ],
  // just-bash's own behaviour looped here until the block's time was up: `break` was never reached.
  [
    'set -eu; while :; do echo "$TYPO"; break; done; echo after',
    "bash: TYPO: unbound variable\n",
    1,
  ],
  [
    'set -eu; f() { echo in; echo "$TYPO"; echo still; }; f; echo after',
    "in\nbash: TYPO: unbound variable\n",
    1,
  ],
  [
    "set -eu; trap 'echo trapped' EXIT; echo \"$TYPO\"; echo after",
    "bash: TYPO: unbound variable\ntrapped\n",
    1,
  ],
  ["set -eu; echo $((TYPO + 1)); echo after", "bash: TYPO: unbound variable\n", 1],
  ['set -eu; echo "$TYPO" || echo handled; echo after', "bash: TYPO: unbound variable\n", 1],
  ['set -eu; case "$TYPO" in *) echo c;; esac; echo after', "bash: TYPO: unbound variable\n", 1],
  ['set -eu; declare -A m; echo "${m[k]}"; echo after', "bash: m[k]: unbound variable\n", 1],
  ['set -eu; x=$(echo "$TYPO"); echo after', "bash: TYPO: unbound variable\n", 1],
  ["set -eu; eval 'echo \"$TYPO\"'; echo after", "bash: TYPO: unbound variable\n", 1],
  [
    'set -o nounset; set -e; for f in a b; do if [ "$f" = b ]; then echo "$TYPO"; fi; echo "$f"; done; echo after',
    "a\nbash: TYPO: unbound variable\n",
    1,
  ],
];

/** Where bash ends only the subshell, substitution or pipeline part, or nounset is off. */
const ENDS_ITS_SUBSHELL: BashCase[] = [
  [
    'set -u; (echo "$TYPO"; echo in); echo "after $?"',
    "bash: TYPO: unbound variable\nafter 1\n",
    0,
  ],
  [
    'set -u; x=$(echo "$TYPO"; echo in); echo "after $? [$x]"',
    "bash: TYPO: unbound variable\nafter 1 []\n",
    0,
  ],
  ['set -u; echo "$TYPO" | cat; echo "after $?"', "bash: TYPO: unbound variable\nafter 0\n", 0],
  ['set -u; (set -e; echo "$TYPO"); echo "after $?"', "bash: TYPO: unbound variable\nafter 1\n", 0],
  ['set -u; set +u; echo "[$TYPO]"; echo after', "[]\nafter\n", 0],
  ['echo "[$TYPO]"; echo after', "[]\nafter\n", 0],
];

Deno.test("worker shell: an unbound variable under set -u ends the block, as in bash", async () => {
  // One shell for all: a block that ended this way leaves nothing set for the next.
  await assertBashCases([...ENDS_THE_BLOCK, ...ENDS_ITS_SUBSHELL]);
});

Deno.test("worker shell: without set -e, an unbound variable ends the block with status 1 (bash: 127)", async () => {
  await assertBashCases([
    [
      'touch kept; set -u; echo before; echo "$TYPO"; rm kept; echo after',
      "before\nbash: TYPO: unbound variable\n",
      1,
    ],
    // The command after the error never ran.
    ["ls", "kept\n", 0],
    [
      'set -u; for i in 1 2; do echo "$TYPO"; done; echo after',
      "bash: TYPO: unbound variable\n",
      1,
    ],
  ]);
});

/**
 * An arithmetic error in an expansion ends the shell (WS-165), with GNU
 * bash 5.2's control flow and status. bash's messages also name the
 * expression and the error token (`bash: line 1: 6 / i: division by 0
 * (error token is "i")`); Worker Shell's are just-bash's own.
 */
const ARITHMETIC_ENDS_THE_BLOCK: BashCase[] = [
  ["x=$((7/0)); echo after", "bash: division by 0\n", 1],
  [
    "echo start; echo $((1 + )); echo after",
    'start\nbash: syntax error: operand expected (error token is "+")\n',
    1,
  ],
  [
    "set -e; for i in 3 2 1 0; do echo $((6 / i)); done; echo after",
    "2\n3\n6\nbash: division by 0\n",
    1,
  ],
  // just-bash's own behaviour printed here until the block's time was up: `break` was never reached.
  ["while true; do echo $((1/0)); break; done; echo after", "bash: division by 0\n", 1],
  ["f() { echo in; y=$((1/0)); echo still; }; f; echo after", "in\nbash: division by 0\n", 1],
  ["x=$((1/0)) || echo handled; echo after", "bash: division by 0\n", 1],
  ["true && echo $((1/0)) || echo fallback; echo after", "bash: division by 0\n", 1],
  ["case $((1/0)) in *) echo c;; esac; echo after", "bash: division by 0\n", 1],
  ["if [ $((1/0)) ]; then :; fi; echo after", "bash: division by 0\n", 1],
  ["trap 'echo trapped' EXIT; echo $((1/0)); echo after", "bash: division by 0\ntrapped\n", 1],
  ["echo $((08)); echo after", "bash: value too great for base\n", 1],
  ["echo $((2**-1)); echo after", "bash: exponent less than 0\n", 1],
  [
    "a=(1 2 3); echo ${a[@]: -1:-2}; echo after",
    "bash: a[@]: substring expression < 0\n",
    1,
  ],
];

/** Where bash ends only the subshell, substitution or pipeline part, or the error is a command's status. */
const ARITHMETIC_ENDS_LESS: BashCase[] = [
  ['( y=$((1/0)); echo still ); echo "after $?"', "bash: division by 0\nafter 1\n", 0],
  [
    'z=$(echo $((1/0)); echo in); echo "after $? [$z]"',
    "bash: division by 0\nafter 1 []\n",
    0,
  ],
  [
    'echo $((1 + )) | cat; echo "after $?"',
    'bash: syntax error: operand expected (error token is "+")\nafter 0\n',
    0,
  ],
  ['(( 1/0 )); echo "after $?"', "bash: arithmetic expression: division by 0\nafter 1\n", 0],
  [
    "set -e; (( 1/0 )) || true; echo after",
    "bash: arithmetic expression: division by 0\nafter\n",
    0,
  ],
  [
    'if (( 7/0 )); then echo yes; fi; echo "after $?"',
    "bash: arithmetic expression: division by 0\nafter 0\n",
    0,
  ],
  ['let 1/0; echo "after $?"', "bash: let: 1/0: division by 0\nafter 1\n", 0],
  ['echo $((6 / 3)) $((7 % 4)); echo "after $?"', "2 3\nafter 0\n", 0],
];

Deno.test("worker shell: an arithmetic error in an expansion ends the block, as in bash", async () => {
  await assertBashCases([...ARITHMETIC_ENDS_THE_BLOCK, ...ARITHMETIC_ENDS_LESS]);
});

Deno.test("worker shell: a block ended by an arithmetic error changes nothing after it", async () => {
  await assertBashCases([
    ['touch kept; n=0; avg=$(( 10 / n )); rm kept; echo "avg $avg"', "bash: division by 0\n", 1],
    // The command after the error never ran.
    ["ls", "kept\n", 0],
  ]);
});

Deno.test("worker shell: the fatal-error capture changes nothing when it meets no such errors", async () => {
  const before = Object.getOwnPropertyDescriptor(Error, Symbol.hasInstance);
  assert.deepEqual(await makeShellErrorsFatal(() => Promise.resolve()), []);
  assert.equal(
    await makeShellErrorsFatal(() => Promise.reject(new Error("x"))).catch(() => "rejected"),
    "rejected",
  );
  // The watch is gone either way, and instanceof answers as before.
  assert.deepEqual(Object.getOwnPropertyDescriptor(Error, Symbol.hasInstance), before);
  assert.equal(new TypeError("t") instanceof Error, true);
  assert.equal({} instanceof Error, false);
});

import assert from "node:assert/strict";
import type { CommandNode } from "just-bash";
import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";
import { mergesStreams } from "./worker-shell-merged-streams.ts";

/**
 * A compound command whose redirections send stdout and stderr to one place
 * keeps the order of its commands' output (WS-166): what GNU bash 5.2
 * writes, stdout and stderr together, and its status. just-bash alone gave
 * all of a body's stdout, then all of its stderr (`a c b` for the first).
 */
const KEEPS_THE_ORDER: BashCase[] = [
  ["{ echo a; echo b >&2; echo c; } 2>&1 | cat", "a\nb\nc\n", 0],
  ['x=$( { echo a; echo b >&2; echo c; } 2>&1 ); echo "[$x]"', "[a\nb\nc]\n", 0],
  [
    "for i in 1 2 3; do echo out$i; echo err$i >&2; done 2>&1 | sed 's/^/> /'",
    "> out1\n> err1\n> out2\n> err2\n> out3\n> err3\n",
    0,
  ],
  [
    "i=0; while [ $i -lt 2 ]; do echo o$i; ls missing$i; i=$((i+1)); done 2>&1 | cat",
    "o0\nls: cannot access 'missing0': No such file or directory\no1\nls: cannot access 'missing1': No such file or directory\n",
    0,
  ],
  [
    "if echo cond; echo conderr >&2; true; then echo then; echo thenerr >&2; fi 2>&1 | cat",
    "cond\nconderr\nthen\nthenerr\n",
    0,
  ],
  ["case x in x) echo a; echo b >&2; echo c;; esac 2>&1 | cat", "a\nb\nc\n", 0],
  ["( echo a; echo b >&2; echo c ) 2>&1 | cat", "a\nb\nc\n", 0],
  ["{ echo a; echo b >&2; echo c; } &> log; cat log", "a\nb\nc\n", 0],
  ["{ echo a; echo b >&2; echo c; } > log 2>&1; cat log", "a\nb\nc\n", 0],
  ["{ echo a; echo b >&2; echo c; } 2>&1 > log; echo ---; cat log", "b\n---\na\nc\n", 0],
  ["{ echo a; echo b >&2; echo c; } >&2 2>/dev/null; echo done", "a\nc\ndone\n", 0],
  ["{ echo a; echo b >&2; echo c; } 1>&2 | sed 's/^/piped:/'", "a\nb\nc\n", 0],
  ["{ echo a; { echo b >&2; echo c; } ; echo d >&2; } 2>&1 | cat", "a\nb\nc\nd\n", 0],
  ["{ echo a; echo b >&2 | cat; echo c; } 2>&1 | cat", "a\nb\nc\n", 0],
  [
    "{ echo a; ls nothere | cat; echo c; } 2>&1 | cat",
    "a\nls: cannot access 'nothere': No such file or directory\nc\n",
    0,
  ],
  ["{ echo a; echo b 2>/dev/null >&2; echo c; } 2>&1 | cat", "a\nc\n", 0],
  ["{ echo a; echo b 2>&1 >/dev/null; echo c >&2; } 2>&1 | cat", "a\nc\n", 0],
  ["f() { echo fa; echo fb >&2; } 2>&1; f | cat", "fa\nfb\n", 0],
  ["{ echo a; x=$(echo sub >&2); echo c >&2; } 2>&1 | cat", "a\nsub\nc\n", 0],
  ["{ echo a; false || echo b >&2; echo c; } 2>&1 | cat", "a\nb\nc\n", 0],
  [
    '{ echo a; echo b >&2; exit 3; echo c; } 2>&1 | cat; echo "rc ${PIPESTATUS[0]}"',
    "a\nb\nrc 3\n",
    0,
  ],
  ["{ echo a >&2; echo b; } 2>&1 >/dev/null | cat", "a\n", 0],
  ["set -e; { echo a; false; echo c; } 2>&1 | cat; echo after", "a\nafter\n", 0],
  [
    "{ echo a; echo b >&2; } 2>&1 >>applog; { echo c >&2; } >>applog 2>&1; cat applog",
    "b\na\nc\n",
    0,
  ],
  ['for f in a b; do { echo "$f"; echo "e$f" >&2; } ; done 2>&1 | cat', "a\nea\nb\neb\n", 0],
  ["{ echo a; echo b >&2; echo c; } |& cat", "a\nb\nc\n", 0],
  ['{ echo a; read -r l <<< "x"; echo "$l" >&2; } 2>&1 | cat', "a\nx\n", 0],
  ['{ false | true; echo "${PIPESTATUS[@]}"; } 2>&1 | cat', "1 0\n", 0],
  ['{ true | false; echo "rc $?"; ! true | false; echo "neg $?"; } 2>&1 | cat', "rc 1\nneg 0\n", 0],
  ["set -e; { echo a; true | false; echo c; } 2>&1; echo after", "a\n", 1],
  ["set -e; { echo a; false | true; echo c; } 2>&1; echo after", "a\nc\nafter\n", 0],
  ['set -eo pipefail; { echo a; false | true; echo c; } 2>&1; echo "after $?"', "a\n", 1],
  [
    "for i in 1 2 3; do [ $i = 2 ] && continue; echo $i; echo e$i >&2; [ $i = 3 ] && break; done 2>&1 | cat",
    "1\ne1\n3\ne3\n",
    0,
  ],
  [
    "f() { echo a; echo b >&2; echo c; } 2>&1; f | cat; f 2>/dev/null | cat",
    "a\nb\nc\na\nb\nc\n",
    0,
  ],
  ["{ cat <<EOT\nhere\nEOT\necho b >&2; } 2>&1 | cat", "here\nb\n", 0],
  [
    '{ x=1; y=$(echo sub >&2; echo 2); echo "$x$y"; } 2>&1 | cat; echo "[$x$y]"',
    "sub\n12\n[]\n",
    0,
  ],
  ['{ cd /; echo "$PWD"; } 2>&1; pwd', "/\n/\n", 0],
  ["{ echo a; ls nothere; } 2>&1 | grep -c .", "2\n", 0],
  ['{ echo a >&2; } 2>&1 | { read -r l; echo "got $l"; }', "got a\n", 0],
  [
    "{ echo 1; echo 2 >&2; } > out 2>&1; { echo 3 >&2; echo 4; } >> out 2>&1; cat out",
    "1\n2\n3\n4\n",
    0,
  ],
  [
    'while read -r l; do echo "o $l"; echo "e $l" >&2; done <<< $\'x\\ny\' 2>&1 | cat',
    "o x\ne x\no y\ne y\n",
    0,
  ],
  ["{ { echo a; echo b >&2; } 2>/dev/null; echo c >&2; } 2>&1 | cat", "a\nc\n", 0],
  ["{ echo a; echo b >&2; } 2>&1 | tee log >/dev/null; cat log", "a\nb\n", 0],
];

Deno.test("worker shell: a compound command whose stdout and stderr go to one place keeps their order, as in bash", async () => {
  await assertBashCases(KEEPS_THE_ORDER);
});

Deno.test("worker shell: what stays out of order where both streams meet is what the spec says", async () => {
  await assertBashCases([
    // Within one command, its stdout comes before its stderr (bash: as the command writes them).
    [
      "touch f; { echo a; ls f nothere; } 2>&1 | cat",
      "a\nf\nls: cannot access 'nothere': No such file or directory\n",
      0,
    ],
    // A function's body where it is called, and a command substitution's stderr, keep just-bash's order.
    ["f() { echo a; echo b >&2; echo c; }; f 2>&1 | cat", "a\nc\nb\n", 0],
    ['{ echo a; echo "$(echo sub >&2; echo s)"; echo c; } 2>&1 | cat', "a\ns\nc\nsub\n", 0],
  ]);
});

type Redirection = Extract<CommandNode, { type: "Group" }>["redirections"][number];

function redirection(
  fd: number | null,
  operator: Redirection["operator"],
  target: string,
): Redirection {
  return {
    type: "Redirection",
    fd,
    operator,
    target: { type: "Word", parts: [{ type: "Literal", value: target }] },
  };
}

Deno.test("worker shell: redirections merge the streams only when they leave stdout and stderr at one place", () => {
  const merged: [string, Redirection[]][] = [
    ["2>&1", [redirection(2, ">&", "1")]],
    [">&2", [redirection(null, ">&", "2")]],
    ["&> log", [redirection(null, "&>", "log")]],
    [">&log", [redirection(null, ">&", "log")]],
    ["> log 2>&1", [redirection(null, ">", "log"), redirection(2, ">&", "1")]],
    ["2>/dev/null >&2", [redirection(2, ">", "/dev/null"), redirection(null, ">&", "2")]],
  ];
  const apart: [string, Redirection[]][] = [
    ["none", []],
    ["2>&1 > log", [redirection(2, ">&", "1"), redirection(null, ">", "log")]],
    ["> log 2> log", [redirection(null, ">", "log"), redirection(2, ">", "log")]],
    ["3>&1 1>&2 2>&3", [
      redirection(3, ">&", "1"),
      redirection(1, ">&", "2"),
      redirection(2, ">&", "3"),
    ]],
    ["2>&-", [redirection(2, ">&", "-")]],
    ["< in", [redirection(null, "<", "in")]],
  ];
  for (const [text, list] of merged) assert.equal(mergesStreams(list), true, text);
  for (const [text, list] of apart) assert.equal(mergesStreams(list), false, text);
});

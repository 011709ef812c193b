import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * `for NAME; do` iterates over the positional parameters one word each, as
 * `for NAME in "$@"` (WS-171): what GNU bash 5.2 writes and its status.
 * just-bash split them at spaces (`[a]`, `[b]`, `[c]` for the first).
 */
const FOR_ARGUMENTS: BashCase[] = [
  ['set -- "a b" c; for arg; do echo "[$arg]"; done', "[a b]\n[c]\n", 0],
  ['f() { for a; do echo "<$a>"; done; }; f "x y" z', "<x y>\n<z>\n", 0],
  ['f() { for a do echo "<$a>"; done; }; f "p  q" \'*\'', "<p  q>\n<*>\n", 0],
  ['set --; for x; do echo never; done; echo "none"', "none\n", 0],
  ["set -- 1 2; for x in; do echo never; done; echo empty-in", "empty-in\n", 0],
  ['IFS=:; set -- "a:b" c; for x; do echo "[$x]"; done', "[a:b]\n[c]\n", 0],
  [
    'f() { local n=0; for arg; do n=$((n+1)); done; echo "$n args"; }; f "" "x y" ""',
    "3 args\n",
    0,
  ],
];

Deno.test("worker shell: for without in iterates over the arguments one word each, as in bash", async () => {
  await assertBashCases(FOR_ARGUMENTS);
});

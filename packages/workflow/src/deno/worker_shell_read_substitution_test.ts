import { assertBashCases } from "./_test-bash-cases.ts";

/**
 * `$(<FILE)` of a missing file writes bash's message and has status 1
 * (WS-182; GNU bash 5.2's output below, but for its `line N:`), where
 * just-bash's shortcut gave an empty value silently; what it reads, a
 * function named `cat` and `$(</dev/null)` are as before.
 */
Deno.test("worker shell: $(<FILE) of a missing file says so and fails, as in bash", async () => {
  await assertBashCases([
    ['v=$(<nonexist); echo "rc $?"', "bash: nonexist: No such file or directory\nrc 1\n", 0],
    ['printf \'a\\n\\n\' > f; v="[$(<f)]"; echo "$v"; v=$(< f); echo "${#v}"', "[a]\n1\n", 0],
    ["cat() { echo fn; }; printf 'x\\n' > f; echo \"$(<f)\"", "x\n", 0],
    ["set -e; v=$(<missing); echo never", "bash: missing: No such file or directory\n", 1],
    [
      'f=nonexist; if v=$(<"$f"); then echo ok; else echo "no $f"; fi',
      "bash: nonexist: No such file or directory\nno nonexist\n",
      0,
    ],
    ['v=$(</dev/null); echo "[$v] $?"', "[] 0\n", 0],
  ], { fresh: true });
});

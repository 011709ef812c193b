import { assertBashCases } from "./_test-bash-cases.ts";

/**
 * A script a block runs from a file or a string gets the transforms its
 * own text may need, though the block's text does not show them: what GNU
 * bash 5.2 writes for `lib.sh` (a `for` without `in`, `set -e` with an `&&`
 * list and a command substitution that fails, arithmetic holding `${…}`),
 * run by `bash`, `sh` and `bash -c` from blocks whose text names none of
 * those. Before, each was left to just-bash (`<x>`, `<y>`, and the script
 * ended at the substitution). The text of `source` and `eval`: WS-177's
 * tests.
 */
Deno.test("worker shell: a script run by bash, sh or bash -c gets the transforms its text needs", async () => {
  const lib = [
    "set -e",
    'f() { for a; do echo "<$a>"; done; }',
    'f "x y" z',
    '[ -n "" ] && echo never',
    "x=10",
    "v=$(false; echo fb)",
    'echo "v=$v"',
    'echo "n=$(( ${x%0} + 1 ))"',
  ];
  const printed = "<x y>\n<z>\nv=fb\nn=2\n";
  await assertBashCases([
    [`printf '%s\\n' ${lib.map((line) => `'${line}'`).join(" ")} > lib.sh; echo made`, "made\n", 0],
    ['bash lib.sh; echo "rc=$?"', `${printed}rc=0\n`, 0],
    ['sh lib.sh; echo "rc=$?"', `${printed}rc=0\n`, 0],
    ['s=$(cat lib.sh); bash -c "$s"; echo "rc=$?"', `${printed}rc=0\n`, 0],
  ]);
});

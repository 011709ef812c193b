import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * `grep -r`'s folders and option clusters (WS-157), with what GNU bash 5.2
 * and GNU grep write (stdout and stderr together) and the status.
 */
const CASES: BashCase[] = [
  ["mkdir -p s/t; echo hi > s/t/a; grep -r hi .", "./s/t/a:hi\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -r hi ./", "./s/t/a:hi\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -r hi .//", "./s/t/a:hi\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -r hi ././", "././s/t/a:hi\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -rn hi s/", "s/t/a:1:hi\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -r hi", "s/t/a:hi\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -rl hi", "s/t/a\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -rq hi && echo found", "found\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep hi -rn .", "./s/t/a:1:hi\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -rc hi .", "./s/t/a:1\n", 0],
  ['mkdir -p s/t; echo hi > s/t/a; grep -rL zz .; echo "rc $?"', "./s/t/a\nrc 1\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -rh hi .", "hi\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -r -e hi .", "./s/t/a:hi\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -r -e hi", "s/t/a:hi\n", 0],
  [
    "mkdir -p s/t; printf 'x\\nhi\\ny\\nz\\nw\\nhi\\n' > s/t/a; grep -r -A1 hi .",
    "./s/t/a:hi\n./s/t/a-y\n--\n./s/t/a:hi\n",
    0,
  ],
  ["mkdir -p s/t; echo hi > s/t/a; grep -r --include='*.x' hi .; echo \"rc $?\"", "rc 1\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; cd s; grep -r hi ../s/", "../s/t/a:hi\n", 0],
  ["mkdir -p s/t; echo hi > s/t/a; grep -rm1 hi .", "./s/t/a:hi\n", 0],
  ['echo hi | grep -r hi -; echo "rc $?"', "hi\nrc 0\n", 0],
  ["printf 'a\\nhi\\n' > f; grep -inA2 hi f", "2:hi\n", 0],
];

Deno.test("worker shell: grep -r searches the working folder and names files as GNU's does", async () => {
  await assertBashCases(CASES, { fresh: true });
});

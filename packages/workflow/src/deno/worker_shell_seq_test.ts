import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * `seq -f FORMAT` (WS-161), with what GNU bash 5.2 and GNU seq write (stdout
 * and stderr together; GNU's quotes are its locale's, written here as `'`)
 * and the status.
 */
const CASES: BashCase[] = [
  ["seq -f '%03g' 3", "001\n002\n003\n", 0],
  ["seq -f 'file%02g.txt' 2", "file01.txt\nfile02.txt\n", 0],
  ["seq -f '%.2f' 0 0.25 1", "0.00\n0.25\n0.50\n0.75\n1.00\n", 0],
  ["seq -f '%e' 1 2", "1.000000e+00\n2.000000e+00\n", 0],
  ["seq -f '%g' 0 0.1 0.3", "0\n0.1\n0.2\n0.3\n", 0],
  ["seq -f '%g' 1000000 1000001", "1e+06\n1e+06\n", 0],
  ["seq -f '%g' 0.0001 0.00005 0.0002", "0.0001\n0.00015\n0.0002\n", 0],
  ["seq -f '%5g|' 3", "    1|\n    2|\n    3|\n", 0],
  ["seq -f '%-5g|' 2", "1    |\n2    |\n", 0],
  ["seq -f '%+g' -1 1", "-1\n+0\n+1\n", 0],
  ["seq -f '%G' 1e10 1e10", "1E+10\n", 0],
  ["seq -s, -f '%g' 3", "1,2,3\n", 0],
  ["seq -f%g 2", "1\n2\n", 0],
  ["seq --format='%.1f' 1 2", "1.0\n2.0\n", 0],
  ["seq -f '%d' 3; echo \"rc $?\"", "seq: format '%d' has unknown %d directive\nrc 1\n", 0],
  ["seq -f 'x' 3; echo \"rc $?\"", "seq: format 'x' has no % directive\nrc 1\n", 0],
  ["seq -f '%g%g' 3; echo \"rc $?\"", "seq: format '%g%g' has too many % directives\nrc 1\n", 0],
  [
    "seq -w -f '%g' 3; echo \"rc $?\"",
    "seq: format string may not be specified when printing equal width strings\nTry 'seq --help' for more information.\nrc 1\n",
    0,
  ],
  ["seq -f '%g' 5 -2 1", "5\n3\n1\n", 0],
  ["seq -f '%g' 3 1", "", 0],
  ["seq -f '%%%g' 2", "%1\n%2\n", 0],
  ["seq -f '%#g' 1", "1.00000\n", 0],
  ["seq -f '%08.3f' -1 -1", "-001.000\n", 0],
  ["seq 3", "1\n2\n3\n", 0],
  [
    "seq -f '%g' 1 x; echo \"rc $?\"",
    "seq: invalid floating point argument: 'x'\nTry 'seq --help' for more information.\nrc 1\n",
    0,
  ],
];

Deno.test("worker shell: seq -f formats each number as GNU seq does", async () => {
  await assertBashCases(CASES);
});

import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * Scripts with globs ending in `/` (WS-151), each run in an empty folder, with
 * what GNU bash 5.2 writes (stdout and stderr together) and its status.
 */
const CASES: BashCase[] = [
  [
    "mkdir -p d1 d2 'd 3' .hid e/f; touch f1 f2 e/g; ln -s d1 l1; ln -s f1 l2; for d in */; do echo \"[$d]\"; done",
    "[d 3/]\n[d1/]\n[d2/]\n[e/]\n[l1/]\n",
    0,
  ],
  ["mkdir -p d1 d2; touch f1; echo */; ls -d */", "d1/ d2/\nd1/\nd2/\n", 0],
  ['mkdir -p d1 d2; touch f1; a=(*/); echo "${#a[@]} ${a[*]}"', "2 d1/ d2/\n", 0],
  ['touch f1; echo */; for d in */; do echo "[$d]"; done', "*/\n[*/]\n", 0],
  ['touch f1; shopt -s nullglob; echo "[" */ "]"', "[ ]\n", 0],
  ["mkdir -p e/f e/g; touch e/h; echo e/*/; cd e && echo */", "e/f/ e/g/\nf/ g/\n", 0],
  ["mkdir -p x/a/b x/c; echo */*/ x/*/", "x/a/ x/c/ x/a/ x/c/\n", 0],
  ["mkdir -p ab ac b; echo a*/ [ab]*/ {a,b}*/", "ab/ ac/ ab/ ac/ b/ ab/ ac/ b/\n", 0],
  ['mkdir -p "s p/q"; d="s p"; echo "$d"/*/', "s p/q/\n", 0],
  ["mkdir -p d1; false; echo $? */", "1 d1/\n", 0],
  ["mkdir -p d1; set -f; echo */; set +f; echo */", "*/\nd1/\n", 0],
  [
    'mkdir -p d1 d2; set -e; cd d1 && cd .. && for d in */; do echo "$d"; done; echo end',
    "d1/\nd2/\nend\n",
    0,
  ],
  ["mkdir -p d1 d2; [ -d d1 ] || echo */; true && echo */", "d1/ d2/\n", 0],
  ["mkdir -p d1 .d2; shopt -s dotglob; echo */", ".d2/ d1/\n", 0],
  ["mkdir -p d1 d2; touch d1/f; echo */f", "d1/f\n", 0],
  ["mkdir -p a/d1; set -e; cd a && ls -d */ || echo none; echo end", "d1/\nend\n", 0],
  ['touch f; set -e; ls -d */ 2>/dev/null || echo "none $?"; echo end', "none 2\nend\n", 0],
  ['mkdir -p d1 d2; f() { for d in */; do echo "f $d"; done; }; f', "f d1/\nf d2/\n", 0],
  [
    "mkdir -p d1; n=0; while [ $n -lt 2 ] && ls -d */; do n=$((n+1)); mkdir -p d$((n+5)); done",
    "d1/\nd1/\nd6/\n",
    0,
  ],
  ["mkdir -p d1; echo \"*/\" '*/' \\*/ */x", "*/ */ */ */x\n", 0],
  ['mkdir -p d1 d2; x=$(echo */); echo "[$x]"', "[d1/ d2/]\n", 0],
];

Deno.test("worker shell: a glob ending in / matches folders and keeps the /, as in bash", async () => {
  await assertBashCases(CASES, { fresh: true });
});

import { assertBashCases } from "./_test-bash-cases.ts";

/**
 * Background jobs give bash's statuses (WS-183; GNU bash 5.2's output below,
 * but for its `line N:`): `cmd &` ends with status 0 and never ends the
 * script under `set -e`, `$!` is the job's id, `wait` answers the job's
 * status (`-n`, `%N`, a second `wait`, an id no job had), and a job's
 * assignments and `cd` stay in it. just-bash ran `cmd &` as `cmd`, `$!` was
 * 0 and `wait` always 0.
 */
Deno.test("worker shell: background jobs, $! and wait give bash's statuses", async () => {
  await assertBashCases([
    ["set -e; false & echo after", "after\n", 0],
    ['false & echo "st $?"', "st 0\n", 0],
    ['true & p=$!; [ "$p" -gt 0 ] && echo haspid', "haspid\n", 0],
    ['(exit 3) & p=$!; wait $p; echo "w $?"', "w 3\n", 0],
    ['(exit 3) & (exit 4) & wait; echo "all $?"', "all 0\n", 0],
    ['set -e; (exit 3) & p=$!; wait $p || echo "failed $?"; echo end', "failed 3\nend\n", 0],
    [
      'wait 99999; echo "rc $?"; wait abc; echo "rc $?"; (exit 3) & p=$!; wait $p; echo "first $?"; wait $p; echo "second $?"; wait -n; echo "n $?"; (exit 4) & (exit 5) & wait -n; echo "n1 $?"; wait -n; echo "n2 $?"; wait -n; echo "n3 $?"',
      "bash: wait: pid 99999 is not a child of this shell\nrc 127\nbash: wait: `abc': not a pid or valid job spec\nrc 1\nfirst 3\nsecond 3\nn 127\nn1 4\nn2 5\nn3 127\n",
      0,
    ],
    [
      'x=1 & wait; echo "${x:-unset}"; mkdir -p sub; cd sub & wait; basename "$PWD" | grep -c sub',
      "unset\n0\n",
      1,
    ],
    ['set -e; { false; echo not-here; } & wait $! || echo "job $?"; echo end', "job 1\nend\n", 0],
    [
      'pids=(); for i in 1 2 3; do (exit $i) & pids+=("$!"); done; fail=0; for p in "${pids[@]}"; do wait "$p" || fail=$((fail + 1)); done; echo "failures $fail"',
      "failures 3\n",
      0,
    ],
    ['echo "$!" | grep -c \'^$\'; true & echo "last ${!}" | grep -c last', "1\n1\n", 0],
    ['f() { (exit 7) & wait $!; }; f; echo "f $?"', "f 7\n", 0],
    ['(exit 2) & out=$(wait $!; echo "in sub $?"); echo "$out"', "in sub 2\n", 0],
    [
      'sleep 0.01 & wait %1; echo "spec $?"; wait %9; echo "nine $?"',
      "spec 0\nbash: wait: %9: no such job\nnine 127\n",
      0,
    ],
    ['true & true & wait $! $!; echo "two $?"', "two 0\n", 0],
    ['set -e; false & wait; echo "after all $?"', "after all 0\n", 0],
  ], { fresh: true });
});

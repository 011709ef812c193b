import { assertBashCases } from "./_test-bash-cases.ts";

/**
 * `BASH_SOURCE` names the file whose code runs (WS-192), with what GNU bash
 * 5.2 writes: a script run by `bash FILE`, a sourced file (and the file that
 * sourced it), a function (the file that defined it), `eval` (no file of its
 * own), and the usual `DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"`.
 * just-bash filled it only inside functions, so that line named the working
 * folder.
 */
Deno.test("worker shell: BASH_SOURCE names the file whose code runs, as in bash", async () => {
  await assertBashCases([
    [
      'mkdir -p scripts lib; printf \'f() { echo "f: ${BASH_SOURCE[*]}"; }\\necho "lib top: ${BASH_SOURCE[*]}"\\n\' > lib/l.sh; printf \'echo "s top: ${BASH_SOURCE[*]} | $0"\\n. lib/l.sh\\nf\\ng() { echo "g: ${BASH_SOURCE[*]}"; }\\ng\\neval \'"\'"\'echo "eval: ${BASH_SOURCE[*]}"\'"\'"\'\\n\' > scripts/s.sh; bash scripts/s.sh',
      "s top: scripts/s.sh | scripts/s.sh\nlib top: lib/l.sh scripts/s.sh\nf: lib/l.sh scripts/s.sh\ng: scripts/s.sh scripts/s.sh\neval: scripts/s.sh\n",
      0,
    ],
    [
      'mkdir -p scripts lib; printf \'f() { echo "f: ${BASH_SOURCE[*]}"; }\\necho "lib top: ${BASH_SOURCE[*]}"\\n\' > lib/l.sh; printf \'echo "s top: ${BASH_SOURCE[*]}"\\n. lib/l.sh\\nf\\n\' > scripts/s.sh; echo "top: [${BASH_SOURCE[*]}]"; . scripts/s.sh; echo "after: [${BASH_SOURCE[*]}]"',
      "top: []\ns top: scripts/s.sh\nlib top: lib/l.sh scripts/s.sh\nf: lib/l.sh scripts/s.sh\nafter: []\n",
      0,
    ],
    [
      'mkdir -p scripts; printf \'DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; echo "${DIR##*/}"; cat "$DIR/data.txt"\\n\' > scripts/s.sh; echo sibling > scripts/data.txt; bash scripts/s.sh; chmod +x scripts/s.sh; ./scripts/s.sh; source scripts/s.sh',
      "scripts\nsibling\nscripts\nsibling\nscripts\nsibling\n",
      0,
    ],
    [
      "printf 'echo \"[${BASH_SOURCE[0]}]\"\\n' > s.sh; bash -c 'echo \"c: [${BASH_SOURCE[*]}]\"'; bash s.sh; bash missing.sh; bash -c 'echo \"c2: [${BASH_SOURCE[*]}]\"'",
      "c: []\n[s.sh]\nbash: missing.sh: No such file or directory\nc2: []\n",
      0,
    ],
  ], { fresh: true });
});

import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * Quoted defaults and alternatives of unset parameters under `set -u`
 * (WS-152), with what GNU bash 5.2 writes (stdout and stderr together) and
 * its status.
 */
const CASES: BashCase[] = [
  ['set -u; echo "${UNSET:-default}"', "default\n", 0],
  ['set -u; [ "${X:-}" = "" ] && echo ok', "ok\n", 0],
  ['set -euo pipefail; f() { echo "${1:-none}" "${2:+two}"; }; f; f a b', "none \na two\n", 0],
  ['set -u; echo "${X:=v}" "$X"', "v v\n", 0],
  ['set -u; echo "[${X-}]"', "[]\n", 0],
  ['set -u; a=(); echo "${a[@]:-e}"', "e\n", 0],
  ['set -u; Y="a  b"; printf "[%s]" "${Y:-d}" "${Z:-x  y}"; echo', "[a  b][x  y]\n", 0],
  ['set -u; x=1; echo "${x:+$x set}"', "1 set\n", 0],
  ['set -o nounset; for a in "${X:-q}"; do echo "$a"; done', "q\n", 0],
  ['set -u; case "${1:-}" in "") echo empty;; esac', "empty\n", 0],
  ['set -u; DEBUG="${DEBUG:-0}"; if [ "${DEBUG}" = 0 ]; then echo quiet; fi', "quiet\n", 0],
];

Deno.test("worker shell: under set -u a quoted default of an unset parameter expands, as in bash", async () => {
  await assertBashCases(
    CASES.map(([script, output, status]) => [`unset X Y Z UNSET DEBUG; ${script}`, output, status]),
  );
});

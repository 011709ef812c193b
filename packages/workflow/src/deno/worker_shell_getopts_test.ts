import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * `getopts` leaves `OPTIND` set at the end of the options (WS-173): what GNU
 * bash 5.2 writes and its status. just-bash left a `local OPTIND` unset when
 * no option was given, so `shift $((OPTIND - 1))` under `set -u` ended the
 * script.
 */
const GETOPTS: BashCase[] = [
  [
    'set -u; f() { local OPTIND; getopts "v" o bob; echo "rc=$? OPTIND=$OPTIND"; }; f',
    "rc=1 OPTIND=1\n",
    0,
  ],
  [
    'f() { local OPTIND; getopts "v" o bob; echo "rc=$? OPTIND=${OPTIND-unset}"; }; f',
    "rc=1 OPTIND=1\n",
    0,
  ],
  ['f() { local OPTIND; echo "[${OPTIND-unset}]"; }; f', "[unset]\n", 0],
  [
    'set -u; echo "$OPTIND"; f() { local OPTIND; getopts "v" o -v; echo "$OPTIND"; }; f; echo "$OPTIND"',
    "1\n2\n1\n",
    0,
  ],
  [
    'set -euo pipefail; f() { local OPTIND opt v=0; while getopts ":vn:" opt; do case $opt in v) v=1;; n) echo "n=$OPTARG";; :) echo "missing for -$OPTARG";; \\?) echo "bad -$OPTARG";; esac; done; shift $((OPTIND - 1)); echo "v=$v rest=$*"; }; f -v -n 3 a b; f c d; f -x; f -n',
    "n=3\nv=1 rest=a b\nv=0 rest=c d\nbad -x\nv=0 rest=\nmissing for -n\nv=0 rest=\n",
    0,
  ],
  [
    'set -e; while getopts "ab" o -a -b; do echo "$o"; done; echo "end $OPTIND"',
    "a\nb\nend 3\n",
    0,
  ],
  ['set -e; getopts "a" o -z 2>&1; echo "o=$o"', "bash: illegal option -- z\no=?\n", 0],
  [
    'set -eu; f() { local OPTIND; getopts "a" o x || echo "done $?"; echo "OPTIND=$OPTIND"; }; f',
    "done 1\nOPTIND=1\n",
    0,
  ],
  ['set -e; getopts "a" o x; echo never', "", 1],
  [
    'set -o errexit -o nounset -o pipefail\nusage() { echo "usage: $0 [-v] name" >&2; return 2; }\nparse() {\n  local verbose=0 OPTIND opt\n  while getopts ":v" opt; do\n    case $opt in\n      v) verbose=1 ;;\n      *) usage; return ;;\n    esac\n  done\n  shift $((OPTIND - 1))\n  [[ $# -ge 1 ]] || { usage; return; }\n  echo "verbose=$verbose name=$1"\n}\nparse -v alice\nparse bob\nparse -x carol || echo "rc=$?"',
    "verbose=1 name=alice\nverbose=0 name=bob\nusage: bash [-v] name\nrc=2\n",
    0,
  ],
  ['set -u; f() { local OPTIND; getopts "v" o -v; echo "$o"; }; f', "v\n", 0],
  [
    'set -u; f() { local OPTIND opt; while getopts "v" opt; do echo "$opt"; done; }; f -v',
    "v\n",
    0,
  ],
  ['set -u; unset OPTIND; getopts "v" o -v; echo "$o $OPTIND"', "v 2\n", 0],
  ['set -u; f() { local OPTARG; getopts "a:" o -a val; echo "$o $OPTARG"; }; f', "a val\n", 0],
];

Deno.test("worker shell: getopts leaves OPTIND set at the end of the options, as in bash", async () => {
  await assertBashCases(GETOPTS);
});

import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * `local`, `declare` or `typeset` of an array gets one element per word
 * (WS-175): what GNU bash 5.2 writes and its status. just-bash joined the
 * list's expansions into one element.
 */
const DECLARED_ARRAYS: BashCase[] = [
  ['f() { local cmd=("$@"); echo "${#cmd[@]}"; }; f a b c', "3\n", 0],
  ['f() { local cmd=(x y); echo "${#cmd[@]}"; }; f', "2\n", 0],
  ['f() { local -a cmd=("$@"); echo "${#cmd[@]}"; }; f a b c', "3\n", 0],
  ['f() { declare cmd=("$@"); echo "${#cmd[@]}"; }; f a "b c"', "2\n", 0],
  ['f() { local cmd; cmd=("$@"); echo "${#cmd[@]}"; }; f a b c', "3\n", 0],
  ["f() { local a=($(echo p q)); echo ${#a[@]}; }; f", "2\n", 0],
  ["f() { local a=(x\\ y 'p q' \"r s\"); echo ${#a[@]}; }; f", "3\n", 0],
  ['f() { local a=("$@"); printf \'[%s]\' "${a[@]}"; echo; }; f "x y" "" z', "[x y][][z]\n", 0],
  [
    'f() { local a=("${@:2}" last); printf \'[%s]\' "${a[@]}"; echo; }; f 1 2 3',
    "[2][3][last]\n",
    0,
  ],
  ['g=(a "b c"); f() { declare -a l=("${g[@]}"); echo "${#l[@]} ${l[1]}"; }; f', "2 b c\n", 0],
  ['f() { local a=() b=("$@"); echo "${#a[@]} ${#b[@]}"; }; f 1 2', "0 2\n", 0],
  ['f() { declare -A m=([k]=v [j]="x y"); echo "${m[j]} ${#m[@]}"; }; f', "x y 2\n", 0],
  ['f() { local -a a=(1 2) b=(3 "$@"); echo "${#a[@]} ${#b[@]}"; }; f x y', "2 3\n", 0],
  ['f() { declare -g G=("$@"); }; f p q; echo "${#G[@]} ${G[1]}"', "2 q\n", 0],
  ['f() { local a=( "$@" ); local b; b=( "${a[@]/#/-}" ); echo "${b[*]}"; }; f 1 2', "-1 -2\n", 0],
  [
    'set -u; f() { local files=("$@"); for x in "${files[@]}"; do echo "[$x]"; done; }; f "a b" c',
    "[a b]\n[c]\n",
    0,
  ],
  ['f() { local x=1 a=(1 2) y=$x; echo "$x ${#a[@]} $y"; }; f', "1 2 \n", 0],
  [
    'local_array() { local -a list=(); list+=("$@"); echo "${#list[@]}"; }; local_array 1 2 3',
    "3\n",
    0,
  ],
  ["f() { typeset -a t=($(printf '%s\\n' a b c)); echo \"${t[2]}\"; }; f", "c\n", 0],
];

Deno.test("worker shell: local and declare of an array get one element per word, as in bash", async () => {
  await assertBashCases(DECLARED_ARRAYS);
});

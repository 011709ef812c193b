import assert from "node:assert/strict";
import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";
import { fieldPowers } from "./worker-shell-awk-powers.ts";
import { splitSeparators } from "./worker-shell-awk-split.ts";

/**
 * awk's variables given on its command line and its program read from a
 * file (WS-156), with what this machine's awk (mawk) and GNU bash 5.2 write
 * (stdout and stderr together) and the status.
 */
const CASES: BashCase[] = [
  ["echo 'a,b,c' | awk -F, -v OFS=';' '{$1=$1; print}'", "a;b;c\n", 0],
  ["echo 'a,b,c' | awk -F, -v OFS=';' '{print $1,$2}'", "a;b\n", 0],
  ["echo 'a b c' | awk -v OFS=- '{$2=\"X\"; print}'", "a-X-c\n", 0],
  ["echo 'a b c' | awk '{$2=\"X\"; print}' OFS=-", "a-X-c\n", 0],
  ["echo 'a b' | awk -v ORS=';' '{print $1}'; echo", "a;\n", 0],
  ["printf 'a:b\\n' | awk -v FS=: '{print $2}'", "b\n", 0],
  ["printf 'a:b\\n' | awk -vFS=: '{print $2}'", "b\n", 0],
  ["echo x | awk -vn=3 '{print n+1}'", "4\n", 0],
  ["printf 'a b\\n' > in; awk '{print $1, x}' x=5 in", "a 5\n", 0],
  [
    "printf 'a\\tb\\n' | awk -v 'OFS=\\t' '{$1=$1; print}' | od -c | head -1",
    "0000000   a  \\t   b  \\n\n",
    0,
  ],
  ["printf '{ print \"p:\" $1 }\\n' > p.awk; echo 'a b' | awk -f p.awk", "p:a\n", 0],
  [
    "echo 'a' | awk -f missing.awk; echo \"rc $?\"",
    "awk: cannot open missing.awk (No such file or directory)\nrc 2\n",
    0,
  ],
  ["echo 'a b' | awk -v x=1 '{print x, $2}'", "1 b\n", 0],
  ["awk 'BEGIN { printf \"%d\\n\", 3 }'", "3\n", 0],
  ["echo 'x y' | awk -v OFS=: -F' ' '{print $1, $2}'", "x:y\n", 0],
  ["echo 'q' | awk -v OFS='\"' '{print $1, $1}'", 'q"q\n', 0],
];

Deno.test("worker shell: awk reads -v OFS=, -vNAME=, NAME= operands and -f FILE as awk does", async () => {
  await assertBashCases(CASES, { fresh: true });
});

/** A field raised to a power (WS-164), with what this machine's awk (mawk) writes. */
const POWERS: BashCase[] = [
  ["echo \"2 3\" | awk '{print $1^2, $NF^2, $(1)^3, 2^$1, -$1^2, $1 ^ 2}'", "4 9 8 4 -4 4\n", 0],
  ["echo \"2 3\" | awk '{x=$1; print x^2, $1*$2, $1+$2^2}'", "4 6 11\n", 0],
  ['echo "2 3" | awk \'{print "$1^2", $1 "^" $2}\'', "$1^2 2^3\n", 0],
  ["echo \"2 3\" | awk '/^2/ {print $2^2}'", "9\n", 0],
  ["echo \"2 3\" | awk '{i=2; print $i^2; a[1]=1; print $a[1]^2}'", "9\n4\n", 0],
  ["echo \"2 3\" | awk '{$1^=3; print $1}'", "8\n", 0],
  ["echo \"8 2\" | awk '{print $1/$2^2}'", "2\n", 0],
  ["echo \"2 3\" | awk '{ # comment $1^2\nprint $1^2 }'", "4\n", 0],
  ['echo "4 3" | awk \'$1^2 > 10 {print "big"}\'', "big\n", 0],
  ["echo \"2 3\" | awk '{print $1^$2}'", "8\n", 0],
];

Deno.test("worker shell: awk raises a field to a power as awk does ($1^2 is the field squared)", async () => {
  await assertBashCases(POWERS);
});

Deno.test("worker shell: a power's field is put in parentheses, and nothing in a string, regex or comment", () => {
  assert.equal(
    fieldPowers("{ print $1^2, $NF ** 2, $(i+1)^3, $a[1]^2 }"),
    "{ print ($1)^2, ($NF) ** 2, ($(i+1))^3, ($a[1])^2 }",
  );
  const untouched = '{ print "$1^2" } /\\$1^/ { $1 ^= 2 } # $1^2\n{ print $1, 2^$1 }';
  assert.equal(fieldPowers(untouched), untouched);
});

/**
 * A one-character field separator is that character (WS-186), as this
 * machine's awk (mawk) and POSIX read it: just-bash's read `.`, `|`, `^` and
 * `$` as regular expressions (`-F.` split at every character).
 */
Deno.test("worker shell awk: a one-character field separator is that character", async () => {
  await assertBashCases([
    ["echo 'a.b.c' | awk -F. '{print $NF, NF}'", "c 3\n", 0],
    ["echo 'a|b|c' | awk -F'|' '{print $2}'", "b\n", 0],
    ["echo 'a.b.c' | awk 'BEGIN{FS=\".\"} {print $2}'", "b\n", 0],
    ["echo 'a.b.c' | awk -v FS=. '{print $2}'", "b\n", 0],
    ["echo 'a+b+c' | awk -F+ '{print $3}'", "c\n", 0],
    ["echo 'a.b.c' | awk '{n = split($0, p, \".\"); print n, p[2]}'", "3 b\n", 0],
    ["echo 'a^b' | awk -F^ '{print $2}'", "b\n", 0],
    ["echo 'a$b' | awk -F'$' '{print $2}'", "b\n", 0],
    ["echo 'a*b' | awk -F'*' '{print $2}'", "b\n", 0],
    ["echo 'a?b' | awk -F? '{print $2}'", "b\n", 0],
    ["echo 'a(b' | awk -F'(' '{print $2}'", "b\n", 0],
    ["echo 'a[b' | awk -F'[' '{print $2}'", "b\n", 0],
    ["echo 'a.b' | awk -F'[.]' '{print $2}'", "b\n", 0],
    ["echo 'a\\b' | awk -F'\\\\' '{print $2}'", "b\n", 0],
    ["echo 'aXbxc' | awk -Fx '{print $2}'", "c\n", 0],
    ["echo 'a\tb c' | awk -F'\\t' '{print $2}'", "b c\n", 0],
    ["echo 'a b' | awk -F' ' '{print $2}'", "b\n", 0],
    ["echo 'a.b.c' | awk '{gsub(\".\", \"-\"); print}'", "-----\n", 0],
    ['echo \'a.b\' | awk \'{OFS="."; $1=$1; n=split("x.y.z", q, "."); print n}\'', "3\n", 0],
  ]);
});

/**
 * `split`'s separator string of more than one character is a regular
 * expression (WS-189), as this machine's awk (mawk) and POSIX read it:
 * just-bash's split at the literal text (`split($0, p, ", *")` found one
 * part).
 */
Deno.test("worker shell awk: split's separator string of several characters is a regular expression", async () => {
  await assertBashCases([
    ["echo 'a,b;c' | awk '{n = split($0, p, /[,;]/); print n, p[3]}'", "3 c\n", 0],
    ["echo 'a, b,c' | awk '{n = split($0, p, \", *\"); print n, p[2]}'", "3 b\n", 0],
    ["echo 'a.b.c' | awk '{n = split($0, p, \"[.]\"); print n, p[2]}'", "3 b\n", 0],
    ["echo 'a1b22c' | awk '{n = split($0, p, \"[0-9]+\"); print n, p[3]}'", "3 c\n", 0],
    ["echo 'a b  c' | awk '{n = split($0, p, \" \"); print n, p[3]}'", "3 c\n", 0],
    ["echo 'a:b:c' | awk '{n = split($0, p, \":\"); print n, p[3]}'", "3 c\n", 0],
    ["echo 'aXXbXXc' | awk '{n = split($0, p, \"XX\"); print n, p[2]}'", "3 b\n", 0],
    ["echo 'a b' | awk '{n = split($0, p); print n, p[2]}'", "2 b\n", 0],
    ["echo 'a,b;c' | awk -F'[,;]' '{print NF, $3}'", "3 c\n", 0],
    ["echo 'a, b,c' | awk -F', *' '{print NF, $2}'", "3 b\n", 0],
    ["echo 'k1=v1&k2=v2' | awk '{gsub(/&/, \"\\n\"); print}'", "k1=v1\nk2=v2\n", 0],
    ["echo 'a-b' | awk '{sub(\"-\", \"+\"); print}'", "a+b\n", 0],
    ["echo 'a.b' | awk '{gsub(\".\", \"x\"); print}'", "xxx\n", 0],
    ["echo 'path/to/x' | awk '{n = split($0, p, \"/\"); print p[n]}'", "x\n", 0],
  ]);
});

Deno.test("worker shell awk: only a split whose third argument is a string of several characters is rewritten", () => {
  assert.equal(splitSeparators('{ n = split($0, p, ", *") }'), "{ n = split($0, p, /, */) }");
  assert.equal(splitSeparators('{ split(a, b, "a/b\\"c") }'), '{ split(a, b, /a\\/b"c/) }');
  for (
    const program of [
      '{ split($0, p, ",") }',
      "{ split($0, p, sep) }",
      "{ split($0, p, /[,;]/) }",
      "{ split($0, p) }",
      '{ print "split(x, y, \\"ab\\")" }',
    ]
  ) assert.equal(splitSeparators(program), program, program);
});

import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * A folder, or a missing file, given to a command that reads files (WS-158),
 * with what GNU bash 5.2 and coreutils write (stdout and stderr together)
 * and the status.
 */
const CASES: BashCase[] = [
  ['mkdir d; cat d; echo "rc $?"', "cat: d: Is a directory\nrc 1\n", 0],
  ['mkdir d; cut -c1 d; echo "rc $?"', "cut: d: Is a directory\nrc 1\n", 0],
  ['mkdir d; nl d; echo "rc $?"', "nl: d: Is a directory\nrc 1\n", 0],
  ['mkdir d; paste d; echo "rc $?"', "paste: d: Is a directory\nrc 1\n", 0],
  ['mkdir d; fold d; echo "rc $?"', "fold: d: Is a directory\nrc 1\n", 0],
  ['mkdir d; md5sum d; echo "rc $?"', "md5sum: d: Is a directory\nrc 1\n", 0],
  ['mkdir d; sha256sum d; echo "rc $?"', "sha256sum: d: Is a directory\nrc 1\n", 0],
  ['mkdir d; sha1sum d; echo "rc $?"', "sha1sum: d: Is a directory\nrc 1\n", 0],
  ['mkdir d; expand d; echo "rc $?"', "expand: d: Is a directory\nrc 1\n", 0],
  ['mkdir d; comm d d; echo "rc $?"', "comm: d: Is a directory\nrc 1\n", 0],
  ['mkdir d; head d; echo "rc $?"', "head: error reading 'd': Is a directory\nrc 1\n", 0],
  ['mkdir d; tail d; echo "rc $?"', "tail: error reading 'd': Is a directory\nrc 1\n", 0],
  ['cat missing; echo "rc $?"', "cat: missing: No such file or directory\nrc 1\n", 0],
  ['md5sum missing; echo "rc $?"', "md5sum: missing: No such file or directory\nrc 1\n", 0],
  [
    "printf 'x' > f; md5sum f missing; echo \"rc $?\"",
    "9dd4e461268c8034f5c8564e155c67a6  f\nmd5sum: missing: No such file or directory\nrc 1\n",
    0,
  ],
  ['mkdir d; echo x > f; cat f d; echo "rc $?"', "x\ncat: d: Is a directory\nrc 1\n", 0],
  ['mkdir -p a/b; cat a/b; echo "rc $?"', "cat: a/b: Is a directory\nrc 1\n", 0],
  ['mkdir d; nl missing; echo "rc $?"', "nl: missing: No such file or directory\nrc 1\n", 0],
];

Deno.test("worker shell: commands that read files say a folder is one, as GNU's do", async () => {
  await assertBashCases(CASES, { fresh: true });
});

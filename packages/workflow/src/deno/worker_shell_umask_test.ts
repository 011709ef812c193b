import { assertBashCases, type BashCase } from "./_test-bash-cases.ts";

/**
 * `umask` (WS-163), with what GNU bash 5.2 and coreutils write (stdout and
 * stderr together; bash's `line N:` left out) and the status.
 */
const CASES: BashCase[] = [
  ["umask; umask -S; umask -p", "0022\nu=rwx,g=rx,o=rx\numask 0022\n", 0],
  ["umask 077; touch f; mkdir d; echo x > g; stat -c '%a %n' f d g", "600 f\n700 d\n600 g\n", 0],
  ["umask 027; echo x > f; mkdir -p a/b; stat -c '%a %n' f a a/b", "640 f\n750 a\n750 a/b\n", 0],
  ["umask u=rwx,g=rx,o=; umask", "0027\n", 0],
  ["umask g-w,o-rwx; umask", "0027\n", 0],
  ["umask a=rx; umask", "0222\n", 0],
  ['umask 8; echo "rc $?"', "bash: umask: 8: octal number out of range\nrc 1\n", 0],
  ['umask x; echo "rc $?"', "bash: umask: `x': invalid symbolic mode operator\nrc 1\n", 0],
  ['umask 77777; echo "rc $?"', "bash: umask: 77777: octal number out of range\nrc 1\n", 0],
  ['umask u=rwz; echo "rc $?"', "bash: umask: `z': invalid symbolic mode character\nrc 1\n", 0],
  ["set -e; umask 077; echo ok", "ok\n", 0],
  ["touch f; stat -c %a f; mkdir d; stat -c %a d", "644\n755\n", 0],
  ["touch f; umask 077; echo x >> f; stat -c %a f", "644\n", 0],
  ["umask 077; mkdir -m 755 d; stat -c %a d", "755\n", 0],
  ["umask 077; mkdir -m u+w d; stat -c %a d", "777\n", 0],
  ["umask 0; touch f; stat -c %a f", "666\n", 0],
];

Deno.test("worker shell: umask prints and sets the mask new files and folders get, as bash's does", async () => {
  await assertBashCases(CASES, { fresh: true });
});

Deno.test("worker shell: each block starts with the mask 022", async () => {
  await assertBashCases([
    ["umask 077; touch a; stat -c %a a", "600\n", 0],
    ["umask; touch b; stat -c %a b", "0022\n644\n", 0],
  ]);
});

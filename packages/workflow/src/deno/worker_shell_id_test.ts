import { assertBashCases } from "./_test-bash-cases.ts";

/**
 * `id` and `groups` print the block's one identity, the one `whoami` and
 * `$UID` give (WS-193), with GNU's options and refusals (the C locale's
 * quotes); just-bash had neither ("command not found", status 127).
 */
Deno.test("worker shell: id and groups print the identity whoami and $UID give, as GNU's do", async () => {
  await assertBashCases([
    ["id", "uid=1000(user) gid=1000(user) groups=1000(user)\n", 0],
    [
      "id -u; id -un; id -g; id -Gn; id -ur; id --user --name",
      "1000\nuser\n1000\nuser\n1000\nuser\n",
      0,
    ],
    ['[ "$(id -u)" -eq "$UID" ] && [ "$(id -un)" = "$(whoami)" ] && echo same', "same\n", 0],
    ['set -e; if [ "$(id -u)" -eq 0 ]; then echo root; else echo "not root"; fi', "not root\n", 0],
    ["id user; id 1000", "uid=1000(user) gid=1000(user) groups=1000(user)\n".repeat(2), 0],
    ['id -u -g; echo "rc $?"', 'id: cannot print "only" of more than one choice\nrc 1\n', 0],
    ['id -n; echo "rc $?"', "id: cannot print only names or real IDs in default format\nrc 1\n", 0],
    ['id root; echo "rc $?"', "id: 'root': no such user\nrc 1\n", 0],
    [
      'groups; groups user; groups nosuch; echo "rc $?"',
      "user\nuser : user\ngroups: 'nosuch': no such user\nrc 1\n",
      0,
    ],
  ]);
});

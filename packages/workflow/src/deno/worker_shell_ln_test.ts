import { assertBashCases } from "./_test-bash-cases.ts";

/**
 * `ln` as GNU's (WS-191), with what GNU ln and bash 5.2 write: a link into a
 * folder named as its target's last part (`ln -s ../a d/`), `ln TARGET`
 * alone, `-t`, `-T`, `-f`, `-n`, `-v`, and GNU's refusals. just-bash's made
 * `d/` itself the link (refused), and wrote the Workspace's own words.
 */
Deno.test("worker shell: ln makes links and refuses as GNU ln does", async () => {
  await assertBashCases([
    [
      'ln -s target link; ln -s target link; echo "rc $?"',
      "ln: failed to create symbolic link 'link': File exists\nrc 1\n",
      0,
    ],
    [
      'touch a; ln a b; ln a b; echo "rc $?"',
      "ln: failed to create hard link 'b': File exists\nrc 1\n",
      0,
    ],
    [
      'ln missing hard; echo "rc $?"',
      "ln: failed to access 'missing': No such file or directory\nrc 1\n",
      0,
    ],
    [
      'ln -s t nodir/link; echo "rc $?"',
      "ln: failed to create symbolic link 'nodir/link': No such file or directory\nrc 1\n",
      0,
    ],
    ['touch a; ln -sf a link; ln -sf a link; readlink link; echo "rc $?"', "a\nrc 0\n", 0],
    ["mkdir d; touch a; ln -s ../a d/; ls d", "a\n", 0],
    [
      'touch a; ln -s a; echo "rc $?"',
      "ln: failed to create symbolic link './a': File exists\nrc 1\n",
      0,
    ],
    [
      'touch a; mkdir nodir2; ln a nodir/x; echo "rc $?"',
      "ln: failed to create hard link 'nodir/x' => 'a': No such file or directory\nrc 1\n",
      0,
    ],
    ['mkdir d; ln d hardd; echo "rc $?"', "ln: d: hard link not allowed for directory\nrc 1\n", 0],
    ['ln -s a b c; echo "rc $?"', "ln: target 'c': No such file or directory\nrc 1\n", 0],
    ["mkdir d; touch x y; ln -s ../x ../y d; ls d", "x\ny\n", 0],
    [
      'mkdir d; touch x; ln -sv ../x d/ ; ln -t d -s ../x 2>&1; echo "rc $?"',
      "'d/x' -> '../x'\nln: failed to create symbolic link 'd/x': File exists\nrc 1\n",
      0,
    ],
    ["touch a; ln -s a l1; ln -sfn a l1; readlink l1", "a\n", 0],
    [
      'ln -x a b; echo "rc $?"',
      "ln: invalid option -- 'x'\nTry 'ln --help' for more information.\nrc 1\n",
      0,
    ],
    [
      'ln; echo "rc $?"',
      "ln: missing file operand\nTry 'ln --help' for more information.\nrc 1\n",
      0,
    ],
    [
      'mkdir d; ln -sT x d; echo "rc $?"',
      "ln: failed to create symbolic link 'd': File exists\nrc 1\n",
      0,
    ],
  ], { fresh: true });
});

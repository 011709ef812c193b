/**
 * `id` and `groups` in Worker Shell (WS-193), which just-bash lacks ("command
 * not found", status 127, so under `set -e` a script's
 * `if [ "$(id -u)" -eq 0 ]` ended the block). They print the one identity
 * the interpreter gives a block, the one `whoami` (`user`) and `$UID` and
 * `$EUID` (1000) give: user `user`, uid 1000, group `user`, gid 1000, in no
 * other group; real and effective are the same.
 *
 * - `id` prints `uid=1000(user) gid=1000(user) groups=1000(user)`; `-u`,
 *   `-g` and `-G` print one of them, by name with `-n`; `-r` changes
 *   nothing. `id USER` and `groups USER` take `user` or `1000` and refuse
 *   any other name as GNU does (`id: 'NAME': no such user`, status 1).
 * - `groups` prints `user`, and `user : user` when given the name.
 * - GNU's refusals of `-n` or `-r` alone and of two of `-u`, `-g`, `-G`, in
 *   its words, status 1; its quotes are the C locale's.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { Command, ExecResult } from "npm:just-bash@3.4.2";

const USER = "user";
const ID = 1000;

function failed(stderr: string): ExecResult {
  return { stdout: "", stderr, exitCode: 1 };
}

/** Whether `name` names the block's user, by name or by id. */
function isUser(name: string): boolean {
  return name === USER || name === String(ID);
}

/** `id` (see the module's documentation). */
export const idCommand: Command = {
  name: "id",
  trusted: true,
  execute(args: string[]): Promise<ExecResult> {
    const only = new Set<string>();
    let names = false;
    let real = false;
    const operands: string[] = [];
    let options = true;
    for (const arg of args) {
      if (!options || !arg.startsWith("-") || arg === "-") {
        operands.push(arg);
        continue;
      }
      if (arg === "--") {
        options = false;
        continue;
      }
      const long: Record<string, string> = {
        "--user": "u",
        "--group": "g",
        "--groups": "G",
        "--name": "n",
        "--real": "r",
      };
      const letters = arg.startsWith("--") ? long[arg] ?? "?" : arg.slice(1);
      for (const letter of letters) {
        if (letter === "u" || letter === "g" || letter === "G") only.add(letter);
        else if (letter === "n") names = true;
        else if (letter === "r") real = true;
        else {
          return Promise.resolve(failed(
            arg.startsWith("--")
              ? `id: unrecognized option '${arg}'\nTry 'id --help' for more information.\n`
              : `id: invalid option -- '${letter}'\nTry 'id --help' for more information.\n`,
          ));
        }
      }
    }
    if (operands.length > 1) {
      return Promise.resolve(
        failed(`id: extra operand '${operands[1]}'\nTry 'id --help' for more information.\n`),
      );
    }
    if (operands.length === 1 && !isUser(operands[0])) {
      return Promise.resolve(failed(`id: '${operands[0]}': no such user\n`));
    }
    if (only.size > 1) {
      return Promise.resolve(failed(`id: cannot print "only" of more than one choice\n`));
    }
    if (only.size === 0 && (names || real)) {
      return Promise.resolve(
        failed("id: cannot print only names or real IDs in default format\n"),
      );
    }
    const stdout = only.size === 0
      ? `uid=${ID}(${USER}) gid=${ID}(${USER}) groups=${ID}(${USER})\n`
      : `${names ? USER : ID}\n`;
    return Promise.resolve({ stdout, stderr: "", exitCode: 0 });
  },
};

/** `groups` (see the module's documentation). */
export const groupsCommand: Command = {
  name: "groups",
  trusted: true,
  execute(args: string[]): Promise<ExecResult> {
    if (args.length === 0) return Promise.resolve({ stdout: `${USER}\n`, stderr: "", exitCode: 0 });
    let stdout = "";
    let stderr = "";
    for (const name of args) {
      if (name === USER) stdout += `${USER} : ${USER}\n`;
      else stderr += `groups: '${name}': no such user\n`;
    }
    return Promise.resolve({ stdout, stderr, exitCode: stderr === "" ? 0 : 1 });
  },
};

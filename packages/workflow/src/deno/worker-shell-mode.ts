/**
 * A mode as `chmod` spells it, applied as GNU's `mkdir -m` and `install -m`
 * apply it: an octal number is the mode; a symbolic mode (`u=rwx,go-w`,
 * `+x`, `g=u`) changes a starting mode clause by clause. For `mkdir`, a
 * clause that names no one (`=w`) leaves out what the umask masks (022 in
 * Worker Shell, as just-bash creates files); `install` applies no umask.
 *
 * @module
 */

/** The umask of Worker Shell's files. */
export const UMASK = 0o022;
const WHO = { u: 0o4700, g: 0o2070, o: 0o1007 } as const;
const ALL = 0o7777;
const CLAUSE = /^([ugoa]*)((?:[-+=](?:[ugo]|[0-7]+|[rwxXst]*))+)$/;
const ACTION = /([-+=])([ugo]|[0-7]+|[rwxXst]*)/g;

/** The bits `perms` stand for in every class, from `mode` for `u`, `g` and `o` copies. */
function permissionBits(perms: string, mode: number, isDir: boolean): number {
  if (/^[0-7]+$/.test(perms)) return parseInt(perms, 8);
  if (perms === "u" || perms === "g" || perms === "o") {
    const shift = perms === "u" ? 6 : perms === "g" ? 3 : 0;
    const rwx = (mode >> shift) & 0o7;
    return rwx * 0o111;
  }
  let bits = 0;
  for (const perm of perms) {
    if (perm === "r") bits |= 0o444;
    else if (perm === "w") bits |= 0o222;
    else if (perm === "x") bits |= 0o111;
    else if (perm === "X" && (isDir || (mode & 0o111) !== 0)) bits |= 0o111;
    else if (perm === "s") bits |= 0o6000;
    else if (perm === "t") bits |= 0o1000;
  }
  return bits;
}

/**
 * `spec` applied to `mode` (a folder's when `isDir`) under `umask`, or
 * undefined when `spec` is no mode chmod accepts.
 */
export function applyMode(
  spec: string,
  mode: number,
  isDir: boolean,
  umask: number,
): number | undefined {
  if (/^[0-7]{1,4}$/.test(spec)) return parseInt(spec, 8);
  if (spec === "") return undefined;
  let result = mode & ALL;
  for (const clause of spec.split(",")) {
    const parts = CLAUSE.exec(clause);
    if (parts === null) return undefined;
    const who = parts[1];
    // No one named: everyone, but not what the umask masks.
    const mask = who === "" || who.includes("a")
      ? ALL
      : [...who].reduce((bits, name) => bits | WHO[name as keyof typeof WHO], 0);
    const allowed = who === "" ? mask & ~umask : mask;
    for (const [, op, perms] of parts[2].matchAll(ACTION)) {
      const bits = permissionBits(perms, result, isDir) & allowed;
      if (op === "+") result |= bits;
      else if (op === "-") result &= ~bits;
      else {
        // `=` clears the named classes' permissions (a folder keeps its set-id bits).
        const cleared = mask & (isDir ? 0o1777 : ALL);
        result = (result & ~cleared) | bits;
      }
    }
  }
  return result;
}

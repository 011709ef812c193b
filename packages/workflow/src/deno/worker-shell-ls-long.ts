/**
 * `ls -l`'s lines as GNU writes them (WS-140). just-bash's `ls -l` wrote
 * `-rw-r--r--` for every file and `drwxr-xr-x` for every folder whatever
 * their modes, listed a symbolic link as the file it names (or, dangling, as
 * an empty file of 1970), and refused a dangling link given as an operand.
 * Each line of just-bash's long listing is rewritten from the entry's own
 * `lstat`: its type and mode (`-rwxr-xr-x`, `drwx------`, set-user-ID,
 * set-group-ID and sticky bits as `s`, `S`, `t`, `T`), and for a symbolic
 * link `lrwxrwxrwx`, the length of its target as the size, its own time, and
 * `name -> target`; a folder's name without the `/` just-bash added (GNU
 * adds it only under `-F`). The owner columns (`user user`), the sizes'
 * padding and the `total` line stay just-bash's.
 *
 * @module
 */
// The interpreter runs with no configuration file, so its import names the exact version.
// deno-lint-ignore no-import-prefix
import type { ResolvedCommandContext } from "npm:just-bash@3.4.2";

/** A line of just-bash's long listing: mode, links, owners, size, time, name. */
const LONG_LINE =
  /^([-dlcbps][-rwxsStT]{9}) (\d+ \S+ \S+) +(\S+) (\w{3} [ \d]\d (?:\d\d:\d\d| \d{4})) (.*)$/;

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A time as just-bash's `ls -l` writes it: the hour within six months, else the year. */
export function listingTime(time: Date, now = new Date()): string {
  const day = `${MONTHS[time.getMonth()]} ${String(time.getDate()).padStart(2, " ")}`;
  if (time.getTime() > now.getTime() - 180 * 24 * 3600 * 1000) {
    const hour = String(time.getHours()).padStart(2, "0");
    return `${day} ${hour}:${String(time.getMinutes()).padStart(2, "0")}`;
  }
  return `${day}  ${time.getFullYear()}`;
}

/** The ten characters of a mode as `ls -l` writes them. */
export function modeString(kind: "file" | "dir" | "symlink", mode: number): string {
  const bit = (mask: number, char: string) => (mode & mask) !== 0 ? char : "-";
  const special = (execute: number, flag: number, set: string) =>
    (mode & flag) !== 0 ? ((mode & execute) !== 0 ? set : set.toUpperCase()) : bit(execute, "x");
  return (kind === "dir" ? "d" : kind === "symlink" ? "l" : "-") +
    bit(0o400, "r") + bit(0o200, "w") + special(0o100, 0o4000, "s") +
    bit(0o040, "r") + bit(0o020, "w") + special(0o010, 0o2000, "s") +
    bit(0o004, "r") + bit(0o002, "w") + special(0o001, 0o1000, "t");
}

/** Where the entries of a listing are: a folder's (their names under it), or one operand's own line. */
export type ListingOf = { dir: string } | { file: string };

/** `path` joined to `name` as a command line would name it. */
function under(dir: string, name: string): string {
  return dir === "." ? name : dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

/** One line for `path`, a symbolic link, from its own `lstat`, named `name`. */
export async function symlinkLine(
  ctx: ResolvedCommandContext,
  path: string,
  name: string,
  owners = "1 user user",
): Promise<string> {
  const resolved = ctx.fs.resolvePath(ctx.cwd, path);
  const stat = await ctx.fs.lstat(resolved);
  const target = await ctx.fs.readlink(resolved);
  const size = String(new TextEncoder().encode(target).length).padStart(5);
  return `${modeString("symlink", 0o777)} ${owners} ${size} ${
    listingTime(stat.mtime ?? new Date(0))
  } ${name} -> ${target}`;
}

/**
 * just-bash's long listing `text` with GNU's modes and links (see above):
 * `of` says whose entries it lists; a `name:` line (under `-R`) starts a
 * folder's. A line whose entry cannot be found is kept as it is.
 */
export async function gnuLongListing(
  text: string,
  ctx: ResolvedCommandContext,
  of: ListingOf,
  classify: boolean,
  slashes = false,
): Promise<string> {
  let dir = "dir" in of ? of.dir : ".";
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const long = LONG_LINE.exec(line);
    if (!long) {
      if (line.endsWith(":")) dir = line.slice(0, -1);
      continue;
    }
    let name = long[5];
    // just-bash marks a folder with `/` even without -F; GNU only with it.
    const marked = classify ? /[/*@]$/.test(name) : name.endsWith("/");
    if (marked) name = name.slice(0, -1);
    const path = "file" in of ? of.file : under(dir, name);
    try {
      const stat = await ctx.fs.lstat(ctx.fs.resolvePath(ctx.cwd, path));
      if (stat.isSymbolicLink) {
        lines[index] = await symlinkLine(ctx, path, name, long[2]);
        continue;
      }
      const kind = stat.isDirectory ? "dir" : "file";
      const shown = classify || !marked ? long[5] : stat.isDirectory && slashes ? `${name}/` : name;
      lines[index] = `${modeString(kind, stat.mode)} ${long[2]} ${long[3].padStart(5)} ${
        long[4]
      } ${shown}`;
    } catch {
      // Gone since it was listed, or unreadable: just-bash's line stays.
    }
  }
  return lines.join("\n");
}

/**
 * just-bash's listing `text` (one name a line) with `/` after each folder's
 * name, as `ls -p` writes it (WS-147); `of` says whose entries it lists, and
 * under `-R` (`recursive`) a `name:` line starts a folder's. Each folder's
 * entries are read once, with their types.
 */
export async function markFolders(
  text: string,
  ctx: ResolvedCommandContext,
  of: ListingOf,
  recursive: boolean,
): Promise<string> {
  let dir = "dir" in of ? of.dir : ".";
  const folders = new Map<string, Set<string>>();
  const foldersIn = async (path: string): Promise<Set<string>> => {
    let found = folders.get(path);
    if (found === undefined) {
      const resolved = ctx.fs.resolvePath(ctx.cwd, path);
      const entries = ctx.fs.readdirWithFileTypes
        ? await ctx.fs.readdirWithFileTypes(resolved).catch(() => [])
        : [];
      found = new Set(entries.filter((entry) => entry.isDirectory).map((entry) => entry.name));
      folders.set(path, found);
    }
    return found;
  };
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (line === "") continue;
    if (recursive && line.endsWith(":")) {
      dir = line.slice(0, -1);
      continue;
    }
    if ("file" in of) {
      const stat = await ctx.fs.stat(ctx.fs.resolvePath(ctx.cwd, of.file)).catch(() => undefined);
      if (stat?.isDirectory) lines[index] = `${line}/`;
      continue;
    }
    if (line === "." || line === ".." || (await foldersIn(dir)).has(line)) {
      lines[index] = `${line}/`;
    }
  }
  return lines.join("\n");
}

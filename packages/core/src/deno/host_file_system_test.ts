import assert from "node:assert/strict";
import { FileSystemError } from "../engine/file-system-error.ts";
import { GlobPatternError } from "../glob/mod.ts";
import { HostFileSystem } from "./host-file-system.ts";

/** A temporary root directory, removed when the scope ends. */
async function tempRoot(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "xmd-host-fs-" });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}

async function assertFileSystemError(
  promise: Promise<unknown>,
  code: string,
  path: string,
  message: string,
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof FileSystemError, String(error));
    assert.equal(error.name, "FileSystemError");
    assert.equal(error.posix, code);
    assert.equal(error.path, path);
    assert.equal(error.message, message);
    return true;
  });
}

const isRoot = Deno.uid() === 0;

Deno.test("HostFileSystem: reads a file relative to the root", async () => {
  await using root = await tempRoot();
  await Deno.mkdir(`${root.path}/release`);
  await Deno.writeTextFile(`${root.path}/release/VERSION`, "1.4.0\n");
  const fs = new HostFileSystem(root.path);
  assert.equal(await fs.readText("release/VERSION"), "1.4.0\n");
});

Deno.test("HostFileSystem: writes a file, creating its parents", async () => {
  await using root = await tempRoot();
  const fs = new HostFileSystem(root.path);
  await fs.writeText("a/b/c.txt", "héllo");
  assert.equal(await Deno.readTextFile(`${root.path}/a/b/c.txt`), "héllo");
  await fs.writeText("a/b/c.txt", "replaced");
  assert.equal(await fs.readText("a/b/c.txt"), "replaced");
  await fs.writeText("top.txt", "");
  assert.equal(await fs.readText("top.txt"), "");
});

Deno.test("HostFileSystem: reading a missing file is ENOENT", async () => {
  await using root = await tempRoot();
  const fs = new HostFileSystem(root.path);
  await assertFileSystemError(
    fs.readText("release/VERSION"),
    "ENOENT",
    "release/VERSION",
    'Cannot read "release/VERSION": no such file (ENOENT)',
  );
});

Deno.test("HostFileSystem: reading or writing a directory is EISDIR", async () => {
  await using root = await tempRoot();
  await Deno.mkdir(`${root.path}/dir`);
  const fs = new HostFileSystem(root.path);
  await assertFileSystemError(
    fs.readText("dir"),
    "EISDIR",
    "dir",
    'Cannot read "dir": it is a directory (EISDIR)',
  );
  await assertFileSystemError(
    fs.writeText("dir", "x"),
    "EISDIR",
    "dir",
    'Cannot write "dir": it is a directory (EISDIR)',
  );
});

Deno.test("HostFileSystem: a file used as a parent is ENOTDIR, as in a Workspace", async () => {
  await using root = await tempRoot();
  await Deno.writeTextFile(`${root.path}/file`, "x");
  const fs = new HostFileSystem(root.path);
  await assertFileSystemError(
    fs.readText("file/child"),
    "ENOTDIR",
    "file/child",
    'Cannot read "file/child": a parent is not a directory (ENOTDIR)',
  );
  await assertFileSystemError(
    fs.writeText("file/child", "x"),
    "ENOTDIR",
    "file/child",
    'Cannot write "file/child": a parent is not a directory (ENOTDIR)',
  );
  await assertFileSystemError(
    fs.writeText("file/deeper/child", "x"),
    "ENOTDIR",
    "file/deeper/child",
    'Cannot write "file/deeper/child": a parent is not a directory (ENOTDIR)',
  );
});

Deno.test({
  name: "HostFileSystem: an unreadable file is EACCES",
  ignore: isRoot,
  async fn() {
    await using root = await tempRoot();
    await Deno.writeTextFile(`${root.path}/secret`, "x");
    await Deno.chmod(`${root.path}/secret`, 0o000);
    const fs = new HostFileSystem(root.path);
    await assertFileSystemError(
      fs.readText("secret"),
      "EACCES",
      "secret",
      'Cannot read "secret": permission denied (EACCES)',
    );
  },
});

Deno.test("HostFileSystem: refuses a path that leaves the root", async () => {
  await using root = await tempRoot();
  const fs = new HostFileSystem(root.path);
  await assertFileSystemError(
    fs.readText("../outside"),
    "EINVAL",
    "../outside",
    'Cannot read "../outside": the path leaves the root directory (EINVAL)',
  );
  await assertFileSystemError(
    fs.writeText("/etc/x", ""),
    "EINVAL",
    "/etc/x",
    'Cannot write "/etc/x": the path leaves the root directory (EINVAL)',
  );
});

/** A tree with dotfiles, nested directories and links. */
async function populate(root: string): Promise<void> {
  for (const dir of ["src/lib", "docs", ".git", "empty"]) {
    await Deno.mkdir(`${root}/${dir}`, { recursive: true });
  }
  for (const file of ["README.md", ".env", "src/a.ts", "src/lib/b.ts", "src/lib/.c.ts"]) {
    await Deno.writeTextFile(`${root}/${file}`, file);
  }
  await Deno.writeTextFile(`${root}/docs/guide.md`, "");
  await Deno.writeTextFile(`${root}/.git/config`, "");
}

Deno.test("HostFileSystem: glob lists matching files sorted, dotfiles included", async () => {
  await using root = await tempRoot();
  await populate(root.path);
  const fs = new HostFileSystem(root.path);
  assert.deepEqual(await fs.glob(".", ["**/*"], []), [
    ".env",
    ".git/config",
    "README.md",
    "docs/guide.md",
    "src/a.ts",
    "src/lib/.c.ts",
    "src/lib/b.ts",
  ]);
  assert.deepEqual(await fs.glob(".", ["**/*.md"], []), ["README.md", "docs/guide.md"]);
  assert.deepEqual(await fs.glob(".", ["*"], []), [".env", "README.md"]);
});

Deno.test("HostFileSystem: glob applies several includes and excludes", async () => {
  await using root = await tempRoot();
  await populate(root.path);
  const fs = new HostFileSystem(root.path);
  assert.deepEqual(await fs.glob(".", ["**/*.ts", "*.md"], ["**/.*", "src/lib/**"]), [
    "README.md",
    "src/a.ts",
  ]);
  assert.deepEqual(await fs.glob(".", ["**/*"], [".git/**", ".*"]), [
    "README.md",
    "docs/guide.md",
    "src/a.ts",
    "src/lib/.c.ts",
    "src/lib/b.ts",
  ]);
  assert.deepEqual(await fs.glob(".", [], []), []);
});

Deno.test("HostFileSystem: glob paths are relative to cwd", async () => {
  await using root = await tempRoot();
  await populate(root.path);
  const fs = new HostFileSystem(root.path);
  assert.deepEqual(await fs.glob("src", ["**/*.ts"], ["lib/.*"]), ["a.ts", "lib/b.ts"]);
  assert.deepEqual(await fs.glob("src/lib", ["*"], []), [".c.ts", "b.ts"]);
  assert.deepEqual(await fs.glob("empty", ["**"], []), []);
});

Deno.test("HostFileSystem: glob lists links to files but follows no directory link", async () => {
  await using root = await tempRoot();
  await populate(root.path);
  await Deno.symlink(`${root.path}/src`, `${root.path}/docs/src-link`);
  await Deno.symlink(root.path, `${root.path}/src/lib/loop`);
  await Deno.symlink(`${root.path}/README.md`, `${root.path}/docs/readme-link.md`);
  await Deno.symlink(`${root.path}/missing`, `${root.path}/docs/dangling.md`);
  const fs = new HostFileSystem(root.path);
  assert.deepEqual(await fs.glob("docs", ["**"], []), ["guide.md", "readme-link.md"]);
  assert.deepEqual(await fs.glob(".", ["**/*.ts"], []), [
    "src/a.ts",
    "src/lib/.c.ts",
    "src/lib/b.ts",
  ]);
});

Deno.test("HostFileSystem: glob in a missing or non-directory cwd is refused", async () => {
  await using root = await tempRoot();
  await populate(root.path);
  const fs = new HostFileSystem(root.path);
  await assertFileSystemError(
    fs.glob("nope", ["**"], []),
    "ENOENT",
    "nope",
    'Cannot list "nope": no such directory (ENOENT)',
  );
  await assertFileSystemError(
    fs.glob("README.md", ["**"], []),
    "ENOTDIR",
    "README.md",
    'Cannot list "README.md": it is not a directory (ENOTDIR)',
  );
});

Deno.test({
  name: "HostFileSystem: glob into an unreadable directory is EACCES",
  ignore: isRoot,
  async fn() {
    await using root = await tempRoot();
    await Deno.mkdir(`${root.path}/a/locked`, { recursive: true });
    await Deno.chmod(`${root.path}/a/locked`, 0o000);
    try {
      const fs = new HostFileSystem(root.path);
      await assertFileSystemError(
        fs.glob("a", ["**"], []),
        "EACCES",
        "a/locked",
        'Cannot list "a/locked": permission denied (EACCES)',
      );
    } finally {
      await Deno.chmod(`${root.path}/a/locked`, 0o755);
    }
  },
});

Deno.test("HostFileSystem: glob refuses a bad pattern", async () => {
  await using root = await tempRoot();
  const fs = new HostFileSystem(root.path);
  await assert.rejects(fs.glob(".", ["../**"], []), GlobPatternError);
  await assert.rejects(fs.glob(".", ["**"], ["{a"]), GlobPatternError);
});

Deno.test("MDX-21: a symbolic link that leads out of the root is EACCES for reads, writes and listings; links inside work", async () => {
  await using root = await tempRoot();
  await using outside = await tempRoot();
  await Deno.writeTextFile(`${outside.path}/secret.txt`, "outside");
  await Deno.mkdir(`${root.path}/sub`);
  await Deno.writeTextFile(`${root.path}/sub/x.txt`, "inside");
  await Deno.symlink(outside.path, `${root.path}/out`);
  await Deno.symlink(`${outside.path}/secret.txt`, `${root.path}/secret-link`);
  await Deno.symlink(`${outside.path}/new.txt`, `${root.path}/dangling`);
  await Deno.symlink("../../", `${root.path}/sub/up`);
  await Deno.symlink("sub", `${root.path}/in`);
  await Deno.symlink(`${root.path}/sub/x.txt`, `${root.path}/x-link`);
  const fs = new HostFileSystem(root.path);
  const why = "a symbolic link on the way leads out of the working directory (EACCES)";
  const refused = async (promise: Promise<unknown>, action: string, path: string) =>
    await assertFileSystemError(promise, "EACCES", path, `Cannot ${action} "${path}": ${why}`);
  await refused(fs.readText("out/secret.txt"), "read", "out/secret.txt");
  await refused(fs.readText("secret-link"), "read", "secret-link");
  await refused(
    fs.readText(`sub/up/${outside.path.split("/").pop()}/secret.txt`),
    "read",
    `sub/up/${outside.path.split("/").pop()}/secret.txt`,
  );
  await refused(fs.writeText("out/new.txt", "x"), "write", "out/new.txt");
  await refused(fs.writeText("out/deeper/new.txt", "x"), "write", "out/deeper/new.txt");
  await refused(fs.writeText("dangling", "x"), "write", "dangling");
  await refused(fs.writeText("secret-link", "x"), "write", "secret-link");
  await refused(fs.glob("out", ["**"], []), "list", "out");
  assert.deepEqual(
    [...Deno.readDirSync(outside.path)].map((entry) => entry.name),
    ["secret.txt"],
    "a write went outside",
  );
  assert.equal(await Deno.readTextFile(`${outside.path}/secret.txt`), "outside");
  // Links that stay inside are followed as before; a listing leaves out the links that lead out.
  assert.equal(await fs.readText("in/x.txt"), "inside");
  assert.equal(await fs.readText("x-link"), "inside");
  await fs.writeText("in/y.txt", "y");
  assert.equal(await Deno.readTextFile(`${root.path}/sub/y.txt`), "y");
  assert.deepEqual(await fs.glob(".", ["**"], []), ["sub/x.txt", "sub/y.txt", "x-link"]);
});

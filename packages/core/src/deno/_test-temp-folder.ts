/**
 * Temporary folders for tests that the test module removes when it ends.
 *
 * Invariant: every folder made here is removed, with what is inside it, when
 * the module's process or worker unloads, whether its tests passed or not, so
 * a run of the suite leaves nothing in the system's temporary folder. A test
 * that must inspect a folder after a failure reads the path from its message.
 *
 * @module
 */

const made: string[] = [];
let listening = false;

function remember(path: string): string {
  made.push(path);
  if (!listening) {
    listening = true;
    // Synchronous: nothing asynchronous runs after `unload`.
    globalThis.addEventListener("unload", () => {
      for (const folder of made.splice(0)) {
        try {
          Deno.removeSync(folder, { recursive: true });
        } catch {
          // Already removed by the test, or a file inside is still being
          // written by a child this test killed: nothing to keep either way.
        }
      }
    });
  }
  return path;
}

/** A new empty folder in the system's temporary folder, removed when the test module ends. */
export async function testFolder(prefix: string): Promise<string> {
  return remember(await Deno.makeTempDir({ prefix }));
}

/** The synchronous form of `testFolder`. */
export function testFolderSync(prefix: string): string {
  return remember(Deno.makeTempDirSync({ prefix }));
}

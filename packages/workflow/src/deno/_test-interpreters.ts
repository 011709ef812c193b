/**
 * Stand-in Worker Shell interpreters for tests: real processes that speak
 * the interpreter's frames (worker-shell-frames.ts) but misbehave on purpose,
 * the way a broken or hostile interpreter could.
 *
 * @module
 */

/** A stand-in interpreter module, written to a temporary file and removed on dispose. */
export interface StandIn extends AsyncDisposable {
  /** The module's URL, for `WorkerShellOptions.interpreter`. */
  url: URL;
}

/**
 * Writes an interpreter module whose body is `body`: it runs with `send(header,
 * payload?)` and `onFrame(handler)` in scope (handler receives `(header,
 * payload)`), and `encoder`/`decoder` for text.
 */
export async function standInInterpreter(body: string): Promise<StandIn> {
  const dir = await Deno.makeTempDir({ prefix: "xmd-interpreter-" });
  const frames = new URL("./worker-shell-frames.ts", import.meta.url).href;
  const path = `${dir}/interpreter.ts`;
  await Deno.writeTextFile(
    path,
    `import { encodeFrame, FrameReader } from ${JSON.stringify(frames)};
const out = Deno.stdout.writable.getWriter();
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const send = (header: unknown, payload?: Uint8Array) => { out.write(encodeFrame(header, payload)); };
let handler: (header: any, payload: Uint8Array) => void = () => {};
const onFrame = (fn: typeof handler) => { handler = fn; };
${body}
const reader = new FrameReader({ maxHeader: 2 ** 30, maxPayload: 2 ** 30 });
for await (const chunk of Deno.stdin.readable) {
  for (const frame of reader.push(chunk)) handler(frame.header, frame.payload);
}
`,
  );
  return {
    url: new URL(`file://${path}`),
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

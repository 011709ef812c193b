import assert from "node:assert/strict";
import { sha256Hex } from "../hash/sha256.ts";
import { canonicalJson } from "../json/canonical-json.ts";
import type { JsonObject, JsonValue } from "../json/json-value.ts";
import type { JournalEvent } from "../journal/events.ts";
import { DivergenceError } from "../journal/journal-errors.ts";
import { MemoryStream } from "../journal/memory-stream.ts";
import { AnswerSchemaError } from "./answer-schema.ts";
import { createWorld, load, refusingProviders, run } from "./_test-providers.ts";

/** The coroutine ids of the events, in order, with their kind. */
function trace(events: readonly JournalEvent[]): string[] {
  return events.map((event) =>
    event.type === "yield"
      ? `${event.coroutineId} yield ${event.description.name}`
      : `${event.coroutineId} close ${event.result.status}`
  );
}

/** The first event of every run: the digest of the root props, never their values. */
function propsEvent(props: JsonObject = {}): JournalEvent {
  return {
    type: "yield",
    coroutineId: "root",
    description: {
      type: "props",
      name: "props doc.md",
      sha256: sha256Hex(canonicalJson(props)),
    },
    result: { status: "ok", value: null },
  };
}

const ROOT_OK: JournalEvent = {
  type: "close",
  coroutineId: "root",
  result: { status: "ok", value: null },
};

Deno.test("prose: interpolates strings, numbers, booleans, null, objects and arrays", async () => {
  const program = await load(
    "# Hi {props.name}\n\n" +
      "n={props.n} neg={props.neg} flag={props.flag} null=[{props.none}]\n\n" +
      "obj={props.obj} arr={props.arr} text={`${props.name}-${props.n}`}\n",
  );
  const world = createWorld();
  const props: JsonObject = {
    name: "Ada",
    n: 3.5,
    neg: -2,
    flag: false,
    none: null,
    obj: { a: 1, b: "x", c: [true] },
    arr: [1, "two", null],
  };
  const record = await run(program, world.providers, { props });
  assert.deepEqual(record.outcome, { status: "completed" });
  assert.equal(
    record.stdout,
    "# Hi Ada\n\n" +
      "n=3.5 neg=-2 flag=false null=[]\n\n" +
      'obj={"a":1,"b":"x","c":[true]} arr=[1,"two",null] text=Ada-3.5\n',
  );
  assert.deepEqual(record.events, [propsEvent(props), ROOT_OK]);
  assert.deepEqual(world.log.calls, []);
});

Deno.test("props: the first event journals the SHA-256 of the canonical props JSON, never their values", async () => {
  const program = await load('<File path="out.txt">{props.token}</File>\n');
  const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";
  const record = await run(program, createWorld().providers, { props: { token, n: 1 } });
  assert.deepEqual(record.outcome, { status: "completed" });
  assert.deepEqual(record.events[0], {
    type: "yield",
    coroutineId: "root",
    description: {
      type: "props",
      name: "props doc.md",
      sha256: sha256Hex(`{"n":1,"token":"${token}"}`),
    },
    result: { status: "ok", value: null },
  });
  assert.ok(!JSON.stringify(record.events).includes(token), "prop values are never journaled");
  const empty = await run(await load("text\n"), createWorld().providers);
  assert.deepEqual(empty.events, [{
    type: "yield",
    coroutineId: "root",
    description: {
      type: "props",
      name: "props doc.md",
      sha256: "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
    },
    result: { status: "ok", value: null },
  }, ROOT_OK]);
});

Deno.test("props: a replay with other props diverges at event 1; the same props replay", async () => {
  const program = await load(
    '---\nprops:\n  who:\n    type: string\n---\n\nHello {props.who}\n\n<File path="who.txt">{props.who}</File>\n',
  );
  const live = await run(program, createWorld().providers, { props: { who: "Ada" } });
  assert.deepEqual(live.outcome, { status: "completed" });
  assert.equal(live.events.length, 3);

  const stream = new MemoryStream(live.events);
  const chunks: string[] = [];
  const refusing = refusingProviders();
  const caught = await run(program, refusing.providers, {
    props: { who: "Bob" },
    stream,
    chunks,
  }).then(() => undefined, (error) => error);
  assert.ok(caught instanceof DivergenceError, `expected a DivergenceError, got ${caught}`);
  assert.equal(caught.kind, "input");
  assert.equal(caught.eventNumber, 1);
  assert.equal(
    caught.message,
    'Cannot replay the journal: event 1 records "props doc.md" with other props than this run was given. ' +
      "The props differ from the recorded run; pass the same props it was given, or run without the journal",
  );
  assert.ok(!caught.message.includes("Ada") && !caught.message.includes("Bob"));
  assert.deepEqual(stream.events, live.events, "nothing is appended");
  assert.deepEqual(refusing.attempts, [], "no provider is called");
  assert.equal(chunks.join(""), "", "nothing is rendered before the props are checked");

  const same = refusingProviders();
  const replayed = await run(program, same.providers, {
    props: { who: "Ada" },
    recorded: live.events,
  });
  assert.deepEqual(replayed.outcome, { status: "completed" });
  assert.equal(replayed.stdout, "Hello Ada\n");
  assert.deepEqual(replayed.events, live.events);
  assert.deepEqual(same.attempts, []);
});

Deno.test("prose: keeps the author's Markdown and collapses blank lines left by silent elements", async () => {
  const program = await load(
    'Intro *em* and `code`.\n\n<Let as="x" value={1} />\n\n\n<Let as="y" value={2} />\n\n' +
      "- item {x}\n- item {y}\n\n> quoted {x + y}\n",
  );
  const record = await run(program, createWorld().providers);
  assert.equal(record.stdout, "Intro *em* and `code`.\n\n- item 1\n- item 2\n\n> quoted 3\n");
});

Deno.test("prose: meta holds the frontmatter besides props", async () => {
  const program = await load("---\ntitle: Notes\n---\n\n# {meta.title}\n");
  const record = await run(program, createWorld().providers);
  assert.equal(record.stdout, "# Notes\n");
});

Deno.test("<Let>: value={…} binds the value, children bind their rendered text", async () => {
  const program = await load(
    '<Let as="sum" value={props.n + 2} />\n' +
      '<Let as="list" value={[props.n, "x"]} />\n' +
      '<Let as="greeting">\n  Hello **{props.name}**, {sum}\n</Let>\n\n' +
      "sum={sum} list={list} first={list[0]} greeting=[{greeting}] len={greeting.length}\n",
  );
  const record = await run(program, createWorld().providers, { props: { n: 1, name: "Ada" } });
  assert.deepEqual(record.outcome, { status: "completed" });
  assert.equal(
    record.stdout,
    'sum=3 list=[1,"x"] first=1 greeting=[Hello **Ada**, 3] len=16\n',
  );
});

Deno.test("<Let>: rebinding a name replaces its value for what follows", async () => {
  const program = await load(
    '<Let as="x" value={1} />\n\nbefore {x}\n\n<Let as="x" value={x + 10} />\n\nafter {x}\n',
  );
  const record = await run(program, createWorld().providers);
  assert.equal(record.stdout, "before 1\n\nafter 11\n");
});

const IF_DOC =
  "<If condition={props.ok}>\n  Yes, {props.who}.\n</If>\n<Else>\n  No, {props.who}.\n</Else>\n\nend\n";

Deno.test("<If>/<Else>: a truthy condition renders the If branch only", async () => {
  const record = await run(await load(IF_DOC), createWorld().providers, {
    props: { ok: true, who: "Ada" },
  });
  assert.equal(record.stdout, "Yes, Ada.\n\nend\n");
});

Deno.test("<If>/<Else>: a falsy condition renders the Else branch only", async () => {
  for (const ok of [false, 0, "", null]) {
    const record = await run(await load(IF_DOC), createWorld().providers, {
      props: { ok, who: "Ada" },
    });
    assert.equal(record.stdout, "No, Ada.\n\nend\n", `condition ${JSON.stringify(ok)}`);
  }
});

Deno.test("<If>: effects run only in the taken branch; inline If/Else stays in its paragraph", async () => {
  const program = await load(
    '<If condition={props.ok}>\n  <File path="yes.txt">y</File>\n</If>\n<Else>\n  <File path="no.txt">n</File>\n</Else>\n\n' +
      "Status: <If condition={props.ok}>good</If> <Else>bad</Else>.\n\n" +
      "<If condition={!props.ok}>\n  hidden\n</If>\n\ndone\n",
  );
  const world = createWorld();
  const record = await run(program, world.providers, { props: { ok: true } });
  assert.equal(record.stdout, "Status: good.\n\ndone\n");
  assert.deepEqual(world.log.summary, ["fs.write yes.txt"]);
  const other = createWorld();
  const falsy = await run(program, other.providers, { props: { ok: false } });
  assert.equal(falsy.stdout, "Status: bad.\n\nhidden\n\ndone\n");
  assert.deepEqual(other.log.summary, ["fs.write no.txt"]);
});

Deno.test("<Each>: renders its children once per item, each a line of its own", async () => {
  const program = await load(
    '<Each items={props.names} as="name">\n  - hello {name}\n</Each>\n\n' +
      'inline: <Each items={[1, 2, 3]} as="i">{i};</Each>\n',
  );
  const record = await run(program, createWorld().providers, { props: { names: ["Ada", "Bob"] } });
  assert.equal(record.stdout, "- hello Ada\n- hello Bob\n\ninline: 1;2;3;\n");
});

Deno.test("<Each>: the binding is block-scoped and does not leak after the loop", async () => {
  const program = await load(
    '<Each items={[1, 2]} as="i">\n  - item {i}\n</Each>\n\nafter {i}\n',
  );
  const record = await run(program, createWorld().providers);
  assert.deepEqual(record.outcome, {
    status: "failed",
    error: {
      name: "DocumentError",
      message:
        'doc.md:5:8: Unknown name "i": bindings in scope are props, meta and names bound with as="…"',
    },
  });
  assert.equal(record.stdout, "- item 1\n- item 2\n\nafter \n");
  assert.deepEqual(record.events, [propsEvent(), {
    type: "close",
    coroutineId: "root",
    result: {
      status: "err",
      error: record.outcome.status === "failed" ? record.outcome.error : never(),
    },
  }]);
});

Deno.test("<Each>: an outer binding of the same name is shadowed, then restored; inner Lets stay inside", async () => {
  const program = await load(
    '<Let as="x" value={"outer"} />\n' +
      '<Each items={["a", "b"]} as="x">\n  in {x}/<Let as="seen" value={x} />{seen}\n</Each>\n\n' +
      "out {x}\n\n<If condition={true}>\n  {seen}\n</If>\n",
  );
  const record = await run(program, createWorld().providers);
  assert.equal(record.stdout, "in a/a\nin b/b\n\nout outer\n");
  assert.equal(record.outcome.status, "failed");
  assert.match(
    record.outcome.status === "failed" ? record.outcome.error.message : "",
    /^doc\.md:9:4: Unknown name "seen"/,
  );
});

Deno.test("<Each>: items that are not an array fail the run at the attribute", async () => {
  const record = await run(
    await load('text\n\n<Each items={props.o} as="i">{i}</Each>\n'),
    createWorld().providers,
    { props: { o: { a: 1 } } },
  );
  assert.deepEqual(record.outcome, {
    status: "failed",
    error: {
      name: "DocumentError",
      message: "doc.md:3:7: <Each items={…}> needs an array, got an object",
    },
  });
  assert.equal(record.stdout, "text\n");
});

Deno.test("<File>: writes exactly the rendered children, creating parent directories", async () => {
  const program = await load(
    '<File path="release/v1/VERSION">{props.version}</File>\n' +
      '<File path="notes.md">\n  # Notes for {props.version}\n\n  - one\n    - nested\n\n\n\n  end\n</File>\n' +
      '<File path="empty.txt"></File>\n' +
      "printed\n",
  );
  const world = createWorld();
  const record = await run(program, world.providers, { props: { version: "1.4.0" } });
  assert.deepEqual(record.outcome, { status: "completed" });
  assert.equal(record.stdout, "printed\n");
  assert.equal(world.fs.files.get("release/v1/VERSION"), "1.4.0");
  assert.equal(world.fs.files.get("notes.md"), "# Notes for 1.4.0\n\n- one\n  - nested\n\nend\n");
  assert.equal(world.fs.files.get("empty.txt"), "");
  assert.deepEqual([...world.fs.dirs].sort(), ["release", "release/v1"]);
  assert.deepEqual(record.events.map((event) => event.type === "yield" && event.description), [
    {
      type: "props",
      name: "props doc.md",
      sha256: sha256Hex('{"version":"1.4.0"}'),
    },
    {
      type: "file.write",
      name: "File doc.md:1:1",
      path: "release/v1/VERSION",
      sha256: sha256Hex("1.4.0"),
    },
    {
      type: "file.write",
      name: "File doc.md:2:1",
      path: "notes.md",
      sha256: sha256Hex("# Notes for 1.4.0\n\n- one\n  - nested\n\nend\n"),
    },
    {
      type: "file.write",
      name: "File doc.md:12:1",
      path: "empty.txt",
      sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    },
    false,
  ]);
});

Deno.test("<File as>: reads text and binds it; a missing file fails the run with FileSystemError", async () => {
  const program = await load(
    '<File path="in/data.txt" as="data" />\n\ngot [{data}]\n\n<File path="missing.txt" as="m" />\n\nnever\n',
  );
  const world = createWorld({ files: { "in/data.txt": "line 1\nline 2\n" } });
  const record = await run(program, world.providers);
  assert.equal(record.stdout, "got [line 1\nline 2\n]\n");
  assert.deepEqual(record.outcome, {
    status: "failed",
    error: {
      name: "FileSystemError",
      message: 'doc.md:5:1: Cannot read "missing.txt": no such file',
    },
  });
  assert.deepEqual(record.events, [
    propsEvent(),
    {
      type: "yield",
      coroutineId: "root",
      description: { type: "file.read", name: "File doc.md:1:1", path: "in/data.txt" },
      result: { status: "ok", value: "line 1\nline 2\n" },
    },
    {
      type: "yield",
      coroutineId: "root",
      description: { type: "file.read", name: "File doc.md:5:1", path: "missing.txt" },
      result: {
        status: "err",
        error: {
          name: "FileSystemError",
          message: 'Cannot read "missing.txt": no such file',
          code: "ENOENT",
        },
      },
    },
    {
      type: "close",
      coroutineId: "root",
      result: {
        status: "err",
        error: {
          name: "FileSystemError",
          message: 'doc.md:5:1: Cannot read "missing.txt": no such file',
        },
      },
    },
  ]);
});

Deno.test("<File>: a write then a read of the same path sees the written content", async () => {
  const program = await load(
    '<File path="a/b.txt">\n  x={props.x}\n  y\n</File>\n<File path="a/b.txt" as="back" />\n\n[{back}]\n',
  );
  const record = await run(program, createWorld().providers, { props: { x: 1 } });
  assert.equal(record.stdout, "[x=1\ny\n]\n");
});

Deno.test("<Dir>: nests relative working directories for files, globs and exec blocks", async () => {
  const program = await load(
    '<Dir path="a">\n' +
      '  <Dir path="b/../c">\n    <File path="f.txt">f</File>\n\n    ```sh exec\n    pwd\n    ```\n  </Dir>\n' +
      '  <File path="./g.txt">g</File>\n' +
      '  <Glob include="**/*.txt" as="found" />\n' +
      "  found {found}\n" +
      "</Dir>\n\n" +
      '<File path="top.txt">t</File>\n',
  );
  const world = createWorld({ shell: { pwd: { stdout: ["/a/c\n"] } } });
  const record = await run(program, world.providers);
  assert.deepEqual(record.outcome, { status: "completed" });
  assert.deepEqual([...world.fs.files.keys()], ["a/c/f.txt", "a/g.txt", "top.txt"]);
  assert.equal(world.shell.requests[0].cwd, "a/c");
  assert.deepEqual(world.log.calls[3], {
    provider: "fs",
    op: "glob",
    cwd: "a",
    include: ["**/*.txt"],
    exclude: [],
  });
  assert.equal(record.stdout, '/a/c\n\nfound ["c/f.txt","g.txt"]\n');
});

Deno.test("<Dir>: a path that climbs out of the root with .. is refused before any effect", async () => {
  for (
    const [text, message] of [
      [
        '<Dir path="a">\n  <File path="../../x">x</File>\n</Dir>\n',
        'doc.md:2:9: Cannot use path "../../x": paths are relative to the working directory and cannot leave it',
      ],
      [
        'first\n\n<Dir path="..">\n  <File path="x">x</File>\n</Dir>\n',
        'doc.md:3:6: Cannot use path "..": paths are relative to the working directory and cannot leave it',
      ],
      [
        '<Dir path="/etc">\n  <File path="x">x</File>\n</Dir>\n',
        'doc.md:1:6: Cannot use path "/etc": paths are relative to the working directory and cannot leave it',
      ],
    ]
  ) {
    const world = createWorld();
    const record = await run(await load(text), world.providers);
    assert.deepEqual(record.outcome, {
      status: "failed",
      error: { name: "DocumentError", message },
    });
    assert.deepEqual(world.log.calls, [], text);
    assert.deepEqual(record.events.filter((event) => event.type === "yield"), [propsEvent()]);
  }
});

Deno.test("<Glob>: lists sorted relative paths matching include and not exclude", async () => {
  const program = await load(
    '<Glob include="**/*.md" exclude="drafts/**" as="all" />\n' +
      '<Glob include={["*.md", "*.txt"]} exclude={["z*"]} as="top" />\n' +
      '<Dir path="docs">\n  <Glob include="*" as="docs" />\n</Dir>\n\n' +
      "all={all}\n\ntop={top}\n\ndocs={docs}\n",
  );
  const world = createWorld({
    files: {
      "b.md": "",
      "a.md": "",
      "z.md": "",
      "c.txt": "",
      "docs/z.md": "",
      "docs/y.txt": "",
      "docs/deep/x.md": "",
      "drafts/d.md": "",
    },
  });
  const record = await run(program, world.providers);
  assert.equal(
    record.stdout,
    'all=["a.md","b.md","docs/deep/x.md","docs/z.md","z.md"]\n\n' +
      'top=["a.md","b.md","c.txt"]\n\n' +
      'docs=["y.txt","z.md"]\n',
  );
  assert.deepEqual(
    record.events.flatMap((event) => event.type === "yield" ? [event.description] : []),
    [
      { type: "props", name: "props doc.md", sha256: sha256Hex("{}") },
      {
        type: "glob",
        name: "Glob doc.md:1:1",
        cwd: ".",
        include: ["**/*.md"],
        exclude: ["drafts/**"],
      },
      {
        type: "glob",
        name: "Glob doc.md:2:1",
        cwd: ".",
        include: ["*.md", "*.txt"],
        exclude: ["z*"],
      },
      { type: "glob", name: "Glob doc.md:4:3", cwd: "docs", include: ["*"], exclude: [] },
    ],
  );
});

Deno.test("<Glob>: a pattern that is not a string or a list of strings fails at the attribute", async () => {
  const world = createWorld();
  const record = await run(await load('<Glob include={[1]} as="x" />\n'), world.providers);
  assert.deepEqual(record.outcome, {
    status: "failed",
    error: {
      name: "DocumentError",
      message:
        "doc.md:1:7: Attribute include of <Glob> must be a string or an array of strings, got an array",
    },
  });
  assert.deepEqual(world.log.calls, []);
});

const ELICIT_DOC = "Before.\n\n" +
  '<Elicit as="approval" schema={{ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }}>\n' +
  "Publish version {props.version}?\n" +
  "</Elicit>\n\n" +
  "ok={approval.ok}\n\n" +
  '<File path="after.txt">x</File>\n';

Deno.test("<Elicit>: asks the rendered question with its schema and binds the valid answer", async () => {
  const world = createWorld({ answers: { approval: { ok: true } } });
  const record = await run(await load(ELICIT_DOC), world.providers, {
    props: { version: "1.4.0" },
  });
  assert.deepEqual(record.outcome, { status: "completed" });
  assert.equal(record.stdout, "Before.\n\nok=true\n");
  assert.deepEqual(world.elicit.requests, [{
    name: "approval",
    question: "Publish version 1.4.0?",
    schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
  }]);
  assert.deepEqual(record.events[0], propsEvent({ version: "1.4.0" }));
  assert.deepEqual(record.events[1], {
    type: "yield",
    coroutineId: "root",
    description: {
      type: "elicit",
      name: "Elicit doc.md:3:1",
      as: "approval",
      question: "Publish version 1.4.0?",
      schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
    },
    result: { status: "ok", value: { ok: true } },
  });
});

Deno.test("<Elicit>: an answer that fails the schema stops the run with AnswerSchemaError, unjournaled", async () => {
  const program = await load('<File path="before.txt">b</File>\n\n' + ELICIT_DOC);
  const answers: JsonValue[] = [{ ok: "sure-thing" }, { fine: true }, "sure-thing"];
  for (const answer of answers) {
    const world = createWorld({ answers: { approval: answer } });
    const stream = new MemoryStream();
    const chunks: string[] = [];
    let caught: unknown;
    try {
      await run(program, world.providers, { props: { version: "1.4.0" }, stream, chunks });
    } catch (thrown) {
      caught = thrown;
    }
    assert.ok(caught instanceof AnswerSchemaError);
    assert.match(caught.message, /^The answer for "approval" does not match its schema: /);
    assert.ok(!caught.message.includes("sure-thing"), "the answer is never echoed");
    assert.equal(chunks.join(""), "Before.\n");
    assert.deepEqual(world.log.summary, ["fs.write before.txt", "elicit approval"]);
    assert.deepEqual(
      trace(stream.events),
      ["root yield props doc.md", "root yield File doc.md:1:1"],
      "no Yield, no Close",
    );
  }
});

Deno.test("<Elicit>: after a refused answer the run continues from its journal with a valid one", async () => {
  const program = await load('<File path="before.txt">b</File>\n\n' + ELICIT_DOC);
  const stream = new MemoryStream();
  await assert.rejects(
    run(program, createWorld({ answers: { approval: { ok: 1 } } }).providers, {
      props: { version: "1.4.0" },
      stream,
    }),
    AnswerSchemaError,
  );
  const world = createWorld({ answers: { approval: { ok: false } } });
  const resumed = await run(program, world.providers, { props: { version: "1.4.0" }, stream });
  const fresh = await run(
    program,
    createWorld({ answers: { approval: { ok: false } } }).providers,
    {
      props: { version: "1.4.0" },
    },
  );
  assert.deepEqual(resumed.outcome, { status: "completed" });
  assert.equal(resumed.stdout, "Before.\n\nok=false\n");
  assert.deepEqual(resumed.events, fresh.events);
  assert.deepEqual(world.log.summary, ["elicit approval", "fs.write after.txt"]);
});

Deno.test("<Elicit>: a schema that is not a JSON Schema object fails before asking", async () => {
  const world = createWorld({ answers: { x: 1 } });
  const record = await run(
    await load('<Elicit as="x" schema={"number"}>q</Elicit>\n'),
    world.providers,
  );
  assert.deepEqual(record.outcome, {
    status: "failed",
    error: {
      name: "DocumentError",
      message: "doc.md:1:16: The schema of <Elicit> must be a JSON Schema object",
    },
  });
  assert.deepEqual(world.log.calls, []);
});

Deno.test("<Fail>: stops the run with its message at its position; nothing after it runs", async () => {
  for (
    const [fail, message] of [
      ['<Fail message={"bad " + props.v} />', "doc.md:3:1: bad x"],
      ['<Fail message="literal reason" />', "doc.md:3:1: literal reason"],
    ]
  ) {
    const world = createWorld();
    const program = await load(`before {props.v}\n\n${fail}\n\nafter\n\n<File path="f">x</File>\n`);
    const record = await run(program, world.providers, { props: { v: "x" } });
    assert.deepEqual(record.outcome, {
      status: "failed",
      error: { name: "DocumentError", message },
    });
    assert.equal(record.stdout, "before x\n");
    assert.deepEqual(world.log.calls, []);
    assert.deepEqual(record.events, [propsEvent({ v: "x" }), {
      type: "close",
      coroutineId: "root",
      result: { status: "err", error: { name: "DocumentError", message } },
    }]);
  }
});

const GREETING = "---\n" +
  'props:\n  name:\n    type: string\n  punct:\n    type: string\n    default: "!"\n  times:\n    type: number\n    default: 1\n' +
  "required: [name]\n---\n\n" +
  "Hello {props.name}{props.punct} x{props.times}\n\n<Content />\n\n" +
  '<File path={"hello-" + props.name + ".txt"}>hi {props.name}</File>\n';

Deno.test("components: props with defaults, <Content /> from the caller's scope, coroutine ids", async () => {
  const program = await load(
    '# Top\n\n<Let as="who" value={"caller"} />\n\n' +
      "<Outer>\n  outer content by {who}\n</Outer>\n\n" +
      '<Greeting name="Bob" punct="?" times={props.n * 2} />\n\nend\n',
    {
      "Greeting.md": GREETING,
      "components/Outer.md":
        'Outer start\n\n<Greeting name="Ann">\n  inner content\n</Greeting>\n\n<Content />\n',
    },
  );
  const world = createWorld();
  const record = await run(program, world.providers, { props: { n: 3 } });
  assert.deepEqual(record.outcome, { status: "completed" });
  assert.equal(
    record.stdout,
    "# Top\n\nOuter start\n\nHello Ann! x1\n\ninner content\n\nouter content by caller\n\n" +
      "Hello Bob? x6\n\nend\n",
  );
  assert.deepEqual(trace(record.events), [
    "root yield props doc.md",
    "root.0.0 yield File Greeting.md:18:1",
    "root.0.0 close ok",
    "root.0 close ok",
    "root.1 yield File Greeting.md:18:1",
    "root.1 close ok",
    "root close ok",
  ]);
  assert.deepEqual([...world.fs.files], [["hello-Ann.txt", "hi Ann"], ["hello-Bob.txt", "hi Bob"]]);
});

Deno.test("components: a dotted name resolves to a nested file, inside the caller's <Dir>", async () => {
  const program = await load(
    '<Dir path="repo">\n  <Git.Commit message="init" />\n</Dir>\n',
    {
      "components/Git/Commit.md":
        '---\nprops:\n  message:\n    type: string\n---\n\n```sh exec\ngit commit -m "{props.message}"\n```\n',
    },
  );
  const world = createWorld({ shell: { 'git commit -m "init"': { stdout: ["[main] init\n"] } } });
  const record = await run(program, world.providers);
  assert.equal(record.stdout, "[main] init\n");
  assert.equal(world.shell.requests[0].cwd, "repo");
  assert.deepEqual(trace(record.events), [
    "root yield props doc.md",
    "root.0 yield exec components/Git/Commit.md:7:1",
    "root.0 close ok",
    "root close ok",
  ]);
});

Deno.test("components: a component does not see the caller's bindings", async () => {
  const program = await load('<Let as="secret" value={1} />\n\n<Peek />\n', {
    "Peek.md": "peek {secret}\n",
  });
  const record = await run(program, createWorld().providers);
  assert.equal(record.outcome.status, "failed");
  assert.match(
    record.outcome.status === "failed" ? record.outcome.error.message : "",
    /^Peek\.md:1:7: Unknown name "secret"/,
  );
  assert.deepEqual(trace(record.events), [
    "root yield props doc.md",
    "root.0 close err",
    "root close err",
  ]);
});

Deno.test("components: an expression prop of the wrong type fails at the invocation", async () => {
  const program = await load("first\n\n<Greeting name={props.n} />\n", { "Greeting.md": GREETING });
  const world = createWorld();
  const record = await run(program, world.providers, { props: { n: 3 } });
  assert.deepEqual(record.outcome, {
    status: "failed",
    error: {
      name: "DocumentError",
      message: 'doc.md:3:1: Invalid prop "name" for <Greeting>: must be string',
    },
  });
  assert.deepEqual(world.log.calls, []);
  assert.deepEqual(trace(record.events), ["root yield props doc.md", "root close err"]);
});

const EXEC_DOC = "Intro\n\n" +
  "```sh exec\necho one\necho two\n```\n\n" +
  "Middle\n\n" +
  '```sh exec as="r"\nfalse\n```\n\n' +
  "code={r.exitCode} out={r.stdout} err={r.stderr}\n\n" +
  "```sh exec silent\nquiet\n```\n\n" +
  "End\n";

Deno.test("exec: output streams in order with the prose; as binds {exitCode, stdout, stderr}; silent hides", async () => {
  const chunks: string[] = [];
  const seenAtCall: string[] = [];
  const world = createWorld({
    shell: {
      "echo one\necho two": { stdout: ["one\n", "two\n"], stderr: ["warn\n"] },
      "false": { stdout: ["no"], stderr: ["oops"], exitCode: 3 },
      quiet: { stdout: ["hidden\n"], stderr: ["hidden err\n"] },
    },
  });
  const shellRun = world.shell.run.bind(world.shell);
  world.providers.shell = {
    run: (request) => {
      seenAtCall.push(chunks.join(""));
      return shellRun(request);
    },
  };
  const record = await run(await load(EXEC_DOC), world.providers, { chunks });
  assert.deepEqual(record.outcome, { status: "completed" });
  assert.equal(record.stdout, "Intro\n\none\ntwo\n\nMiddle\n\ncode=3 out=no err=oops\n\nEnd\n");
  assert.equal(record.stderr, "warn\n");
  assert.deepEqual(seenAtCall, [
    "Intro",
    "Intro\n\none\ntwo\n\nMiddle",
    "Intro\n\none\ntwo\n\nMiddle\n\ncode=3 out=no err=oops",
  ]);
  const one = chunks.findIndex((chunk) => chunk.includes("one"));
  const two = chunks.findIndex((chunk) => chunk.includes("two"));
  assert.ok(one >= 0 && two > one, "each shell chunk is written as it arrives");
  assert.deepEqual(record.events[2], {
    type: "yield",
    coroutineId: "root",
    description: { type: "exec", name: "exec doc.md:10:1", lang: "sh", script: "false", as: "r" },
    result: { status: "ok", value: { exitCode: 3, stdout: "no", stderr: "oops" } },
  });
});

Deno.test("exec: the block's own blank lines are kept verbatim however its output is chunked", async () => {
  const program = await load("Intro\n\n```sh exec\nprint\n```\n\nAfter\n");
  const expected = "Intro\n\na\n\n\nb\n\nAfter\n";
  for (
    const chunks of [
      ["a\n\n\nb\n"],
      ["a\n", "\n\n", "b\n"],
      ["a\n", "\n", "\n", "b", "\n"],
      ["a", "\n\n\nb\n"],
    ]
  ) {
    const world = createWorld({ shell: { print: { stdout: chunks } } });
    const record = await run(program, world.providers);
    assert.equal(record.stdout, expected, JSON.stringify(chunks));
    const replayed = await run(program, createWorld().providers, { recorded: record.events });
    assert.equal(replayed.stdout, expected, `replay of ${JSON.stringify(chunks)}`);
  }
});

Deno.test("exec: a nonzero exit without as fails the run at the block, after printing its output", async () => {
  const world = createWorld({ shell: { "exit 2": { stdout: ["partial\n"], exitCode: 2 } } });
  const program = await load(
    'Intro\n\n```sh exec\nexit 2\n```\n\nafter\n\n<File path="f">x</File>\n',
  );
  const record = await run(program, world.providers);
  assert.deepEqual(record.outcome, {
    status: "failed",
    error: {
      name: "DocumentError",
      message:
        'doc.md:3:1: The sh block exited with code 2: fix the script, or add as="result" to handle the exit code',
    },
  });
  assert.equal(record.stdout, "Intro\n\npartial\n");
  assert.deepEqual(world.log.summary, ["shell exit 2"]);
});

Deno.test("exec: silent hides the output but a nonzero exit still fails the run", async () => {
  const world = createWorld({
    shell: { boom: { stdout: ["secret-ish\n"], stderr: ["e\n"], exitCode: 1 } },
  });
  const record = await run(await load("a\n\n```bash exec silent\nboom\n```\n"), world.providers);
  assert.equal(record.stdout, "a\n");
  assert.equal(record.stderr, "");
  assert.equal(record.outcome.status, "failed");
  assert.match(
    record.outcome.status === "failed" ? record.outcome.error.message : "",
    /^doc\.md:3:1: The bash block exited with code 1/,
  );
});

Deno.test("exec: a timed-out block fails with the timeout; timeout= and the default reach the shell", async () => {
  const world = createWorld({
    shell: { slow: { exitCode: 124, timedOut: true }, fast: {} },
  });
  const record = await run(
    await load("```sh exec\nfast\n```\n\n```sh exec timeout=1.5s\nslow\n```\n"),
    world.providers,
  );
  assert.deepEqual(world.shell.requests.map((request) => request.timeoutMs), [60_000, 1_500]);
  assert.deepEqual(record.outcome, {
    status: "failed",
    error: {
      name: "DocumentError",
      message: "doc.md:5:1: The sh block timed out after 1500 ms: raise timeout= or make it faster",
    },
  });
});

Deno.test("exec: {name} interpolates bindings, \\{ escapes, ${HOME} and shell groups stay literal", async () => {
  const program = await load(
    '<Let as="file" value={"a b.txt"} />\n\n' +
      "```bash exec\n" +
      "echo {props.name} \\{literal} ${HOME} $HOME {props.n + 1} {props.list}\n" +
      '{ echo grouped; }\ncat "{file}"\n' +
      "```\n",
  );
  const world = createWorld({ shellFallback: () => ({ stdout: ["ok\n"] }) });
  const record = await run(program, world.providers, {
    props: { name: "Ada", n: 1, list: [1, "x"] },
  });
  assert.deepEqual(record.outcome, { status: "completed" });
  assert.deepEqual(world.log.calls, [{
    provider: "shell",
    lang: "bash",
    script: 'echo Ada {literal} ${HOME} $HOME 2 [1,"x"]\n{ echo grouped; }\ncat "a b.txt"',
    cwd: ".",
    timeoutMs: 60_000,
  }]);
});

Deno.test("exec: blocks without exec are plain Markdown and never run", async () => {
  const world = createWorld();
  const record = await run(await load("```sh\necho {not run}\n```\n"), world.providers);
  assert.equal(record.stdout, "```sh\necho {not run}\n```\n");
  assert.deepEqual(world.log.calls, []);
});

const TARGET_DOC = "Preamble {props.a}\n\n" +
  "# A\n\nA text\n\n" +
  '## B\n\nB text\n\n<File path="b.txt">b</File>\n\n' +
  "### C\n\nC text\n\n" +
  '## D\n\nD text\n\n<File path="d.txt">d</File>\n\n' +
  "# E\n\n## B\n\nE/B text\n";

Deno.test("targets: #A/B runs the preamble, A's direct content and the B subtree only", async () => {
  const world = createWorld();
  const program = await load(TARGET_DOC, {}, { target: "A/B" });
  const record = await run(program, world.providers, { props: { a: 1 } });
  assert.equal(record.stdout, "Preamble 1\n\n# A\n\nA text\n\n## B\n\nB text\n\n### C\n\nC text\n");
  assert.deepEqual(world.log.summary, ["fs.write b.txt"]);
  assert.deepEqual(
    record.events.map((event) => event.type === "yield" && event.description.name),
    ["props doc.md", "File doc.md:11:1", false],
  );
});

Deno.test("targets: #E/B and a deep #A/B/C select by heading path", async () => {
  const eb = await run(await load(TARGET_DOC, {}, { target: "E/B" }), createWorld().providers, {
    props: { a: 1 },
  });
  assert.equal(eb.stdout, "Preamble 1\n\n# E\n\n## B\n\nE/B text\n");
  const world = createWorld();
  const abc = await run(await load(TARGET_DOC, {}, { target: "A/B/C" }), world.providers, {
    props: { a: 1 },
  });
  assert.equal(abc.stdout, "Preamble 1\n\n# A\n\nA text\n\n## B\n\nB text\n\n### C\n\nC text\n");
  assert.deepEqual(world.log.summary, ["fs.write b.txt"], "B's direct content runs, D does not");
});

Deno.test("the DOCUMENTS.md release example runs both ways", async () => {
  const text =
    '---\nprops:\n  version:\n    type: string\n    pattern: "^\\\\d+\\\\.\\\\d+\\\\.\\\\d+$"\n' +
    "  dryRun:\n    type: boolean\n    default: false\n---\n\n" +
    "# Release {props.version}\n\n" +
    '<File path="release/VERSION">{props.version}</File>\n\n' +
    "```sh exec\nmkdir -p release\nls release\n```\n\n" +
    '<Elicit as="approval" schema={{ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }}>\n' +
    "Publish version {props.version}?\n</Elicit>\n\n" +
    '<If condition={approval.ok && !props.dryRun}>\n  <File path="release/PUBLISHED">yes</File>\n  Published {props.version}.\n</If>\n' +
    "<Else>\n  Not published.\n</Else>\n";
  const program = await load(text);
  for (
    const [ok, dryRun, expected, writes] of [
      [true, false, "Published 1.4.0.", ["release/VERSION", "release/PUBLISHED"]],
      [true, true, "Not published.", ["release/VERSION"]],
      [false, false, "Not published.", ["release/VERSION"]],
    ] as const
  ) {
    const world = createWorld({
      shell: { "mkdir -p release\nls release": { stdout: ["VERSION\n"] } },
      answers: { approval: { ok } },
    });
    const record = await run(program, world.providers, { props: { version: "1.4.0", dryRun } });
    assert.deepEqual(record.outcome, { status: "completed" });
    assert.equal(record.stdout, `# Release 1.4.0\n\nVERSION\n\n${expected}\n`);
    assert.deepEqual([...world.fs.files.keys()], writes);
  }
});

function never(): never {
  throw new Error("unreachable");
}

Deno.test("<Each>: iterations are separated like the body's own blocks", async () => {
  const program = await load(
    '<Each items={["a", "b"]} as="x">\n<Let as="y" value={x.toUpperCase()} />\n- {y}\n</Each>\n\n' +
      '<Each items={["a", "b"]} as="x">\nPara {x}.\n\nMore {x}.\n</Each>\n\n' +
      '<Each items={["a", "b"]} as="x">\n<File path={x}>{x}</File>\n</Each>\n\n' +
      'Inline: <Each items={[1, 2, 3]} as="n">{n}, </Each>done.\n',
  );
  const world = createWorld();
  const record = await run(program, world.providers);
  assert.deepEqual(record.outcome, { status: "completed" });
  assert.equal(
    record.stdout,
    "- A\n- B\n\nPara a.\n\nMore a.\n\nPara b.\n\nMore b.\n\nInline: 1, 2, 3, done.\n",
  );
});

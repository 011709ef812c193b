/**
 * Rewrites a bundle chunk so that V8 compiles its functions when it compiles
 * the module, and so Deno's code cache keeps them (`deno task install`,
 * `_bundle-cli.ts`).
 *
 * Why: Deno creates a module's code cache right after V8 compiles the module,
 * before it runs, and V8 compiles a function lazily, on its first call,
 * unless its parser guesses that it is called at once. So a warm start
 * deserializes the chunks' top-level code and then compiles, every run again,
 * each function the command calls (about 200 for `xmd workflow list`). V8
 * guesses "called at once" for a function literal in parentheses (its PIFE
 * heuristic), and compiles it with its enclosing code; Deno 2.9.6 compiles
 * modules without V8's option to follow the `//# allFunctionsCalledOnLoad`
 * magic comment, so parentheses are the hint that works.
 *
 * The rewrite:
 * - puts every function and arrow expression in parentheses, but a method,
 *   an accessor or a class member (which have no expression form of the same
 *   meaning), one that already is, one that starts an expression statement,
 *   and `export default`'s;
 * - turns each function declaration of a module's or a function's body into
 *   `var name = (function name(…) {…});` moved to the start of that body, so
 *   it is defined before any of the body's code runs, as a declaration is
 *   (`export function name` leaves `export { name };` in its place). A
 *   declaration whose name is assigned in its body (or a function inside it)
 *   is left as it is, since the function's own name inside it would then
 *   differ from the variable; so is one in a block (`if`, loops), which is
 *   scoped to it.
 *
 * Invariants:
 * - The chunk means what it meant: parentheses around an expression change
 *   nothing (an anonymous function keeps the name its position gives it), and
 *   a declaration's function exists before the code of its body runs, with
 *   the same name and source text. Chunks of a bundle do not import each
 *   other in a cycle (checked by the caller), so no other chunk can call a
 *   function of this one before this one has run.
 * - The result parses as a module, or the rewrite throws.
 *
 * @module
 */
import * as acorn from "acorn";

/** An ESTree node as acorn produces it, read generically. */
type Node = acorn.Node & { [key: string]: unknown };

/** What the rewrite did, for the build's report and the tests. */
export interface EagerCompileResult {
  /** The rewritten source. */
  text: string;
  /** Function and arrow expressions put in parentheses. */
  wrapped: number;
  /** Function declarations turned into variables of functions in parentheses. */
  hoisted: number;
  /** The specifiers the module imports or re-exports from, statically. */
  imports: string[];
}

const FUNCTION_EXPRESSIONS = new Set(["FunctionExpression", "ArrowFunctionExpression"]);
const FUNCTIONS = new Set([...FUNCTION_EXPRESSIONS, "FunctionDeclaration"]);

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null &&
    typeof (value as { type?: unknown }).type === "string";
}

/** A node's child nodes in source order. */
function childrenOf(node: Node): Node[] {
  const children: Node[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "type" || key === "start" || key === "end") continue;
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) children.push(item);
    } else if (isNode(value)) {
      children.push(value);
    }
  }
  return children.sort((a, b) => a.start - b.start);
}

/** The names a pattern binds or assigns (`a`, `[a, ...b]`, `{ a: c = 1 }`), not members. */
function patternNames(pattern: Node, names: string[] = []): string[] {
  if (pattern.type === "Identifier") names.push(pattern.name as string);
  else if (pattern.type === "ArrayPattern") {
    for (const element of pattern.elements as (Node | null)[]) {
      if (element) patternNames(element, names);
    }
  } else if (pattern.type === "ObjectPattern") {
    for (const property of pattern.properties as Node[]) {
      patternNames((property.type === "RestElement" ? property : property.value) as Node, names);
    }
  } else if (pattern.type === "RestElement") patternNames(pattern.argument as Node, names);
  else if (pattern.type === "AssignmentPattern") patternNames(pattern.left as Node, names);
  else if (pattern.type === "ParenthesizedExpression") {
    patternNames(pattern.expression as Node, names);
  }
  return names;
}

/**
 * For the module and each function body, the names assigned in it or in a
 * function inside it (`name = …`, `name += …`, `name++`, `[name] = …`,
 * `for (name of …)`): a declaration's binding can only be assigned there.
 */
function assignedNames(program: Node, bodies: ReadonlySet<Node>): Map<Node, Set<string>> {
  const assigned = new Map<Node, Set<string>>();
  const open: Set<string>[] = [];
  const visit = (node: Node): void => {
    const isBody = node === program || bodies.has(node);
    if (isBody) {
      const names = new Set<string>();
      assigned.set(node, names);
      open.push(names);
    }
    const target = node.type === "AssignmentExpression"
      ? node.left
      : node.type === "UpdateExpression"
      ? node.argument
      : node.type === "ForInStatement" || node.type === "ForOfStatement"
      ? node.left
      : undefined;
    if (isNode(target) && target.type !== "VariableDeclaration") {
      for (const name of patternNames(target)) for (const names of open) names.add(name);
    }
    for (const child of childrenOf(node)) visit(child);
    if (isBody) open.pop();
  };
  visit(program);
  return assigned;
}

/**
 * Rewrites `source`, an ES module, so that V8 compiles its functions with it
 * (see the module's documentation for what changes and why it means the
 * same).
 */
export function compileWithModule(source: string): EagerCompileResult {
  const program = acorn.parse(source, {
    ecmaVersion: "latest",
    sourceType: "module",
    preserveParens: true,
  }) as unknown as Node;
  const functionBodies = new Set<Node>();
  const markBodies = (node: Node): void => {
    if (FUNCTIONS.has(node.type) && isNode(node.body) && node.body.type === "BlockStatement") {
      functionBodies.add(node.body);
    }
    for (const child of childrenOf(node)) markBodies(child);
  };
  markBodies(program);
  const assigned = assignedNames(program, functionBodies);
  let wrapped = 0;
  let hoisted = 0;

  /** The declaration this statement of `body` holds, if it is to become a variable. */
  const hoistable = (statement: Node, body: Node): Node | undefined => {
    const declaration = statement.type === "ExportNamedDeclaration"
      ? statement.declaration
      : statement;
    if (!isNode(declaration) || declaration.type !== "FunctionDeclaration") return undefined;
    const id = declaration.id;
    if (!isNode(id) || assigned.get(body)!.has(id.name as string)) return undefined;
    return declaration;
  };

  const emit = (node: Node, parent: Node): string => {
    const text = emitBody(node);
    if (!FUNCTION_EXPRESSIONS.has(node.type)) return text;
    const keep = parent.type === "ParenthesizedExpression" ||
      parent.type === "MethodDefinition" ||
      (parent.type === "Property" && (parent.method === true || parent.kind !== "init")) ||
      (parent.type === "ExpressionStatement" && parent.start === node.start) ||
      parent.type === "ExportDefaultDeclaration";
    if (keep) return text;
    wrapped++;
    return `(${text})`;
  };

  /** `node`'s source from `from` to its end, its children rewritten. */
  const emitChildren = (node: Node, from: number, hoist?: { at: number; text: string }) => {
    let out = "";
    let cursor = from;
    let placed = hoist === undefined;
    for (const child of childrenOf(node)) {
      if (child.start < cursor) continue; // a shorthand property's key and value are one node
      if (!placed && hoist!.at <= child.start) {
        out += source.slice(cursor, hoist!.at) + hoist!.text;
        cursor = hoist!.at;
        placed = true;
      }
      out += source.slice(cursor, child.start);
      const declaration = hoist === undefined ? undefined : hoistable(child, node);
      if (declaration === undefined) {
        out += emit(child, node);
      } else if (child.type === "ExportNamedDeclaration") {
        out += `export { ${(declaration.id as Node).name} };`;
      }
      cursor = child.end;
    }
    // A module's text runs to the end of the source, past its last token's comments.
    out += source.slice(cursor, node.type === "Program" ? source.length : node.end);
    return placed ? out : out + hoist!.text;
  };

  /** A function declaration as `var name = (function name(…) {…});`. */
  const asVariable = (declaration: Node): string => {
    hoisted++;
    const name = (declaration.id as Node).name as string;
    return `var ${name} = (${emitChildren(declaration, declaration.start)});`;
  };

  const emitBody = (node: Node): string => {
    const isBody = node.type === "Program" || functionBodies.has(node);
    const statements = isBody ? (node.body as Node[]) : [];
    const declarations = statements.map((statement) => hoistable(statement, node))
      .filter((d): d is Node => d !== undefined);
    if (declarations.length === 0) return emitChildren(node, node.start);
    // After the imports of a module, or the opening brace and directives of a function.
    let at = node.type === "Program" ? node.start : node.start + 1;
    for (const statement of statements) {
      if (statement.type !== "ImportDeclaration" && statement.directive === undefined) break;
      at = statement.end;
    }
    const text = "\n" + declarations.map(asVariable).join("\n") + "\n";
    return emitChildren(node, node.start, { at, text });
  };

  const text = emitBody(program);
  acorn.parse(text, { ecmaVersion: "latest", sourceType: "module" });
  const imports = (program.body as Node[]).flatMap((statement) => {
    const from = statement.source;
    return isNode(from) && typeof from.value === "string" ? [from.value] : [];
  });
  return { text, wrapped, hoisted, imports };
}

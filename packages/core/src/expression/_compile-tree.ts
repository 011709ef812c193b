/**
 * Compiles an ESTree expression into a tree of closures. Invariant: every
 * node is validated once, here; a closure only computes, and every value it
 * returns is a runtime value (JSON with finite numbers, or `undefined`), so
 * nothing reachable from an expression is a function, a prototype or a global.
 *
 * @module
 */
import type * as estree from "estree";
import { DocumentError } from "../document/document-error.ts";
import type { SourcePosition } from "../document/source-position.ts";
import type { JsonObject, JsonValue } from "../json/json-value.ts";
import {
  ALLOWED_METHOD_NAMES,
  arityProblem,
  callMethod,
  type Fail,
  findMethodFamily,
  hasMethodFor,
  MAX_ARRAY_LENGTH,
  MAX_STRING_LENGTH,
  receiverTypes,
} from "./_method-allowlist.ts";
import { describeKind, type RuntimeValue } from "./_runtime-value.ts";
import type { Scope } from "./scope.ts";

/** Finds where a node starts in the document. */
export type Locate = (node: estree.Node) => SourcePosition;

/** A compiled node: computes its value from the scope. */
export type Run = (scope: Scope) => RuntimeValue;

/** The result of compiling one expression. */
export interface CompiledTree {
  readonly run: Run;
  /** Free names the expression looks up, in order of first use. */
  readonly identifiers: readonly string[];
}

/**
 * Validates `expression` and compiles it; throws a positioned
 * {@linkcode DocumentError} for the first construct that is not allowed.
 */
export function compileTree(expression: estree.Node, locate: Locate): CompiledTree {
  const compiler = new Compiler(locate);
  const run = compiler.value(expression);
  return { run, identifiers: [...compiler.identifiers] };
}

/** Marks an optional chain cut short by `?.`; the chain's root turns it into `undefined`. */
const SHORT: unique symbol = Symbol("short-circuit");
type ChainRun = (scope: Scope) => RuntimeValue | typeof SHORT;

/** Names that lead to prototypes and constructors, refused wherever a property is named. */
const FORBIDDEN_NAMES: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

const SCOPE_HINT = 'bindings in scope are props, meta and names bound with as="…"';
const BITWISE = "Bitwise operators are not allowed in an expression: use arithmetic operators";

const REFUSALS: Readonly<Record<string, string>> = {
  AssignmentExpression:
    'Assignment is not allowed in an expression: compute a new value, and bind it with as="…" if needed',
  UpdateExpression: "Increment and decrement are not allowed in an expression: write x + 1",
  NewExpression:
    '"new" is not allowed in an expression: build values with array and object literals',
  SequenceExpression: "The comma operator is not allowed in an expression: write one expression",
  ArrowFunctionExpression:
    "Functions are not allowed in an expression: use operators and the allowlisted methods",
  FunctionExpression:
    "Functions are not allowed in an expression: use operators and the allowlisted methods",
  ClassExpression: "Classes are not allowed in an expression: build values with object literals",
  ThisExpression: `"this" is not allowed in an expression: ${SCOPE_HINT}`,
  Super: `"super" is not allowed in an expression: ${SCOPE_HINT}`,
  ImportExpression: "import() is not allowed in an expression: expressions cannot load code",
  MetaProperty: `import.meta and new.target are not allowed in an expression: ${SCOPE_HINT}`,
  YieldExpression: '"yield" is not allowed in an expression: expressions compute a value at once',
  AwaitExpression: '"await" is not allowed in an expression: bound values are already resolved',
  TaggedTemplateExpression: "Tagged templates are not allowed: use an untagged template literal",
  JSXElement: "JSX is not allowed inside an expression: write the element outside the braces",
  JSXFragment: "JSX is not allowed inside an expression: write the element outside the braces",
  SpreadElement: "Spread is only allowed inside array and object literals",
};

const UNARY_REFUSALS: Readonly<Record<string, string>> = {
  delete: '"delete" is not allowed in an expression: build a new object without the key',
  void: '"void" is not allowed in an expression: write undefined',
  "~": BITWISE,
};

const BINARY_REFUSALS: Readonly<Record<string, string>> = {
  in:
    '"in" is not allowed in an expression: compare the member with undefined, e.g. x.key !== undefined',
  instanceof: '"instanceof" is not allowed in an expression: use typeof',
  "|": BITWISE,
  "&": BITWISE,
  "^": BITWISE,
  "<<": BITWISE,
  ">>": BITWISE,
  ">>>": BITWISE,
};

type Arithmetic = (left: number, right: number) => number;
const ARITHMETIC: Readonly<Record<string, Arithmetic>> = {
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => a / b,
  "%": (a, b) => a % b,
  "**": (a, b) => a ** b,
};

type Comparison = (left: number | string, right: number | string) => boolean;
const COMPARISONS: Readonly<Record<string, Comparison>> = {
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
};

type Equality = (left: RuntimeValue, right: RuntimeValue) => boolean;
const EQUALITIES: Readonly<Record<string, Equality>> = {
  "===": (a, b) => a === b,
  "!==": (a, b) => a !== b,
  // Loose equality on JSON values only ever calls built-in conversions.
  "==": (a, b) => a == b,
  "!=": (a, b) => a != b,
};

function typeOf(value: RuntimeValue): string {
  return value === null || Array.isArray(value) ? "object" : typeof value;
}

function isObject(value: RuntimeValue): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Defines an own data property even for `__proto__`, which assignment would treat as the prototype. */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/** Reads an own property; strings and arrays own their `length` and their indices. */
function readOwn(target: JsonValue, key: string): RuntimeValue {
  return Object.hasOwn(target as object, key) ? (target as JsonObject)[key] : undefined;
}

/** The text of a value inside a template or a string concatenation. */
function toText(value: RuntimeValue, fail: Fail): string {
  if (typeof value === "string") return value;
  if (value === undefined) {
    fail('Cannot convert undefined to text: give a default with ??, e.g. x ?? ""');
  }
  if (Array.isArray(value)) fail('Cannot convert an array to text: use .join(", ")');
  if (typeof value === "object" && value !== null) {
    fail("Cannot convert an object to text: select one of its properties");
  }
  return String(value);
}

/** Joins two texts, refusing (before building it) a result longer than a method may return. */
function joinText(what: string, left: string, right: string, fail: Fail): string {
  if (left.length + right.length > MAX_STRING_LENGTH) {
    fail(`Cannot ${what}: the text would be longer than ${MAX_STRING_LENGTH} characters`);
  }
  return left + right;
}

class Compiler {
  readonly identifiers: Set<string> = new Set();
  readonly #locate: Locate;

  constructor(locate: Locate) {
    this.#locate = locate;
  }

  #refuse(node: estree.Node, reason: string): never {
    throw new DocumentError(reason, this.#locate(node));
  }

  #failAt(node: estree.Node): Fail {
    const position = this.#locate(node);
    return (reason) => {
      throw new DocumentError(reason, position);
    };
  }

  /** Compiles a node whose value is used as is; an optional chain ends here. */
  value(node: estree.Node): Run {
    switch (node.type) {
      case "Literal":
        return this.#literal(node);
      case "TemplateLiteral":
        return this.#template(node);
      case "ArrayExpression":
        return this.#array(node);
      case "ObjectExpression":
        return this.#object(node);
      case "Identifier":
        return this.#identifier(node);
      case "ChainExpression":
      case "MemberExpression":
      case "CallExpression": {
        const chain = this.#chain(node.type === "ChainExpression" ? node.expression : node);
        return (scope) => {
          const result = chain(scope);
          return result === SHORT ? undefined : result;
        };
      }
      case "UnaryExpression":
        return this.#unary(node);
      case "BinaryExpression":
        return this.#binary(node);
      case "LogicalExpression":
        return this.#logical(node);
      case "ConditionalExpression":
        return this.#conditional(node);
      default:
        return this.#refuse(
          node,
          REFUSALS[node.type] ??
            `${node.type} is not allowed in an expression: use literals, names, member access, ` +
              "operators and the allowlisted methods",
        );
    }
  }

  #literal(node: estree.Literal): Run {
    if ("regex" in node && node.regex) {
      this.#refuse(
        node,
        "Regular expressions are not allowed: use string methods such as includes, startsWith or replaceAll",
      );
    }
    if ("bigint" in node && node.bigint !== undefined) {
      this.#refuse(node, "BigInt literals are not allowed: use a number");
    }
    const value = node.value;
    if (typeof value === "number" && !Number.isFinite(value)) {
      this.#refuse(node, "Number literal is too large: JSON numbers must be finite");
    }
    if (
      value !== null && typeof value !== "string" && typeof value !== "number" &&
      typeof value !== "boolean"
    ) {
      this.#refuse(node, "Literal is not allowed: use a string, number, boolean or null");
    }
    return () => value;
  }

  #template(node: estree.TemplateLiteral): Run {
    const texts = node.quasis.map((quasi) => quasi.value.cooked ?? quasi.value.raw);
    const parts = node.expressions.map((expression) => ({
      run: this.value(expression),
      fail: this.#failAt(expression),
    }));
    const fail = this.#failAt(node);
    return (scope) => {
      let text = texts[0];
      for (let index = 0; index < parts.length; index++) {
        const part = parts[index];
        text = joinText("build the template", text, toText(part.run(scope), part.fail), fail);
        text = joinText("build the template", text, texts[index + 1], fail);
      }
      return text;
    };
  }

  #array(node: estree.ArrayExpression): Run {
    const elements = node.elements.map((element) => {
      if (element === null) {
        return this.#refuse(node, "Array holes are not allowed: write null for an empty element");
      }
      if (element.type === "SpreadElement") {
        const run = this.value(element.argument);
        const fail = this.#failAt(element);
        return { spread: true, run, fail };
      }
      return { spread: false, run: this.value(element), fail: this.#failAt(element) };
    });
    return (scope) => {
      const result: JsonValue[] = [];
      for (const { spread, run, fail } of elements) {
        const value = run(scope);
        if (!spread) result.push(value === undefined ? null : value);
        else if (!Array.isArray(value)) {
          fail(`Cannot spread ${describeKind(value)} into an array: spread an array`);
        } else if (result.length + value.length > MAX_ARRAY_LENGTH) {
          fail(
            `Cannot spread this array: the result would have more than ${MAX_ARRAY_LENGTH} elements`,
          );
        } else {
          for (const item of value) result.push(item);
        }
      }
      return result;
    };
  }

  #object(node: estree.ObjectExpression): Run {
    type Entry =
      | { kind: "spread"; run: Run; fail: Fail }
      | { kind: "static"; key: string; run: Run }
      | { kind: "computed"; key: Run; run: Run; fail: Fail };
    const entries = node.properties.map((property): Entry => {
      if (property.type === "SpreadElement") {
        return { kind: "spread", run: this.value(property.argument), fail: this.#failAt(property) };
      }
      if (property.kind !== "init" || property.method) {
        this.#refuse(
          property,
          "Getters, setters and methods are not allowed in an object literal: write key: value",
        );
      }
      if (property.computed) {
        return {
          kind: "computed",
          key: this.value(property.key),
          run: this.value(property.value),
          fail: this.#failAt(property.key),
        };
      }
      const key = this.#staticKey(property.key);
      if (FORBIDDEN_NAMES.has(key)) {
        this.#refuse(
          property.key,
          `Key "${key}" is not allowed in an object literal: use another key`,
        );
      }
      return { kind: "static", key, run: this.value(property.value) };
    });
    return (scope) => {
      const result: JsonObject = {};
      for (const entry of entries) {
        if (entry.kind === "spread") {
          const source = entry.run(scope);
          if (source === null || source === undefined) continue;
          if (!isObject(source)) {
            entry.fail(`Cannot spread ${describeKind(source)} into an object: spread an object`);
          }
          for (const [key, value] of Object.entries(source)) setOwn(result, key, value);
          continue;
        }
        let key: string;
        if (entry.kind === "static") {
          key = entry.key;
        } else {
          const computed = entry.key(scope);
          if (typeof computed === "number") key = String(computed);
          else if (typeof computed === "string") key = computed;
          else {
            return entry.fail(
              `Cannot use ${describeKind(computed)} as an object key: use a string or a number`,
            );
          }
          if (FORBIDDEN_NAMES.has(key)) {
            entry.fail(`Cannot use key "${key}" in an object literal: use another key`);
          }
        }
        const value = entry.run(scope);
        // As JSON.stringify does: a property whose value is undefined is left out.
        if (value === undefined) delete result[key];
        else setOwn(result, key, value);
      }
      return result;
    };
  }

  #staticKey(key: estree.Node): string {
    if (key.type === "Identifier") return key.name;
    if (
      key.type === "Literal" && (typeof key.value === "string" || typeof key.value === "number")
    ) {
      return String(key.value);
    }
    return this.#refuse(key, "Object key is not allowed: use a name, a string or a number");
  }

  #identifier(node: estree.Identifier): Run {
    const name = node.name;
    if (name === "undefined") return () => undefined;
    this.#checkName(node);
    const fail = this.#failAt(node);
    return (scope) => {
      const value = scope(name);
      if (value === undefined) fail(`Unknown name "${name}": ${SCOPE_HINT}`);
      return value;
    };
  }

  /** Records a free name; a scope backed by a plain object must never be asked for its prototype. */
  #checkName(node: estree.Identifier): void {
    if (FORBIDDEN_NAMES.has(node.name)) {
      this.#refuse(node, `Name "${node.name}" is not allowed: ${SCOPE_HINT}`);
    }
    this.identifiers.add(node.name);
  }

  /** Compiles a link of a member/call chain, which may be cut short by `?.`. */
  #chain(node: estree.Node): ChainRun {
    if (node.type === "MemberExpression") return this.#member(node);
    if (node.type === "CallExpression") return this.#call(node);
    return this.value(node);
  }

  #member(node: estree.MemberExpression): ChainRun {
    if (node.object.type === "Super") return this.#refuse(node.object, REFUSALS.Super);
    const object = this.#chain(node.object);
    const optional = node.optional;
    const fail = this.#failAt(node.property);
    const key = this.#memberKey(node);
    if (typeof key === "string") {
      return (scope) => {
        const target = object(scope);
        if (target === SHORT) return SHORT;
        if (target === null || target === undefined) {
          if (optional) return SHORT;
          return fail(`Cannot read property "${key}" of ${target}: use ?. when it may be missing`);
        }
        return readOwn(target, key);
      };
    }
    return (scope) => {
      const target = object(scope);
      if (target === SHORT) return SHORT;
      if (target === null || target === undefined) {
        if (optional) return SHORT;
        return fail(`Cannot read a computed property of ${target}: use ?. when it may be missing`);
      }
      const value = key(scope);
      let name: string;
      if (typeof value === "string") name = value;
      else if (typeof value === "number") name = String(value);
      else {return fail(
          `Cannot read a property with ${describeKind(value)} as key: use a string or a number`,
        );}
      if (FORBIDDEN_NAMES.has(name)) {
        fail(`Cannot read property "${name}": expressions read only a value's own data`);
      }
      return readOwn(target, name);
    };
  }

  /** The member's name when it is known statically, else the compiled key. */
  #memberKey(node: estree.MemberExpression): string | Run {
    const property = node.property;
    let name: string;
    if (!node.computed && property.type === "Identifier") name = property.name;
    else if (
      node.computed && property.type === "Literal" &&
      (typeof property.value === "string" || typeof property.value === "number")
    ) name = String(property.value);
    else if (node.computed) return this.value(property);
    else return this.#refuse(property, "Private names are not allowed in an expression");
    if (FORBIDDEN_NAMES.has(name)) {
      this.#refuse(
        property,
        `Property "${name}" is not allowed: expressions read only a value's own data`,
      );
    }
    return name;
  }

  #call(node: estree.SimpleCallExpression): ChainRun {
    const callee = node.callee;
    if (callee.type !== "MemberExpression") {
      return this.#refuse(
        callee,
        "Only method calls such as name.trim() are allowed: functions cannot be called",
      );
    }
    if (callee.computed || callee.property.type !== "Identifier") {
      return this.#refuse(
        callee.property,
        "Methods must be called by name with a dot, such as name.trim(): computed method names are not allowed",
      );
    }
    const name = callee.property.name;
    const family = findMethodFamily(name);
    if (family === undefined) {
      return this.#refuse(
        callee.property,
        `Method "${name}" is not allowed: the allowed methods are ${
          ALLOWED_METHOD_NAMES.join(", ")
        }`,
      );
    }
    if (callee.object.type === "Super") return this.#refuse(callee.object, REFUSALS.Super);
    const receiver = this.#chain(callee.object);
    const args = node.arguments.map((argument) => {
      if (argument.type === "SpreadElement") {
        return this.#refuse(
          argument,
          "Spread arguments are not allowed in a method call: pass each argument",
        );
      }
      return this.value(argument);
    });
    const problem = arityProblem(family, args.length);
    if (problem !== undefined) this.#refuse(node, problem);
    const receiverOptional = callee.optional;
    const callOptional = node.optional;
    const fail = this.#failAt(callee.property);
    const owners = receiverTypes(family);
    return (scope) => {
      const target = receiver(scope);
      if (target === SHORT) return SHORT;
      if (target === null || target === undefined) {
        if (receiverOptional) return SHORT;
        return fail(`Cannot call "${name}" on ${target}: use ?. when it may be missing`);
      }
      if (!hasMethodFor(family, target)) {
        if (callOptional) return SHORT;
        return fail(
          `Cannot call "${name}" on ${describeKind(target)}: it is a method of ${owners}`,
        );
      }
      const values: RuntimeValue[] = [];
      for (const arg of args) values.push(arg(scope));
      return callMethod(family, target, values, fail);
    };
  }

  #unary(node: estree.UnaryExpression): Run {
    const refusal = UNARY_REFUSALS[node.operator];
    if (refusal !== undefined) this.#refuse(node, refusal);
    const argument = node.argument;
    if (node.operator === "typeof" && argument.type === "Identifier") {
      // As in JavaScript, typeof of an unbound name is "undefined", not an error.
      const name = argument.name;
      if (name === "undefined") return () => "undefined";
      this.#checkName(argument);
      return (scope) => typeOf(scope(name));
    }
    const run = this.value(argument);
    switch (node.operator) {
      case "!":
        return (scope) => !run(scope);
      case "typeof":
        return (scope) => typeOf(run(scope));
      default: {
        const negate = node.operator === "-";
        const operator = node.operator;
        const fail = this.#failAt(node);
        return (scope) => {
          const value = run(scope);
          if (typeof value !== "number" && typeof value !== "string") {
            return fail(
              `Cannot apply unary "${operator}" to ${
                describeKind(value)
              }: use a number or a numeric string`,
            );
          }
          const result = negate ? -value : +value;
          if (!Number.isFinite(result)) {
            fail(`Cannot apply unary "${operator}": the result is not a finite number`);
          }
          return result;
        };
      }
    }
  }

  #binary(node: estree.BinaryExpression): Run {
    const operator = node.operator;
    const refusal = BINARY_REFUSALS[operator];
    if (refusal !== undefined) this.#refuse(node, refusal);
    if (node.left.type === "PrivateIdentifier") {
      return this.#refuse(node.left, "Private names are not allowed in an expression");
    }
    const left = this.value(node.left);
    const right = this.value(node.right);
    const fail = this.#failAt(node);
    const equality = EQUALITIES[operator];
    if (equality !== undefined) return (scope) => equality(left(scope), right(scope));
    const comparison = COMPARISONS[operator];
    if (comparison !== undefined) {
      return (scope) => {
        const a = left(scope);
        const b = right(scope);
        if (
          !(typeof a === "number" && typeof b === "number") &&
          !(typeof a === "string" && typeof b === "string")
        ) {
          return fail(
            `Cannot compare ${describeKind(a)} with ${describeKind(b)} using "${operator}": ` +
              "compare two numbers or two strings",
          );
        }
        return comparison(a, b);
      };
    }
    if (operator === "+") {
      return (scope) => {
        const a = left(scope);
        const b = right(scope);
        if (typeof a === "number" && typeof b === "number") {
          const sum = a + b;
          if (!Number.isFinite(sum)) fail('Cannot apply "+": the result is not a finite number');
          return sum;
        }
        if (typeof a === "string" || typeof b === "string") {
          return joinText('apply "+"', toText(a, fail), toText(b, fail), fail);
        }
        return fail(
          `Cannot apply "+" to ${describeKind(a)} and ${describeKind(b)}: ` +
            "add two numbers, or join text with a string",
        );
      };
    }
    const arithmetic = ARITHMETIC[operator];
    if (arithmetic === undefined) {
      return this.#refuse(node, `Operator "${operator}" is not allowed in an expression`);
    }
    return (scope) => {
      const a = left(scope);
      const b = right(scope);
      if (typeof a !== "number" || typeof b !== "number") {
        return fail(
          `Cannot apply "${operator}" to ${describeKind(a)} and ${describeKind(b)}: ` +
            "both operands must be numbers",
        );
      }
      const result = arithmetic(a, b);
      if (!Number.isFinite(result)) {
        fail(
          `Cannot apply "${operator}": the result is not a finite number, which JSON cannot hold`,
        );
      }
      return result;
    };
  }

  #logical(node: estree.LogicalExpression): Run {
    const left = this.value(node.left);
    const right = this.value(node.right);
    switch (node.operator) {
      case "&&":
        return (scope) => left(scope) && right(scope);
      case "||":
        return (scope) => left(scope) || right(scope);
      case "??":
        return (scope) => left(scope) ?? right(scope);
      default:
        return this.#refuse(node, `Operator "${node.operator}" is not allowed in an expression`);
    }
  }

  #conditional(node: estree.ConditionalExpression): Run {
    const test = this.value(node.test);
    const consequent = this.value(node.consequent);
    const alternate = this.value(node.alternate);
    return (scope) => test(scope) ? consequent(scope) : alternate(scope);
  }
}

/**
 * The evaluator of Worker Shell's `bc` (WS-181): it compiles each input item
 * to a flat list of instructions and runs them on a stack of its own, so a
 * deep recursion of `bc` functions (`define f(n) { if (n) return f(n-1) }`,
 * `f(10000)`) never deepens JavaScript's stack.
 *
 * Invariants, each GNU bc 1.07's:
 * - Variables and arrays are global unless a function's parameters or
 *   `auto` list names them; those are scoped dynamically (a function it
 *   calls sees them) and restored when it returns, even on an error.
 *   Arrays are passed by value.
 * - An expression statement prints its value and sets `last`, except an
 *   assignment not in parentheses; `&&` and `||` do not evaluate their
 *   right side when the left decides.
 * - A runtime error (`Divide by zero`) stops the rest of its input item and
 *   writes `Runtime error (func=NAME): MESSAGE`; GNU writes
 *   `(func=NAME, adr=N)` with N an address in its own bytecode, which this
 *   evaluator does not have. A warning (`non-zero scale in exponent`) is
 *   written the same way and the item goes on.
 *
 * @module
 */
import {
  add,
  BcNumber,
  BcRuntimeError,
  compare,
  digitCount,
  divide,
  formatNumber,
  modulo,
  multiply,
  negate,
  parseNumeral,
  raise,
  squareRoot,
  subtract,
} from "./worker-shell-bc-number.ts";
import type { BcExpr, BcFunction, BcStatement, BcTarget } from "./worker-shell-bc-parse.ts";

/** An array's elements by index; an element never set is zero. */
type BcArray = Map<number, BcNumber>;

/** A function of `bc -l`'s library, computed natively at `scale`. */
export type BcNative = (args: BcNumber[], scale: number) => BcNumber;

type Place = { kind: "var" | "elem"; name: string } | {
  kind: "special";
  name: "scale" | "ibase" | "obase" | "last";
};

type Instruction =
  | { op: "num"; text: string; base: number; value: BcNumber | undefined }
  | { op: "const"; value: BcNumber }
  | { op: "load"; place: Place }
  | { op: "store"; place: Place; assign: string }
  | { op: "step"; place: Place; delta: 1 | -1; prefix: boolean }
  | { op: "binary"; operator: string }
  | { op: "neg" | "not" | "print" | "pop" | "printValue" | "halt" | "limits" }
  | { op: "jump" | "jumpIfZero" | "jumpIfNotZero"; to: number }
  | { op: "array"; name: string }
  | { op: "call"; name: string; count: number }
  | { op: "builtin"; name: "sqrt" | "length" | "scale" }
  | { op: "text"; text: string }
  | { op: "return"; value: boolean };

/** A function compiled, or one of the library's. */
type Callable = { kind: "bc"; fn: BcFunction; code: Instruction[] } | {
  kind: "native";
  arity: number;
  compute: BcNative;
};

/** Where a running function is, and what its locals hid. */
type Frame = {
  name: string;
  code: Instruction[];
  pc: number;
  hidden: { array: boolean; name: string; value: BcNumber | BcArray | undefined }[];
};

/** The value on the stack of a call to a `void` function. */
const VOID = null;
type Value = BcNumber | BcArray | typeof VOID;

const LIMITS = [
  "BC_BASE_MAX     = 2147483647",
  "BC_DIM_MAX      = 16777215",
  "BC_SCALE_MAX    = 2147483647",
  "BC_STRING_MAX   = 2147483647",
  "MAX Exponent    = 9223372036854775807",
  "Number of vars  = 32767",
  "",
].join("\n");

const LARGEST_INDEX = 16777215;
const LARGEST_OBASE = 2147483647;
const ZERO = BcNumber.of(0);
const ONE = BcNumber.of(1);

/** `halt` ran: the program ends. */
export class BcHalt extends Error {
  constructor() {
    super("halt");
    this.name = "BcHalt";
  }
}

/** Compiles statements to instructions, resolving `break` and `continue` to jumps. */
class Compiler {
  readonly code: Instruction[] = [];
  private readonly loops: { breaks: number[]; continues: number[] }[] = [];

  private emit(instruction: Instruction): number {
    this.code.push(instruction);
    return this.code.length - 1;
  }

  private patch(at: number, to: number): void {
    const instruction = this.code[at];
    if (
      instruction.op === "jump" || instruction.op === "jumpIfZero" ||
      instruction.op === "jumpIfNotZero"
    ) {
      instruction.to = to;
    }
  }

  statements(statements: readonly BcStatement[]): void {
    for (const statement of statements) this.statement(statement);
  }

  private statement(statement: BcStatement): void {
    switch (statement.kind) {
      case "expr":
        this.expr(statement.expr);
        this.emit({
          op: statement.expr.kind === "assign" && !statement.expr.grouped ? "pop" : "print",
        });
        return;
      case "string":
        this.emit({ op: "text", text: statement.text });
        return;
      case "print":
        for (const item of statement.items) {
          if (item.kind === "text") this.emit({ op: "text", text: item.text });
          else {
            this.expr(item.expr);
            this.emit({ op: "printValue" });
          }
        }
        return;
      case "block":
        this.statements(statement.body);
        return;
      case "if": {
        this.expr(statement.test);
        const skip = this.emit({ op: "jumpIfZero", to: -1 });
        this.statement(statement.then);
        if (statement.otherwise === undefined) {
          this.patch(skip, this.code.length);
          return;
        }
        const end = this.emit({ op: "jump", to: -1 });
        this.patch(skip, this.code.length);
        this.statement(statement.otherwise);
        this.patch(end, this.code.length);
        return;
      }
      case "while": {
        const top = this.code.length;
        this.expr(statement.test);
        const exit = this.emit({ op: "jumpIfZero", to: -1 });
        this.loop(statement.body, top);
        this.emit({ op: "jump", to: top });
        this.endLoop(exit);
        return;
      }
      case "for": {
        if (statement.init !== undefined) this.discarded(statement.init);
        const top = this.code.length;
        let exit = -1;
        if (statement.test !== undefined) {
          this.expr(statement.test);
          exit = this.emit({ op: "jumpIfZero", to: -1 });
        }
        const next = this.loop(statement.body, -1);
        for (const at of next) this.patch(at, this.code.length);
        if (statement.step !== undefined) this.discarded(statement.step);
        this.emit({ op: "jump", to: top });
        this.endLoop(exit);
        return;
      }
      case "break":
      case "continue": {
        const loop = this.loops[this.loops.length - 1];
        const at = this.emit({ op: "jump", to: -1 });
        (statement.kind === "break" ? loop.breaks : loop.continues).push(at);
        return;
      }
      case "halt":
      case "limits":
        this.emit({ op: statement.kind });
        return;
      case "return":
        if (statement.value !== undefined) this.expr(statement.value);
        this.emit({ op: "return", value: statement.value !== undefined });
        return;
    }
  }

  private discarded(expr: BcExpr): void {
    this.expr(expr);
    this.emit({ op: "pop" });
  }

  /** Compiles a loop's body; its `continue`s jump to `top`, or are returned when it is -1. */
  private loop(body: BcStatement, top: number): number[] {
    this.loops.push({ breaks: [], continues: [] });
    this.statement(body);
    const { continues } = this.loops[this.loops.length - 1];
    if (top < 0) return continues;
    for (const at of continues) this.patch(at, top);
    return [];
  }

  private endLoop(exit: number): void {
    const loop = this.loops.pop();
    if (exit >= 0) this.patch(exit, this.code.length);
    for (const at of loop?.breaks ?? []) this.patch(at, this.code.length);
  }

  private place(target: BcTarget): Place {
    if (target.kind !== "elem") return target;
    this.expr(target.index);
    return { kind: "elem", name: target.name };
  }

  private expr(expr: BcExpr): void {
    switch (expr.kind) {
      case "num":
        this.emit({ op: "num", text: expr.text, base: 0, value: undefined });
        return;
      case "load":
        this.emit({ op: "load", place: this.place(expr.target) });
        return;
      case "assign": {
        const place = this.place(expr.target);
        this.expr(expr.value);
        this.emit({ op: "store", place, assign: expr.op });
        return;
      }
      case "step":
        this.emit({
          op: "step",
          place: this.place(expr.target),
          delta: expr.delta,
          prefix: expr.prefix,
        });
        return;
      case "binary":
        this.expr(expr.left);
        this.expr(expr.right);
        this.emit({ op: "binary", operator: expr.op });
        return;
      case "and":
      case "or": {
        const jump = expr.kind === "and" ? "jumpIfZero" : "jumpIfNotZero";
        this.expr(expr.left);
        const first = this.emit({ op: jump, to: -1 });
        this.expr(expr.right);
        const second = this.emit({ op: jump, to: -1 });
        this.emit({ op: "const", value: expr.kind === "and" ? ONE : ZERO });
        const end = this.emit({ op: "jump", to: -1 });
        this.patch(first, this.code.length);
        this.patch(second, this.code.length);
        this.emit({ op: "const", value: expr.kind === "and" ? ZERO : ONE });
        this.patch(end, this.code.length);
        return;
      }
      case "neg":
      case "not":
        this.expr(expr.operand);
        this.emit({ op: expr.kind });
        return;
      case "call":
        for (const arg of expr.args) {
          if (arg.kind === "array") this.emit({ op: "array", name: arg.name });
          else this.expr(arg.expr);
        }
        this.emit({ op: "call", name: expr.name, count: expr.args.length });
        return;
      case "builtin":
        this.expr(expr.operand);
        this.emit({ op: "builtin", name: expr.name });
        return;
    }
  }
}

function compile(statements: readonly BcStatement[], fn?: BcFunction): Instruction[] {
  const compiler = new Compiler();
  compiler.statements(statements);
  if (fn !== undefined) compiler.code.push({ op: "return", value: false });
  return compiler.code;
}

/** The state of one `bc` program: its variables, arrays, functions and `scale`, `ibase`, `obase`. */
export class BcRuntime {
  private scale = 0;
  private ibase = 10;
  private obase = 10;
  private last = ZERO;
  private readonly vars = new Map<string, BcNumber>();
  private readonly arrays = new Map<string, BcArray>();
  private readonly functions = new Map<string, Callable>();

  constructor(
    private readonly out: (text: string) => void,
    private readonly err: (text: string) => void,
  ) {}

  /** Sets `scale` (to 20 for `-l`). */
  setScale(scale: number): void {
    this.scale = scale;
  }

  /** Adds a function of the library, which a `define` of the same name replaces. */
  defineNative(name: string, arity: number, compute: BcNative): void {
    this.functions.set(name, { kind: "native", arity, compute });
  }

  define(fn: BcFunction): void {
    this.functions.set(fn.name, { kind: "bc", fn, code: compile(fn.body, fn) });
  }

  /** Runs one input item; a runtime error ends it, written; `halt` throws BcHalt. */
  run(statements: readonly BcStatement[]): void {
    const frames: Frame[] = [{ name: "(main)", code: compile(statements), pc: 0, hidden: [] }];
    try {
      this.execute(frames);
    } catch (error) {
      const name = frames[frames.length - 1].name;
      while (frames.length > 1) this.unbind(frames.pop());
      if (!(error instanceof BcRuntimeError || error instanceof RangeError)) throw error;
      this.err(`Runtime error (func=${name}): ${error.message}\n`);
    }
  }

  private warn(frames: Frame[], message: string): void {
    this.err(`Runtime warning (func=${frames[frames.length - 1].name}): ${message}\n`);
  }

  private unbind(frame: Frame | undefined): void {
    for (const { array, name, value } of (frame?.hidden ?? []).reverse()) {
      if (array) {
        if (value === undefined) this.arrays.delete(name);
        else if (value instanceof Map) this.arrays.set(name, value);
      } else if (value === undefined) this.vars.delete(name);
      else if (value instanceof BcNumber) this.vars.set(name, value);
    }
  }

  private arrayOf(name: string): BcArray {
    let array = this.arrays.get(name);
    if (array === undefined) this.arrays.set(name, array = new Map());
    return array;
  }

  private index(name: string, value: BcNumber): number {
    const index = value.integer();
    if (index < 0n || index > BigInt(LARGEST_INDEX)) {
      throw new BcRuntimeError(`Array ${name} subscript out of bounds.`);
    }
    return Number(index);
  }

  private get(place: Place, index: number): BcNumber {
    switch (place.kind) {
      case "var":
        return this.vars.get(place.name) ?? ZERO;
      case "elem":
        return this.arrayOf(place.name).get(index) ?? ZERO;
      case "special":
        return place.name === "last" ? this.last : BcNumber.of(this[place.name]);
    }
  }

  private set(frames: Frame[], place: Place, index: number, value: BcNumber): void {
    if (place.kind === "var") this.vars.set(place.name, value);
    else if (place.kind === "elem") this.arrayOf(place.name).set(index, value);
    else if (place.name === "last") this.last = value;
    else {
      const integer = value.integer();
      if (place.name === "scale") {
        if (integer < 0n) this.warn(frames, "negative scale, set to 0");
        this.scale = integer < 0n ? 0 : Number(integer > 2147483647n ? 2147483647n : integer);
        return;
      }
      const largest = place.name === "ibase" ? 36 : LARGEST_OBASE;
      if (integer < 2n) this.warn(frames, `${place.name} too small, set to 2`);
      else if (integer > BigInt(largest)) {
        this.warn(frames, `${place.name} too large, set to ${largest}`);
      }
      const base = integer < 2n ? 2 : integer > BigInt(largest) ? largest : Number(integer);
      if (place.name === "ibase") this.ibase = base;
      else this.obase = base;
    }
  }

  private arithmetic(frames: Frame[], operator: string, a: BcNumber, b: BcNumber): BcNumber {
    switch (operator) {
      case "+":
        return add(a, b);
      case "-":
        return subtract(a, b);
      case "*":
        return multiply(a, b, this.scale);
      case "/":
        return divide(a, b, this.scale);
      case "%":
        return modulo(a, b, this.scale);
      case "^":
        if (b.scale > 0) this.warn(frames, "non-zero scale in exponent");
        return raise(a, b.integer(), this.scale);
    }
    const order = compare(a, b);
    const holds = operator === "=="
      ? order === 0
      : operator === "!="
      ? order !== 0
      : operator === "<"
      ? order < 0
      : operator === "<="
      ? order <= 0
      : operator === ">"
      ? order > 0
      : order >= 0;
    return holds ? ONE : ZERO;
  }

  /** Writes `value` in `obase`, as GNU does, without a newline. */
  private show(value: BcNumber): void {
    this.out(formatNumber(value, this.obase));
  }

  private execute(frames: Frame[]): void {
    const stack: Value[] = [];
    const number = (value: Value | undefined): BcNumber => {
      if (value instanceof BcNumber) return value;
      throw new BcRuntimeError(
        value === VOID ? "void function value used" : "Parameter type mismatch",
      );
    };
    let frame = frames[0];
    for (;;) {
      if (frame.pc >= frame.code.length) return;
      const instruction = frame.code[frame.pc++];
      switch (instruction.op) {
        case "num":
          if (instruction.base !== this.ibase || instruction.value === undefined) {
            instruction.value = parseNumeral(instruction.text, this.ibase);
            instruction.base = this.ibase;
          }
          stack.push(instruction.value);
          break;
        case "const":
          stack.push(instruction.value);
          break;
        case "load": {
          const index = instruction.place.kind === "elem"
            ? this.index(instruction.place.name, number(stack.pop()))
            : 0;
          stack.push(this.get(instruction.place, index));
          break;
        }
        case "store": {
          let value = number(stack.pop());
          const { place } = instruction;
          const index = place.kind === "elem" ? this.index(place.name, number(stack.pop())) : 0;
          if (instruction.assign !== "") {
            value = this.arithmetic(frames, instruction.assign, this.get(place, index), value);
          }
          this.set(frames, place, index, value);
          stack.push(value);
          break;
        }
        case "step": {
          const { place } = instruction;
          const index = place.kind === "elem" ? this.index(place.name, number(stack.pop())) : 0;
          const old = this.get(place, index);
          const value = add(old, BcNumber.of(instruction.delta));
          this.set(frames, place, index, value);
          stack.push(instruction.prefix ? this.get(place, index) : old);
          break;
        }
        case "binary": {
          const b = number(stack.pop());
          const a = number(stack.pop());
          stack.push(this.arithmetic(frames, instruction.operator, a, b));
          break;
        }
        case "neg":
          stack.push(negate(number(stack.pop())));
          break;
        case "not":
          stack.push(number(stack.pop()).isZero() ? ONE : ZERO);
          break;
        case "jump":
          frame.pc = instruction.to;
          break;
        case "jumpIfZero":
          if (number(stack.pop()).isZero()) frame.pc = instruction.to;
          break;
        case "jumpIfNotZero":
          if (!number(stack.pop()).isZero()) frame.pc = instruction.to;
          break;
        case "print": {
          const value = stack.pop();
          if (value instanceof BcNumber) {
            this.show(value);
            this.out("\n");
            this.last = value;
          }
          break;
        }
        case "printValue": {
          const value = number(stack.pop());
          this.show(value);
          this.last = value;
          break;
        }
        case "pop":
          stack.pop();
          break;
        case "text":
          this.out(instruction.text);
          break;
        case "halt":
          throw new BcHalt();
        case "limits":
          this.out(LIMITS);
          break;
        case "array":
          stack.push(new Map(this.arrays.get(instruction.name) ?? []));
          break;
        case "builtin": {
          const value = number(stack.pop());
          stack.push(
            instruction.name === "sqrt"
              ? squareRoot(value, this.scale)
              : BcNumber.of(instruction.name === "length" ? digitCount(value) : value.scale),
          );
          break;
        }
        case "call": {
          const args = stack.splice(stack.length - instruction.count, instruction.count);
          const callee = this.functions.get(instruction.name);
          if (callee === undefined) {
            throw new BcRuntimeError(`Function ${instruction.name} not defined.`);
          }
          if (callee.kind === "native") {
            if (args.length !== callee.arity) throw new BcRuntimeError("Parameter number mismatch");
            stack.push(callee.compute(args.map(number), this.scale));
            break;
          }
          frame = this.enter(callee, args);
          frames.push(frame);
          break;
        }
        case "return": {
          const value = instruction.value ? number(stack.pop()) : ZERO;
          if (frames.length === 1) return;
          const done = frames.pop();
          this.unbind(done);
          const callee = this.functions.get(done?.name ?? "");
          stack.push(callee?.kind === "bc" && callee.fn.void ? VOID : value);
          frame = frames[frames.length - 1];
          break;
        }
      }
    }
  }

  /** A frame for a call of `callee` with `args`, its parameters and `auto` names bound. */
  private enter(callee: Callable & { kind: "bc" }, args: Value[]): Frame {
    const { fn } = callee;
    if (args.length !== fn.params.length) throw new BcRuntimeError("Parameter number mismatch");
    const hidden: Frame["hidden"] = [];
    const bind = (array: boolean, name: string, value: BcNumber | BcArray) => {
      hidden.push({ array, name, value: array ? this.arrays.get(name) : this.vars.get(name) });
      if (value instanceof Map) this.arrays.set(name, value);
      else this.vars.set(name, value);
    };
    const values = fn.params.map((param, at) => {
      const value = args[at];
      if (param.array !== value instanceof Map || value === VOID) {
        throw new BcRuntimeError(`Parameter type mismatch, parameter ${param.name}.`);
      }
      return value;
    });
    fn.params.forEach((param, at) => bind(param.array, param.name, values[at]));
    for (const local of fn.autos) bind(local.array, local.name, local.array ? new Map() : ZERO);
    return { name: fn.name, code: callee.code, pc: 0, hidden };
  }
}

/**
 * The numbers of Worker Shell's `bc` (WS-181): decimal fractions of any
 * length, each a `bigint` of digits and a scale (how many of them are after
 * the point), with the arithmetic POSIX gives `bc`, as GNU bc 1.07 does it.
 *
 * Invariants: a result is never rounded, only truncated toward zero; the
 * scale of each result is POSIX's rule for its operator (`+` and `-` the
 * larger of their operands', `*` min(sa+sb, max(scale, sa, sb)), `/` the
 * `scale` in force, `%` max(scale+sb, sa), `^` min(sa*|b|, max(scale, sa))
 * and `scale` for a negative power, `sqrt` max(scale, sx)). A zero is
 * never negative but one: as GNU's, a power of a negative number that
 * truncates to zero (`scale=2; (-.1)^3`) prints as `-0`.
 *
 * @module
 */

/** A runtime failure of a `bc` program (`Divide by zero`): the line it was on stops. */
export class BcRuntimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BcRuntimeError";
  }
}

/** A decimal fraction: `value / 10^scale`; `negativeZero` only for a zero printed `-0`. */
export class BcNumber {
  constructor(readonly value: bigint, readonly scale: number, readonly negativeZero = false) {}

  /** The number `n`, an integer. */
  static of(n: number | bigint): BcNumber {
    return new BcNumber(BigInt(n), 0);
  }

  isZero(): boolean {
    return this.value === 0n;
  }

  isNegative(): boolean {
    return this.value < 0n;
  }

  /** The integer part, truncated toward zero. */
  integer(): bigint {
    return this.value / TEN ** BigInt(this.scale);
  }
}

const TEN = 10n;

/** `10^n`, `n` a small non-negative count of digits. */
export function powerOfTen(n: number): bigint {
  return TEN ** BigInt(n);
}

/** `n` with `scale` digits after the point: zeros added, or digits cut off (truncation). */
export function rescale(n: BcNumber, scale: number): BcNumber {
  if (scale === n.scale) return n;
  if (scale > n.scale) return new BcNumber(n.value * powerOfTen(scale - n.scale), scale);
  return new BcNumber(n.value / powerOfTen(n.scale - scale), scale);
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compare(a: BcNumber, b: BcNumber): number {
  const scale = Math.max(a.scale, b.scale);
  const x = rescale(a, scale).value;
  const y = rescale(b, scale).value;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function add(a: BcNumber, b: BcNumber): BcNumber {
  const scale = Math.max(a.scale, b.scale);
  return new BcNumber(rescale(a, scale).value + rescale(b, scale).value, scale);
}

export function subtract(a: BcNumber, b: BcNumber): BcNumber {
  return add(a, new BcNumber(-b.value, b.scale));
}

export function negate(a: BcNumber): BcNumber {
  return new BcNumber(-a.value, a.scale);
}

/** `a * b`, kept to min(sa+sb, max(scale, sa, sb)) digits. */
export function multiply(a: BcNumber, b: BcNumber, scale: number): BcNumber {
  const exact = new BcNumber(a.value * b.value, a.scale + b.scale);
  return rescale(exact, Math.min(exact.scale, Math.max(scale, a.scale, b.scale)));
}

/** `a / b` truncated to `scale` digits. */
export function divide(a: BcNumber, b: BcNumber, scale: number): BcNumber {
  if (b.isZero()) throw new BcRuntimeError("Divide by zero");
  const numerator = a.value * powerOfTen(b.scale + scale);
  return new BcNumber(numerator / (b.value * powerOfTen(a.scale)), scale);
}

/** `a - (a / b) * b`, the quotient truncated to `scale` digits. */
export function modulo(a: BcNumber, b: BcNumber, scale: number): BcNumber {
  if (b.isZero()) throw new BcRuntimeError("Modulo by zero");
  const quotient = divide(a, b, scale);
  const rest = subtract(a, new BcNumber(quotient.value * b.value, quotient.scale + b.scale));
  return rescale(rest, Math.max(scale + b.scale, a.scale));
}

/** Exponents from here on are refused, as GNU's (a C `long`) are. */
const LARGEST_EXPONENT = 2n ** 63n;

/**
 * `a ^ exponent`, `exponent` an integer: the exact power truncated to
 * min(sa*|exponent|, max(scale, sa)) digits, or for a negative exponent the
 * reciprocal of the exact power truncated to `scale` digits.
 */
export function raise(a: BcNumber, exponent: bigint, scale: number): BcNumber {
  if (exponent >= LARGEST_EXPONENT || -exponent >= LARGEST_EXPONENT) {
    throw new BcRuntimeError("exponent too large in raise");
  }
  if (exponent === 0n) return BcNumber.of(1);
  const count = exponent < 0n ? -exponent : exponent;
  const exact = new BcNumber(a.value ** count, a.scale * Number(count));
  if (exponent < 0n) {
    if (exact.isZero()) throw new BcRuntimeError("divide by zero");
    return divide(BcNumber.of(1), exact, scale);
  }
  const result = rescale(exact, Math.min(exact.scale, Math.max(scale, a.scale)));
  return exact.isNegative() && result.isZero() ? new BcNumber(0n, result.scale, true) : result;
}

/** The integer square root of `n >= 0`, rounded down. */
export function integerSqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const next = (x + n / x) >> 1n;
    if (next >= x) return x;
    x = next;
  }
}

/** The square root of `a`, truncated to max(scale, sa) digits; of 0 and 1, 0 and 1, as GNU's. */
export function squareRoot(a: BcNumber, scale: number): BcNumber {
  if (a.isNegative()) throw new BcRuntimeError("Square root of a negative number");
  if (a.isZero() || compare(a, BcNumber.of(1)) === 0) return BcNumber.of(a.isZero() ? 0 : 1);
  const resultScale = Math.max(scale, a.scale);
  const scaled = a.value * powerOfTen(2 * resultScale - a.scale);
  return new BcNumber(integerSqrt(scaled), resultScale);
}

/** `length(a)`: its significant digits, the scale alone when its integer part is zero. */
export function digitCount(a: BcNumber): number {
  const integer = a.integer();
  if (integer === 0n) return a.scale === 0 ? 1 : a.scale;
  return (integer < 0n ? -integer : integer).toString().length + a.scale;
}

/** The value of one digit of a numeral: `0`-`9`, then `A`-`Z` for 10-35. */
function digitValue(char: string): number {
  const code = char.charCodeAt(0);
  return code <= 57 ? code - 48 : code - 55;
}

/**
 * The number a numeral stands for in `base` (`ibase`). A numeral of one
 * digit is that digit's value whatever the base (`A` is 10); in a longer one
 * a digit the base lacks counts as the base's largest (`ibase=2; 12` is 3).
 * Its scale is its count of digits after the point.
 */
export function parseNumeral(numeral: string, base: number): BcNumber {
  const text = numeral.replaceAll("\\\n", "");
  if (text.length === 1) return BcNumber.of(digitValue(text));
  const [whole, fraction = ""] = text.split(".");
  const radix = BigInt(base);
  const digit = (char: string) => BigInt(Math.min(digitValue(char), base - 1));
  let integer = 0n;
  for (const char of whole) integer = integer * radix + digit(char);
  if (fraction.length === 0) return new BcNumber(integer, 0);
  let numerator = 0n;
  for (const char of fraction) numerator = numerator * radix + digit(char);
  const scale = fraction.length;
  const fractionValue = numerator * powerOfTen(scale) / radix ** BigInt(scale);
  return new BcNumber(integer * powerOfTen(scale) + fractionValue, scale);
}

/** The digits of `integer >= 0` in `base`, most significant first. */
function digitsOf(integer: bigint, base: bigint): bigint[] {
  const digits: bigint[] = [];
  for (let rest = integer; rest > 0n; rest /= base) digits.push(rest % base);
  return digits.reverse();
}

/**
 * `a` written in `base` (`obase`) as GNU writes it, without line breaks: no
 * `0` before the point (`.5`, `-.5`), the digits after it as many as its
 * scale asks for (in another base: while base^k has no more digits than the
 * scale), and above base 16 each digit its decimal value padded to the width
 * of `base - 1` after a space, but for the first after the point
 * (`- 01 10.05 11`).
 */
export function formatNumber(a: BcNumber, base: number): string {
  if (a.isZero()) return a.negativeZero ? "-0" : "0";
  const sign = a.isNegative() ? "-" : "";
  const magnitude = a.isNegative() ? -a.value : a.value;
  const unit = powerOfTen(a.scale);
  const integer = magnitude / unit;
  let fraction = magnitude % unit;
  if (base === 10) {
    const digits = magnitude.toString().padStart(a.scale + 1, "0");
    const whole = digits.slice(0, digits.length - a.scale);
    const point = a.scale > 0 ? `.${digits.slice(digits.length - a.scale)}` : "";
    return `${sign}${whole === "0" && a.scale > 0 ? "" : whole}${point}`;
  }
  const radix = BigInt(base);
  const width = String(base - 1).length;
  const show = (digit: bigint) =>
    base <= 16 ? digit.toString(16).toUpperCase() : ` ${digit.toString().padStart(width, "0")}`;
  let text = sign + digitsOf(integer, radix).map(show).join("");
  if (integer === 0n && a.scale === 0) text += "0";
  if (a.scale > 0) {
    const digits: string[] = [];
    for (let place = 1n; place < unit; place *= radix) {
      fraction *= radix;
      digits.push(show(fraction / unit));
      fraction %= unit;
    }
    text += `.${digits.join("").trimStart()}`;
  }
  return text;
}

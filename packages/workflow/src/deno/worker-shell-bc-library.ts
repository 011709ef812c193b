/**
 * The math library of Worker Shell's `bc -l` (WS-181): `s(x)` sine, `c(x)`
 * cosine, `a(x)` arctangent, `l(x)` natural logarithm, `e(x)` exponential
 * and `j(n,x)` Bessel function of integer order, each computed natively on
 * fixed-point `bigint`s.
 *
 * Invariant: a result has `scale` digits after the point, computed with
 * enough guard digits that it is the exact value truncated toward zero.
 * GNU's library is itself written in `bc` and its last digit is sometimes
 * off by one from that (and at small scales, `c(0)` at `scale=0` is its `0`
 * where this gives `1`); where GNU's digits are the exact truncation, these
 * are the same. As GNU's, `l(x)` of `x <= 0` is `1 - 10^scale`.
 *
 * @module
 */
import { BcNumber, integerSqrt, powerOfTen, rescale } from "./worker-shell-bc-number.ts";
import type { BcNative } from "./worker-shell-bc-run.ts";

/** Digits computed beyond those asked for. */
const GUARD = 12;

/** Fixed-point arithmetic: a `bigint` X stands for X / 10^digits. */
class Fixed {
  readonly one: bigint;

  constructor(readonly digits: number) {
    this.one = powerOfTen(digits);
  }

  of(n: BcNumber): bigint {
    return rescale(n, this.digits).value;
  }

  result(x: bigint, scale: number): BcNumber {
    return rescale(new BcNumber(x, this.digits), scale);
  }

  times(a: bigint, b: bigint): bigint {
    return a * b / this.one;
  }

  over(a: bigint, b: bigint): bigint {
    return a * this.one / b;
  }

  sqrt(a: bigint): bigint {
    return integerSqrt(a * this.one);
  }

  /** e^x, for any x. */
  exp(x: bigint): bigint {
    if (x < 0n) return this.over(this.one, this.exp(-x));
    let halvings = 0;
    let r = x;
    while (r > this.one / 2n) {
      r /= 2n;
      halvings++;
    }
    let sum = this.one;
    let term = this.one;
    for (let k = 1n; term !== 0n; k++) {
      term = this.times(term, r) / k;
      sum += term;
    }
    for (; halvings > 0; halvings--) sum = this.times(sum, sum);
    return sum;
  }

  /** atanh(z) for |z| < 1: z + z^3/3 + z^5/5 + ... */
  private atanh(z: bigint): bigint {
    const square = this.times(z, z);
    let sum = z;
    let power = z;
    for (let n = 3n; power !== 0n; n += 2n) {
      power = this.times(power, square);
      sum += power / n;
    }
    return sum;
  }

  /** ln(x) for x > 0: x = y * 2^k with y near 1, then 2 atanh((y-1)/(y+1)) + k ln 2. */
  ln(x: bigint): bigint {
    const k = x.toString(2).length - this.one.toString(2).length;
    const y = k >= 0 ? x >> BigInt(k) : x << BigInt(-k);
    const lnY = 2n * this.atanh(this.over(y - this.one, y + this.one));
    return lnY + BigInt(k) * 2n * this.atanh(this.one / 3n);
  }

  /** atan(x) for |x| <= 1/5, by its series. */
  private atanSeries(x: bigint): bigint {
    const square = this.times(x, x);
    let sum = x;
    let power = x;
    for (let n = 3n, sign = -1n; power !== 0n; n += 2n, sign = -sign) {
      power = this.times(power, square);
      sum += sign * (power / n);
    }
    return sum;
  }

  pi(): bigint {
    return 4n * (4n * this.atanSeries(this.one / 5n) - this.atanSeries(this.one / 239n));
  }

  /** atan(x), for any x. */
  atan(x: bigint): bigint {
    if (x < 0n) return -this.atan(-x);
    if (x > this.one) return this.pi() / 2n - this.atan(this.over(this.one, x));
    let doublings = 1n;
    let r = x;
    while (r > this.one / 5n) {
      r = this.over(r, this.one + this.sqrt(this.one + this.times(r, r)));
      doublings *= 2n;
    }
    return doublings * this.atanSeries(r);
  }

  /** sin(x) (`cosine` false) or cos(x), x first brought within [-pi, pi]. */
  sinCos(x: bigint, cosine: boolean): bigint {
    const twoPi = 2n * this.pi();
    const turns = (2n * x + (x < 0n ? -twoPi : twoPi)) / (2n * twoPi);
    const r = x - turns * twoPi;
    const square = this.times(r, r);
    let term = cosine ? this.one : r;
    let sum = term;
    for (let k = cosine ? 1n : 2n; term !== 0n; k += 2n) {
      term = -this.times(term, square) / (k * (k + 1n));
      sum += term;
    }
    return sum;
  }
}

/** The digits of the integer part of |x|, to size the guard digits. */
function integerDigits(x: BcNumber): number {
  const integer = x.integer();
  return (integer < 0n ? -integer : integer).toString().length;
}

function fixedFor(x: BcNumber, scale: number, extra: number): Fixed {
  return new Fixed(Math.max(scale, x.scale) + GUARD + extra);
}

const sine: BcNative = ([x], scale) => {
  const fixed = fixedFor(x, scale, integerDigits(x));
  return fixed.result(fixed.sinCos(fixed.of(x), false), scale);
};

const cosine: BcNative = ([x], scale) => {
  const fixed = fixedFor(x, scale, integerDigits(x));
  return fixed.result(fixed.sinCos(fixed.of(x), true), scale);
};

const arctangent: BcNative = ([x], scale) => {
  const fixed = fixedFor(x, scale, 0);
  return fixed.result(fixed.atan(fixed.of(x)), scale);
};

const logarithm: BcNative = ([x], scale) => {
  if (x.value <= 0n) return new BcNumber((1n - powerOfTen(scale)) * powerOfTen(scale), scale);
  const fixed = fixedFor(x, scale, String(integerDigits(x) + x.scale).length + 1);
  return fixed.result(fixed.ln(fixed.of(x)), scale);
};

const exponential: BcNative = ([x], scale) => {
  const magnitude = Number(x.integer() < 0n ? -x.integer() : x.integer());
  const fixed = fixedFor(x, scale, Math.ceil(magnitude / Math.LN10) + String(magnitude).length + 2);
  return fixed.result(fixed.exp(fixed.of(x)), scale);
};

const bessel: BcNative = ([order, x], scale) => {
  let n = order.integer();
  const negate = n < 0n && (-n) % 2n === 1n;
  if (n < 0n) n = -n;
  const magnitude = Number(x.integer() < 0n ? -x.integer() : x.integer());
  const fixed = fixedFor(x, scale, Math.ceil(magnitude / Math.LN10) + 2);
  const half = fixed.of(x) / 2n;
  const quarterSquare = fixed.times(half, half);
  let term = fixed.one;
  for (let k = 1n; k <= n; k++) term = fixed.times(term, half) / k;
  let sum = term;
  for (let k = 1n; term !== 0n || k * k <= magnitude * magnitude; k++) {
    term = -fixed.times(term, quarterSquare) / (k * (n + k));
    sum += term;
    if (k > 1_000_000n) break;
  }
  return fixed.result(negate ? -sum : sum, scale);
};

/** The functions `-l` defines, by name: [arity, computation]. */
export const BC_LIBRARY: ReadonlyMap<string, [number, BcNative]> = new Map([
  ["s", [1, sine]],
  ["c", [1, cosine]],
  ["a", [1, arctangent]],
  ["l", [1, logarithm]],
  ["e", [1, exponential]],
  ["j", [2, bessel]],
]);

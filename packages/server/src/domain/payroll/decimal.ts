/**
 * Exact decimal arithmetic for payroll: a decimal string ("0.3477", "-0.6702", "0.115") becomes a
 * BigInt scaled by 10^places, and division rounds half up explicitly. No floating point anywhere
 * between the ATO's published figures and a withholding amount.
 */

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** `value` × 10^places as a BigInt; throws if the string has more decimal places than `places`. */
export function scaled(value: string, places: number): bigint {
  const m = DECIMAL.exec(value);
  if (!m) throw new Error(`not a decimal string: ${value}`);
  const [, sign, whole = '0', frac = ''] = m;
  if (frac.length > places) throw new Error(`${value} has more than ${places} decimal places`);
  const digits = BigInt(whole + frac.padEnd(places, '0'));
  return sign === '-' ? -digits : digits;
}

/** n ÷ d rounded half up (toward +∞ at exactly one half), d > 0. */
export function divHalfUp(n: bigint, d: bigint): bigint {
  if (d <= 0n) throw new Error('divisor must be positive');
  return floorDiv(2n * n + d, 2n * d);
}

/** ⌊n ÷ d⌋ for d > 0 (BigInt division truncates toward zero). */
export function floorDiv(n: bigint, d: bigint): bigint {
  if (d <= 0n) throw new Error('divisor must be positive');
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}

/** A BigInt that must fit a safe JS integer (money in cents, hours in milli-hours). */
export function toSafe(n: bigint): number {
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new Error('amount is not a safe integer');
  }
  return Number(n);
}

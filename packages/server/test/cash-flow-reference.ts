import { invariant } from '../src/errors.js';

/**
 * The statement of cash flows' allocation rule in TypeScript (cash-flow.ts states it; the kept
 * rows' SQL in cash-flow-days.ts applies it), for the tests that pin the rule down case by case.
 */

/**
 * `total` shared over `weights` (positive) pro rata, in whole cents that add up to `total`
 * exactly: each share rounded down, then the cents left over one each to the largest remainders
 * (ties: the earlier share). BigInt, since total × weight can pass 2^53.
 */
export function shareProRata(total: number, weights: readonly number[]): number[] {
  invariant(weights.length > 0 && weights.every((w) => Number.isSafeInteger(w) && w > 0), 'pro rata weights are positive cents');
  const sum = weights.reduce((s, w) => s + BigInt(w), 0n);
  const magnitude = BigInt(Math.abs(total));
  const parts = weights.map((w, i) => ({ i, share: (magnitude * BigInt(w)) / sum, rest: (magnitude * BigInt(w)) % sum }));
  let left = magnitude - parts.reduce((s, p) => s + p.share, 0n);
  for (const p of [...parts].sort((x, y) => (x.rest === y.rest ? x.i - y.i : x.rest > y.rest ? -1 : 1))) {
    if (left === 0n) break;
    p.share += 1n;
    left -= 1n;
  }
  const sign = total < 0 ? -1 : 1;
  return parts.map((p) => sign * Number(p.share));
}

/**
 * One split journal's cash over its lines: the lines moving the same way as the cash, pro rata;
 * when none does, all of it to the line moving most (the earliest of equals).
 */
export function allocateJournal(cash: number, lines: readonly { cat: string; amt: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  const same = lines.filter((l) => (l.amt > 0 && cash > 0) || (l.amt < 0 && cash < 0));
  if (same.length > 0) {
    const shares = shareProRata(
      cash,
      same.map((l) => Math.abs(l.amt)),
    );
    same.forEach((l, i) => out.set(l.cat, (out.get(l.cat) ?? 0) + (shares[i] ?? 0)));
    return out;
  }
  const most = lines.reduce<{ cat: string; amt: number } | null>((m, l) => (m === null || Math.abs(l.amt) > Math.abs(m.amt) ? l : m), null);
  invariant(most !== null, 'a split journal has a line besides its cash');
  out.set(most.cat, cash);
  return out;
}

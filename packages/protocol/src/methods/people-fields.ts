import { z } from 'zod';

/**
 * Australian identifiers on an employee's record: the tax file number (TFN) and the Australian
 * Business Number (ABN) of a super fund, validated by their check digits when first given so that
 * payroll and Single Touch Payroll never carry a mistyped number. Pure functions, shared by the
 * server and any client.
 */

/** TFN weights for 9-digit TFNs (ATO check digit algorithm: weighted sum ≡ 0 mod 11). */
const TFN_WEIGHTS = [1, 4, 3, 7, 5, 8, 6, 9, 10] as const;

/**
 * The codes the ATO has payers report instead of a TFN (TFN declaration instructions and STP
 * Phase 2 employer reporting guidelines, "payee TFN"; as payroll software documents them):
 * - 000000000 the payee chose not to quote a TFN, or did not give one within 28 days;
 * - 111111111 the payee has applied for a TFN (or made an enquiry) and is waiting for it;
 * - 333333333 the payee is under 18 and earns too little for tax to be withheld (exemption);
 * - 444444444 the payee receives a social security or service pension or benefit (exemption);
 * - 987654321 the TFN quoted cannot be held in a 9-digit field (e.g. it contains letters).
 * None of these passes the check digit except 000000000 (sum 0), which is why codes are matched
 * first. How each is withheld: docs/books.md (people) and domain/people/tax-treatment.ts.
 */
export const TFN_NOT_QUOTED_CODES = ['000000000', '111111111', '333333333', '444444444', '987654321'] as const;
export type TfnNotQuotedCode = (typeof TFN_NOT_QUOTED_CODES)[number];

export function isTfnNotQuotedCode(s: string): s is TfnNotQuotedCode {
  return (TFN_NOT_QUOTED_CODES as readonly string[]).includes(s);
}

/**
 * True for 9 digits whose weighted sum (1,4,3,7,5,8,6,9,10) is a multiple of 11. Older 8-digit
 * TFNs exist, but the field is fixed at 9 digits, so they are not accepted (docs/decisions.md).
 */
export function isValidTfn(s: string): boolean {
  if (!/^\d{9}$/.test(s) || isTfnNotQuotedCode(s)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i += 1) sum += Number(s[i]) * (TFN_WEIGHTS[i] ?? 0);
  return sum % 11 === 0;
}

/** ABN weights (ATO ABN format: subtract 1 from the first digit, weighted sum ≡ 0 mod 89). */
const ABN_WEIGHTS = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19] as const;

/** True for 11 digits (spaces allowed between groups) that pass the ABN check. */
export function isValidAbn(s: string): boolean {
  const digits = s.replace(/ /g, '');
  if (!/^\d{11}$/.test(digits) || digits[0] === '0') return false;
  let sum = 0;
  for (let i = 0; i < 11; i += 1) sum += (Number(digits[i]) - (i === 0 ? 1 : 0)) * (ABN_WEIGHTS[i] ?? 0);
  return sum % 89 === 0;
}

/** Every character but the last 3 masked: `******782`. Anything of 3 characters or fewer is all masked. */
export function maskDigits(s: string): string {
  if (s.length <= 3) return '*'.repeat(s.length);
  return '*'.repeat(s.length - 3) + s.slice(-3);
}

/** A TFN or not-quoted code; the message never repeats the number (it must not reach a log). */
export const taxFileNumber = () =>
  z
    .string({ error: 'must be a string of 9 digits' })
    .regex(/^\d{9}$/, { error: 'must be 9 digits (no spaces)' })
    .refine((s) => !/^\d{9}$/.test(s) || isTfnNotQuotedCode(s) || isValidTfn(s), {
      error: `must pass the ATO TFN check digit, or be an ATO "not quoted" code (${TFN_NOT_QUOTED_CODES.join(', ')})`,
    });

/** An ABN of 11 digits (spaces between groups are removed) passing the ABN check. */
export const abn = () =>
  z
    .string({ error: 'must be an ABN of 11 digits' })
    .regex(/^\d{2} ?\d{3} ?\d{3} ?\d{3}$/, { error: 'must be an ABN of 11 digits' })
    .refine((s) => !/^[\d ]+$/.test(s) || isValidAbn(s), { error: 'must pass the ABN check digits' })
    .transform((s) => s.replace(/ /g, ''));

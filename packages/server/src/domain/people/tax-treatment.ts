import { isTfnNotQuotedCode, maskDigits } from '@finance-desk/protocol';
import { addDays } from '../../clock.js';
import type { TaxScale } from '../payroll/withholding.js';

/**
 * Which Schedule 1 scale an employee's pay is withheld at: Scale 2 for a resident claiming
 * the tax-free threshold, Scale 1 for one who does not, Scale 3 for a foreign resident, Scale 4
 * where no TFN is quoted. The ATO's not-quoted codes decide "quoted":
 * - 000000000 (chose not to quote) and 987654321 (no valid 9-digit TFN can be held): Scale 4;
 * - 111111111 (applied for a TFN): the ordinary scale for 28 days from the declaration, then
 *   Scale 4 until a TFN is given (the 28 days the law allows to provide it);
 * - 333333333 (under 18, earning under the threshold) and 444444444 (pensioner): exemptions from
 *   quoting, so the ordinary scale.
 */
export interface TaxDeclaration {
  readonly tfn: string;
  readonly residency: 'resident' | 'foreign';
  readonly claimsTaxFreeThreshold: boolean;
  /** The date the declaration was made (the onboarding step's organisation date). */
  readonly declaredOn: string;
}

export const TFN_APPLICATION_GRACE_DAYS = 28;

export function tfnQuoted(tfn: string): boolean {
  return !isTfnNotQuotedCode(tfn);
}

/**
 * A TFN as every result, read, event, summary and served file shows it: its last 3 digits
 * (`******210`), or an ATO not-quoted code as it is (a code identifies no one and tells the reader
 * why there is no TFN). The one mask: books.employees, onboarding's payload and summary, and the
 * STP pay event served to a key (ops/files.ts) all use it.
 */
export function maskedTfn(tfn: string): string {
  return tfnQuoted(tfn) ? maskDigits(tfn) : tfn;
}

export function taxScaleFor(d: TaxDeclaration, paymentDate: string): TaxScale {
  const ordinary: TaxScale = d.residency === 'foreign' ? 3 : d.claimsTaxFreeThreshold ? 2 : 1;
  switch (d.tfn) {
    case '000000000':
    case '987654321':
      return 4;
    case '111111111':
      return paymentDate <= addDays(d.declaredOn, TFN_APPLICATION_GRACE_DAYS) ? ordinary : 4;
    default:
      return ordinary;
  }
}

/**
 * The STP Phase 2 tax treatment code a pay event reports for a payee (ATO "STP Phase 2 employer
 * reporting guidelines", tax treatment codes): 6 characters, the category and its option, then 4
 * characters for Medicare levy and study-loan variations, `X` where none applies (none is modelled
 * here). RT regular with the tax-free threshold, RN regular without it, FF foreign resident, NA no
 * TFN (resident), NF no TFN (foreign resident). For the pay run's STP document.
 */
export function stpTaxTreatmentCode(d: TaxDeclaration, paymentDate: string): string {
  const scale = taxScaleFor(d, paymentDate);
  const head = scale === 4 ? (d.residency === 'foreign' ? 'NF' : 'NA') : scale === 3 ? 'FF' : scale === 2 ? 'RT' : 'RN';
  return `${head}XXXX`;
}

import { grossForPeriod, type PayBasis, type PayFrequency } from './gross.js';
import { superGuarantee } from './super.js';
import { withholding, type TaxScale } from './withholding.js';

/**
 * One employee's line of a pay run, composed from the pure calculations: gross for the
 * period, PAYG by Schedule 1 for the payment date, super guarantee at the rate in force (not taken
 * from net pay), and net = gross − PAYG. payrollDraft calls this for each
 * active employee with the scale from people/tax-treatment.ts.
 */
export interface PayLineInput {
  readonly basis: PayBasis;
  readonly frequency: PayFrequency;
  readonly paymentDate: string;
  readonly scale: TaxScale;
  readonly residency: 'resident' | 'foreign';
  /** Whole hours worked in the period (hourly staff); default: their ordinary hours. */
  readonly hours?: number;
  /** Earnings already paid in the same maximum-contribution-base period (super.ts). */
  readonly earningsBeforeCents?: number;
}

export interface PayLine {
  readonly grossCents: number;
  readonly paygCents: number;
  readonly superCents: number;
  readonly netCents: number;
  readonly scale: TaxScale;
  /** The Schedule 1 set used (null for Scale 4) and whether it and the MCB used are confirmed. */
  readonly coefficientSet: string | null;
  readonly confirmed: boolean;
}

export function payLine(input: PayLineInput): PayLine {
  const grossCents = grossForPeriod(input.basis, input.frequency, input.hours);
  const w = withholding({
    grossCents,
    period: input.frequency,
    paymentDate: input.paymentDate,
    scale: input.scale,
    residency: input.residency,
  });
  const sg = superGuarantee({ grossCents, paymentDate: input.paymentDate, earningsBeforeCents: input.earningsBeforeCents ?? 0 });
  return {
    grossCents,
    paygCents: w.paygCents,
    superCents: sg.superCents,
    netCents: grossCents - w.paygCents,
    scale: w.scale,
    coefficientSet: w.coefficientSet,
    confirmed: w.confirmed && (sg.mcb?.confirmed ?? true),
  };
}

/**
 * The shape of the ATO Schedule 1 reference data (schedule1-data.ts, generated from the committed
 * reference data, docs/reference/payg-withholding.md). Money and rates are decimal strings so that they are
 * computed exactly (decimal.ts), never as floating point.
 */
export type PayPeriod = 'weekly' | 'fortnightly' | 'monthly' | 'quarterly';

/** Scales with coefficients: 1 no tax-free threshold, 2 threshold claimed, 3 foreign resident, 5/6 Medicare exemptions. */
export type CoefficientScale = 1 | 2 | 3 | 5 | 6;

export interface CoefficientRow {
  /** Weekly earnings x (with its 99 cents) must be less than this many dollars; null = "and over". */
  readonly lessThan: number | null;
  readonly a: string;
  readonly b: string;
}

export interface CoefficientSet {
  readonly id: string;
  readonly effectiveFrom: string;
  readonly effectiveTo: string | null;
  /** False for 2026-07-01: not yet checked against ato.gov.au (docs/books.md). */
  readonly confirmed: boolean;
  readonly scales: Readonly<Partial<Record<`${CoefficientScale}`, readonly CoefficientRow[]>>>;
}

export interface Schedule1Data {
  readonly coefficientSets: readonly CoefficientSet[];
  readonly scale4: { readonly resident: string; readonly foreign: string };
  readonly taxOffsetReductionPercent: Readonly<Record<PayPeriod, string>>;
  readonly superGuaranteeRates: readonly { readonly from: string; readonly to: string | null; readonly rate: string }[];
  readonly maximumContributionBase: readonly {
    readonly financialYear: string;
    readonly perQuarterDollars: number | null;
    readonly perYearDollars: number | null;
  }[];
}

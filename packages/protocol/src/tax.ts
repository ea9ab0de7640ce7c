/**
 * Australian GST tax codes (A New Tax System (GST) Act 1999; BAS labels per ATO guidance).
 * Amounts are GST-inclusive; GST is 1/11 of a taxable amount, rounded to the
 * nearest cent with half a cent up, once per document (s 9-90: sum then round).
 */
export const TAX_CODES = {
  GST: { side: 'sale', gst: true, labels: ['G1'] },
  EXPORT: { side: 'sale', gst: false, labels: ['G1', 'G2'] },
  GST_FREE: { side: 'sale', gst: false, labels: ['G1', 'G3'] },
  INPUT_TAXED: { side: 'sale', gst: false, labels: ['G1', 'G4'] },
  GST_ON_CAPITAL: { side: 'purchase', gst: true, labels: ['G10'] },
  GST_ON_EXPENSES: { side: 'purchase', gst: true, labels: ['G11'] },
  GST_FREE_EXPENSES: { side: 'purchase', gst: false, labels: ['G11', 'G14'] },
  INPUT_TAXED_EXPENSE: { side: 'purchase', gst: false, labels: ['G11', 'G14'] },
  BAS_EXCLUDED: { side: null, gst: false, labels: [] },
  BAS_EXCLUDED_WAGES: { side: null, gst: false, labels: ['W1'] },
  BAS_EXCLUDED_PAYGW: { side: null, gst: false, labels: ['W2'] },
} as const;

export type TaxCode = keyof typeof TAX_CODES;
export const TAX_CODE_NAMES = Object.keys(TAX_CODES) as readonly TaxCode[];
export const SALE_TAX_CODES = TAX_CODE_NAMES.filter((c) => TAX_CODES[c].side === 'sale' || TAX_CODES[c].side === null);
export const PURCHASE_TAX_CODES = TAX_CODE_NAMES.filter((c) => TAX_CODES[c].side === 'purchase' || TAX_CODES[c].side === null);

/** GST inside a GST-inclusive amount: round(cents / 11), half up, in integers only. */
export function gstOfInclusive(cents: number): number {
  if (!Number.isSafeInteger(cents)) throw new RangeError('cents must be a safe integer');
  const sign = cents < 0 ? -1 : 1;
  const abs = Math.abs(cents);
  return sign * Math.floor((2 * abs + 11) / 22);
}

/** Whole dollars for the BAS: cents dropped (TAA 1953 Sch 1 s 388-85), never negative. */
export function basDollars(cents: number): number {
  return cents <= 0 ? 0 : Math.floor(cents / 100);
}

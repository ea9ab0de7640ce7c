import { z } from 'zod';
import { limits } from '../limits.js';
import { accountCode } from './aba-fields.js';
import { cents, id, multilineText } from './fields.js';
import { lineTracking, lineTrackingOut } from './tracking.js';

/** Sale tax codes an invoice line or a credit note may carry (the ATO's GST treatments; BAS G1–G4). */
export const SALE_CODES = ['GST', 'EXPORT', 'GST_FREE', 'INPUT_TAXED', 'BAS_EXCLUDED'] as const;
export type SaleTaxCode = (typeof SALE_CODES)[number];

export const saleTaxCode = () => z.enum(SALE_CODES, { error: `must be one of ${SALE_CODES.join(', ')}` });

export const invoiceLinesMax = 100;

/** One line of an invoice as drafted: GST-inclusive amount, sale tax code, revenue account. */
export const invoiceLineInput = z.strictObject({
  description: multilineText(limits.textCharsMax).describe('Customer sees it'),
  amountCents: cents().describe('GST-inclusive'),
  taxCode: saleTaxCode().optional().describe('Default: taxCode'),
  /** A revenue account of the chart (default 4000 Sales); checked by the server. */
  accountCode: accountCode().optional().describe('Default 4000'),
  /** A fixed asset sold by this line: disposed of when the invoice is sent (no accountCode with it). */
  assetId: id().optional().describe('Asset sold; disposed when sent'),
  tracking: lineTracking().optional(),
});

export const invoiceLine = z.object({
  description: z.string(),
  amountCents: z.number().int(),
  taxCode: z.string(),
  accountCode: z.string(),
  /** This line's share of the invoice's GST; the shares sum to gstCents. */
  gstCents: z.number().int(),
  /** The fixed asset the line sells (its accountCode is then 4300, where a credit note on it goes). */
  assetId: z.string().optional(),
  /** The line's tracking options by category (books.trackingSet), when it has any. */
  tracking: lineTrackingOut.optional(),
});

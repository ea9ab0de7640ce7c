import { z } from 'zod';

/**
 * Fields that end up in an ABA (Cemtex, BECS Direct Entry) payment file, validated when they are
 * first given so that a payment run never fails on a supplier's details. The character set is the narrowest one a processor documents.
 */
export const ABA_CHARSET = /^[A-Za-z0-9 &',\-./+$!%()*#=:?[\]_^@]*$/;
export const ABA_CHARSET_TEXT = "letters, digits, space and & ' , - . / + $ ! % ( ) * # = : ? [ ] _ ^ @";

/** Free text of an ABA field: 1..max characters of the ABA character set, not all blank. */
export const abaText = (max: number) =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(max)
    // One message per value: blank is only said of a non-empty value.
    .refine((s) => ABA_CHARSET.test(s), { error: `must use only ${ABA_CHARSET_TEXT}` })
    .refine((s) => s === '' || s.trim() !== '', { error: 'must not be blank' });

export const bsb = () => z.string().regex(/^\d{3}-\d{3}$/, { error: 'must be a BSB of the form NNN-NNN' });

/** An Australian bank account number as BECS carries it: 1 to 9 digits, not all zeros. */
export const bankAccountNumber = () =>
  z
    .string()
    .regex(/^\d{1,9}$/, { error: 'must be 1 to 9 digits' })
    .refine((s) => !/^\d{1,9}$/.test(s) || /[1-9]/.test(s), { error: 'must not be all zeros' });

/** The 3-letter APCA abbreviation of the remitter's bank (the ABA header's financial institution). */
export const apcaBankCode = () => z.string().regex(/^[A-Z]{3}$/, { error: 'must be the 3-letter APCA abbreviation of the bank, e.g. WBC' });

/** The 6-digit Direct Entry user id the bank issued (the ABA header's user identification number). */
export const apcaUserId = () => z.string().regex(/^\d{6}$/, { error: 'must be the 6-digit Direct Entry user id' });

/** The lodgement reference a payee sees: must not start with a space, a zero or a hyphen. */
export const lodgementReference = () =>
  abaText(18).refine((s) => s.trim() === '' || !/^[ 0-]/.test(s), {
    error: 'must not start with a space, a zero or a hyphen',
  });

/** Purchase tax codes a bill line or an expense claim may carry (the ATO's GST treatments). */
export const purchaseTaxCode = () =>
  z.enum(['GST_ON_EXPENSES', 'GST_ON_CAPITAL', 'GST_FREE_EXPENSES', 'INPUT_TAXED_EXPENSE', 'BAS_EXCLUDED'], {
    error: 'must be one of GST_ON_EXPENSES, GST_ON_CAPITAL, GST_FREE_EXPENSES, INPUT_TAXED_EXPENSE, BAS_EXCLUDED',
  });
export type PurchaseTaxCode = z.infer<ReturnType<typeof purchaseTaxCode>>;

/** A chart account code (`6000`). Whether it exists, and is an expense or asset, is checked by the server. */
export const accountCode = () => z.string().regex(/^\d{3,6}$/, { error: 'must be an account code (3 to 6 digits)' });

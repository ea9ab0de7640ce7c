/**
 * ABA (Cemtex, BECS Direct Entry) files, exactly per docs/reference/aba-format.md: a type 0
 * descriptive record, one type 1 detail record per payment, a type 7 file total record; every
 * record 120 characters and CR LF. Alphanumeric fields are left-justified and space-filled,
 * numeric fields right-justified and zero-filled, account numbers right-justified and
 * space-filled. The generator refuses anything a bank would reject rather than truncating it.
 */
export const ABA_RECORD_CHARS = 120;
export const ABA_EOL = '\r\n';
const CHARSET = /^[A-Za-z0-9 &',\-./+$!%()*#=:?[\]_^@]*$/;
const BSB = /^\d{3}-\d{3}$/;
/** Ten-digit amount fields: a payment or a batch total cannot exceed $99,999,999.99. */
export const ABA_AMOUNT_CENTS_MAX = 9_999_999_999;
const WITHHOLDING_CENTS_MAX = 99_999_999;
const TRANSACTION_CODES = ['13', '50', '51', '52', '53', '54', '55', '56', '57'] as const;
const INDICATORS = [' ', 'N', 'W', 'X', 'Y', 'T'] as const;

export type AbaTransactionCode = (typeof TRANSACTION_CODES)[number];

export interface AbaDescriptive {
  readonly reelSequenceNumber: number;
  /** APCA abbreviation of the user's bank, e.g. WBC. */
  readonly financialInstitution: string;
  readonly userName: string;
  /** Direct Entry user id, 6 digits. */
  readonly userIdNumber: string;
  readonly entriesDescription: string;
  /** YYYY-MM-DD; written DDMMYY. */
  readonly processingDate: string;
}

export interface AbaPayment {
  readonly bsb: string;
  readonly accountNumber: string;
  readonly indicator?: string;
  readonly transactionCode: AbaTransactionCode;
  readonly amountCents: number;
  readonly accountTitle: string;
  readonly lodgementReference: string;
  readonly withholdingTaxCents?: number;
}

export interface AbaBatch {
  readonly descriptive: AbaDescriptive;
  /** The remitter's own account: where returned items go. */
  readonly trace: { readonly bsb: string; readonly accountNumber: string };
  readonly remitterName: string;
  readonly payments: readonly AbaPayment[];
}

export interface AbaTotals {
  readonly creditTotalCents: number;
  readonly debitTotalCents: number;
  readonly netTotalCents: number;
  readonly detailRecordCount: number;
}

/** Bad input for an ABA file; the message names the field (e.g. `payments[1].bsb`). */
export class AbaError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'AbaError';
  }
}

function text(field: string, value: string, max: number): string {
  if (!CHARSET.test(value)) {
    throw new AbaError(field, "must use only letters, digits, space and & ' , - . / + $ ! % ( ) * # = : ? [ ] _ ^ @");
  }
  if (value.trim() === '') throw new AbaError(field, 'must not be blank');
  if (value.length > max) throw new AbaError(field, `must be at most ${max} characters`);
  return value.padEnd(max, ' ');
}

function numeric(field: string, value: number, width: number, min: number, max: number): string {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new AbaError(field, `must be an integer from ${min} to ${max}`);
  }
  return String(value).padStart(width, '0');
}

function bsb(field: string, value: string): string {
  if (!BSB.test(value)) throw new AbaError(field, 'must be a BSB of the form NNN-NNN');
  return value;
}

/** Digits, hyphens and spaces, right-justified in 9, not all blanks or zeros (FORMAT.md). */
function account(field: string, value: string): string {
  if (!/^[\d -]{1,9}$/.test(value)) throw new AbaError(field, 'must be 1 to 9 digits (hyphens and spaces allowed)');
  if (!/[1-9]/.test(value)) throw new AbaError(field, 'must not be all blanks or zeros');
  return value.padStart(9, ' ');
}

function ddmmyy(field: string, date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(d.getTime()) || !d.toISOString().startsWith(date)) {
    throw new AbaError(field, 'must be a real date YYYY-MM-DD');
  }
  return `${date.slice(8, 10)}${date.slice(5, 7)}${date.slice(2, 4)}`;
}

function descriptiveRecord(d: AbaDescriptive): string {
  if (!/^[A-Z]{3}$/.test(d.financialInstitution)) {
    throw new AbaError('descriptive.financialInstitution', 'must be 3 capital letters (APCA abbreviation)');
  }
  if (!/^\d{6}$/.test(d.userIdNumber)) throw new AbaError('descriptive.userIdNumber', 'must be 6 digits');
  return (
    '0' +
    ' '.repeat(17) +
    numeric('descriptive.reelSequenceNumber', d.reelSequenceNumber, 2, 1, 99) +
    d.financialInstitution +
    ' '.repeat(7) +
    text('descriptive.userName', d.userName, 26) +
    d.userIdNumber +
    text('descriptive.entriesDescription', d.entriesDescription, 12) +
    ddmmyy('descriptive.processingDate', d.processingDate) +
    ' '.repeat(40)
  );
}

function detailRecord(batch: AbaBatch, p: AbaPayment, i: number): string {
  const f = (name: string) => `payments[${i}].${name}`;
  const indicator = p.indicator ?? ' ';
  if (!(INDICATORS as readonly string[]).includes(indicator)) throw new AbaError(f('indicator'), 'must be one of space, N, W, X, Y, T');
  if (!(TRANSACTION_CODES as readonly string[]).includes(p.transactionCode)) {
    throw new AbaError(f('transactionCode'), `must be one of ${TRANSACTION_CODES.join(', ')}`);
  }
  if (/^[ 0-]/.test(p.lodgementReference)) throw new AbaError(f('lodgementReference'), 'must not start with a space, a zero or a hyphen');
  return (
    '1' +
    bsb(f('bsb'), p.bsb) +
    account(f('accountNumber'), p.accountNumber) +
    indicator +
    p.transactionCode +
    numeric(f('amountCents'), p.amountCents, 10, 1, ABA_AMOUNT_CENTS_MAX) +
    text(f('accountTitle'), p.accountTitle, 32) +
    text(f('lodgementReference'), p.lodgementReference, 18) +
    bsb('trace.bsb', batch.trace.bsb) +
    account('trace.accountNumber', batch.trace.accountNumber) +
    text('remitterName', batch.remitterName, 16) +
    numeric(f('withholdingTaxCents'), p.withholdingTaxCents ?? 0, 8, 0, WITHHOLDING_CENTS_MAX)
  );
}

/** The trailer's checksums (FORMAT.md "checksum rules"): code 13 is a debit, every other a credit. */
export function abaTotals(payments: readonly AbaPayment[]): AbaTotals {
  let credit = 0;
  let debit = 0;
  for (const p of payments) {
    if (p.transactionCode === '13') debit += p.amountCents;
    else credit += p.amountCents;
  }
  return {
    creditTotalCents: credit,
    debitTotalCents: debit,
    netTotalCents: Math.abs(credit - debit),
    detailRecordCount: payments.length,
  };
}

function totalRecord(t: AbaTotals): string {
  const total = (field: string, v: number) => numeric(field, v, 10, 0, ABA_AMOUNT_CENTS_MAX);
  // Credits and debits first: their overflow is the cause, the net only follows from them.
  const credit = total('creditTotalCents', t.creditTotalCents);
  const debit = total('debitTotalCents', t.debitTotalCents);
  return (
    '7' +
    '999-999' +
    ' '.repeat(12) +
    total('netTotalCents', t.netTotalCents) +
    credit +
    debit +
    ' '.repeat(24) +
    numeric('detailRecordCount', t.detailRecordCount, 6, 1, 999_999) +
    ' '.repeat(40)
  );
}

/** One batch as the bytes of an .aba file (ASCII), every record ending CR LF. */
export function buildAba(batch: AbaBatch): string {
  if (batch.payments.length === 0) throw new AbaError('payments', 'must have at least 1 payment');
  const records = [
    descriptiveRecord(batch.descriptive),
    ...batch.payments.map((p, i) => detailRecord(batch, p, i)),
    totalRecord(abaTotals(batch.payments)),
  ];
  for (const r of records) {
    if (r.length !== ABA_RECORD_CHARS) {
      throw new Error(`invariant violated: an ABA record is ${ABA_RECORD_CHARS} characters, not ${r.length}`);
    }
  }
  return records.map((r) => r + ABA_EOL).join('');
}

/**
 * The self-balancing record some banks require: one code-13 debit of the remitter's own (trace)
 * account for the sum of the credits, so the net total is zero.
 */
export function balancingPayment(batch: AbaBatch, accountTitle: string, lodgementReference: string): AbaPayment {
  return {
    bsb: batch.trace.bsb,
    accountNumber: batch.trace.accountNumber,
    transactionCode: '13',
    amountCents: abaTotals(batch.payments).creditTotalCents,
    accountTitle,
    lodgementReference,
  };
}

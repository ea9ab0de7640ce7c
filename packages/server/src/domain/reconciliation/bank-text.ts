import { limits } from '@finance-desk/protocol';

/**
 * Money and dates as banks write them, read string → integer cents with no float anywhere
 * (a float would turn 0.29 into 28.999… cents). A ParseError carries the 1-based physical line
 * of the file so the refusal can point at it.
 */
export class ParseError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'ParseError';
  }
}

/** A statement line as the parsers return it (../shared/data/bank/EXPECTED.json's shape). */
export interface ParsedLine {
  readonly date: string;
  readonly amountCents: number;
  readonly description: string;
  readonly reference?: string;
  readonly balanceCents?: number;
}

export interface ParsedStatement {
  readonly lines: readonly ParsedLine[];
  /** Physical line of each parsed line, for messages. */
  readonly sourceLines: readonly number[];
  /** Day closing balances where the layout gives them per day (Westpac COL), not per line. */
  readonly closingBalanceByDate?: ReadonlyMap<string, number>;
  /** The CSV layout read (given or detected). */
  readonly layout?: string;
}

// Optional sign, whole part with or without thousands separators, up to two decimals.
const MONEY = /^([+-])?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/;

/** "+1,234.5" → 123450. Throws ParseError naming `what` when the text is not an amount. */
export function parseMoney(text: string, line: number, what = 'amount'): number {
  const s = text.trim();
  const m = MONEY.exec(s);
  if (!m) throw new ParseError(line, `${what} "${s.slice(0, 30)}" is not an amount of money`);
  const whole = (m[2] ?? '').replace(/,/g, '');
  if (whole.length > 13) throw new ParseError(line, `${what} "${s.slice(0, 30)}" is too large`);
  const cents = Number(whole) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  if (cents > limits.centsMax)
    throw new ParseError(line, `${what} "${s.slice(0, 30)}" is too large`);
  return m[1] === '-' && cents !== 0 ? -cents : cents;
}

function ymd(y: number, m: number, d: number, line: number, text: string): string {
  const iso = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  const t = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(t.getTime()) || t.toISOString().slice(0, 10) !== iso) {
    throw new ParseError(line, `date "${text}" is not a real calendar date`);
  }
  return iso;
}

/** Two-digit years are 20YY: bank exports cover recent years only. */
const fullYear = (yy: string) => (yy.length === 2 ? 2000 + Number(yy) : Number(yy));

/** DD/MM/YYYY or DD/MM/YY (Australian day-first order; QIF also writes DD/MM'YY). */
export function parseDayFirst(text: string, line: number): string {
  const s = text.trim();
  const m = /^(\d{1,2})\/\s?(\d{1,2})['/](\d{2}|\d{4})$/.exec(s);
  if (!m) throw new ParseError(line, `date "${s.slice(0, 30)}" is not DD/MM/YYYY`);
  return ymd(fullYear(m[3] ?? ''), Number(m[2]), Number(m[1]), line, s);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** NAB's "03 Aug 26". */
export function parseDayMonthName(text: string, line: number): string {
  const s = text.trim();
  const m = /^(\d{1,2}) ([A-Za-z]{3}) (\d{2}|\d{4})$/.exec(s);
  const month = m ? MONTHS.indexOf((m[2] ?? '').toLowerCase()) + 1 : 0;
  if (!m || month === 0) throw new ParseError(line, `date "${s.slice(0, 30)}" is not DD Mon YY`);
  return ymd(fullYear(m[3] ?? ''), month, Number(m[1]), line, s);
}

/**
 * YYYYMMDD, also the first 8 characters of an OFX datetime (`20261101003000[+11:AEDT]`): the
 * calendar date as the bank wrote it. Converting to UTC first would move a line posted at
 * 00:30 Sydney time to the previous day.
 */
export function parseCompactDate(text: string, line: number): string {
  const s = text.trim();
  const m = /^(\d{4})(\d{2})(\d{2})/.exec(s);
  if (!m) throw new ParseError(line, `date "${s.slice(0, 30)}" is not YYYYMMDD`);
  return ymd(Number(m[1]), Number(m[2]), Number(m[3]), line, s);
}

/** A line with the optional fields present only when they have a value (EXPECTED.json's shape). */
export function line(
  date: string,
  amountCents: number,
  description: string,
  reference?: string,
  balanceCents?: number,
): ParsedLine {
  return {
    date,
    amountCents,
    description: description.trim(),
    ...(reference !== undefined && reference.trim() !== '' ? { reference: reference.trim() } : {}),
    ...(balanceCents !== undefined ? { balanceCents } : {}),
  };
}

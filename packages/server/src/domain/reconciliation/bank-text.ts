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

/** A statement line as the parsers return it (the shape of test/fixtures/bank/EXPECTED.json). */
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

/**
 * Optional sign and optional `$` in either order (`-$12.00`, `$-12.00`, `$1,234.50`), a whole part
 * with or without thousands separators (or none: OFX writes `-.50`), up to two decimals. Every
 * quantifier is bounded or followed by a fixed class, and the text is at most MONEY_CHARS_MAX long
 * before the regex sees it, so a hostile 1 MB field costs one length check.
 */
const MONEY = /^(?:([+-])?\$?|\$([+-]))(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d{1,2}))?$/;
const MONEY_CHARS_MAX = 40;

/** "+1,234.5" → 123450, "-$.50" → -50. Throws ParseError naming `what` when the text is not an amount. */
export function parseMoney(text: string, line: number, what = 'amount'): number {
  const s = text.trim();
  const m = s.length <= MONEY_CHARS_MAX ? MONEY.exec(s) : null;
  // At least one digit on one side of the point: "$", "-" and "." alone are not amounts.
  if (!m || (m[3] === undefined && m[4] === undefined)) throw new ParseError(line, `${what} "${s.slice(0, 30)}" is not an amount of money`);
  const whole = (m[3] ?? '0').replace(/,/g, '');
  if (whole.length > 13) throw new ParseError(line, `${what} "${s.slice(0, 30)}" is too large`);
  const cents = Number(whole) * 100 + Number((m[4] ?? '').padEnd(2, '0'));
  if (cents > limits.centsMax) throw new ParseError(line, `${what} "${s.slice(0, 30)}" is too large`);
  return (m[1] ?? m[2]) === '-' && cents !== 0 ? -cents : cents;
}

function ymd(y: number, m: number, d: number, line: number, text: string): string {
  const iso = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  const t = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(t.getTime()) || t.toISOString().slice(0, 10) !== iso) {
    throw new ParseError(line, `date "${text}" is not a real calendar date`);
  }
  return iso;
}

/**
 * Two-digit years are 2000–2099 (`24` → 2024), no pivot: a bank lets you download a few years of
 * transactions, never last century's, and the fixtures' README says "two-digit years are 20YY".
 * A date more than a day ahead is refused later as "in the future", so `99` cannot slip in.
 */
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
export function line(date: string, amountCents: number, description: string, reference?: string, balanceCents?: number): ParsedLine {
  return {
    date,
    amountCents,
    description: description.trim(),
    ...(reference !== undefined && reference.trim() !== '' ? { reference: reference.trim() } : {}),
    ...(balanceCents !== undefined ? { balanceCents } : {}),
  };
}

/**
 * The import cap (feedLimits.linesMax) enforced while a file is read: a parser throws this the
 * moment it meets line max + 1, so a 1 MB file of tiny records costs no more than its first
 * max lines.
 */
export function overCap(line: number, max: number): ParseError {
  return new ParseError(line, `the file has more than ${max} statement lines; import at most ${max} at a time`);
}

/**
 * The text rule of request bodies, for text a parser decodes itself (an OFX character reference): a
 * C0/C1 control other than tab and newline, or a bidi override/isolate, is refused like the same
 * character in JSON text.
 */
export function forbiddenCodePoint(cp: number): boolean {
  if (cp === 9 || cp === 10) return false;
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

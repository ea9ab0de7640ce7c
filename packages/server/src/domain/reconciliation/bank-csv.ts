import type { reconciliation } from '@finance-desk/protocol';
import { CsvError, parse } from 'csv-parse/sync';
import {
  ParseError,
  line,
  overCap,
  parseCompactDate,
  parseDayFirst,
  parseDayMonthName,
  parseMoney,
  type ParsedLine,
  type ParsedStatement,
} from './bank-text.js';

/**
 * CSV statement exports of the big four Australian banks (layouts and their traps are described
 * in docs/reference/bank-exports.md). Rows keep file order: newest-first files stay newest first,
 * and an exact repeated row is returned, not dropped (de-duplication is a later, visible step).
 */
type BankLayout = reconciliation.BankLayout;

interface CsvRecord {
  readonly fields: readonly string[];
  /** 1-based physical line the record starts on. */
  readonly line: number;
}

/** How many times `ch` occurs in a record's fields (a newline can only sit inside a quoted field). */
function countIn(fields: readonly string[], ch: string): number {
  let n = 0;
  for (const f of fields) for (let i = f.indexOf(ch); i >= 0; i = f.indexOf(ch, i + 1)) n += 1;
  return n;
}

/**
 * RFC 4180 records, tokenized by csv-parse: quoted fields may hold commas, newlines and doubled
 * quotes; records end at CRLF, LF or CR, mixed in one file; a leading BOM is dropped; an empty line
 * is no record (a line of just `""` is one: an empty quoted field, which the layouts then refuse). A quote inside an unquoted field is a character (relax_quotes: narratives hold
 * `5" PIPE`), and text after a closing quote stays in the field, quotes included (`"ab"cd` is
 * `"ab"cd`). Field counts are the layouts' to check (relax_column_count). Parsing stops once it
 * holds maxRecords records (`to`): the caller knows whether the first is a header and refuses the
 * first data row over its cap, naming that row, so nothing after it is tokenized.
 */
export function csvRecords(content: string, maxRecords = Number.POSITIVE_INFINITY): CsvRecord[] {
  const out: CsvRecord[] = [];
  if (!(maxRecords >= 1)) return out;
  // csv-parse counts every CR and LF inside a quoted field as a line (CRLF as two); a physical
  // line ends at LF there, as an editor shows it, so CRs inside quoted fields are taken back off.
  let quotedCrs = 0;
  let lastEnd = 0;
  let emptyBefore = 0;
  try {
    parse(content, {
      bom: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      ...(Number.isFinite(maxRecords) ? { to: Math.floor(maxRecords) } : {}),
      on_record: (fields: string[], info) => {
        // info.lines is the line the record ends on; it starts as many lines earlier as it holds LFs.
        quotedCrs += countIn(fields, '\r');
        lastEnd = info.lines - quotedCrs;
        emptyBefore = info.empty_lines;
        out.push({ fields, line: lastEnd - countIn(fields, '\n') });
        return null;
      },
    });
  } catch (e) {
    if (!(e instanceof CsvError)) throw e;
    // The record that failed starts after the last one read and the empty lines skipped since.
    const empty = typeof e.empty_lines === 'number' ? e.empty_lines : emptyBefore;
    const at = lastEnd + 1 + empty - emptyBefore;
    throw new ParseError(at, e.code === 'CSV_QUOTE_NOT_CLOSED' ? 'a quoted field is not closed' : e.message);
  }
  return out;
}

// DD/MM/YYYY or DD/MM/YY (ANZ's headerless export may write `03/10/24`; years are 20YY, see
// bank-text.ts). Day first always, as every Australian export writes it: `03/10/24` is 3 October.
const DAY_FIRST = /^\d{1,2}\/\d{1,2}\/(?:\d{2}|\d{4})$/;
// A sign before the digits, with or without a `$` on either side of it (`+1.00`, `-$1.00`, `$-1.00`).
const SIGNED = /^(?:[+-]\$?|\$[+-])[\d.]/;

/** Which layout a CSV is, or null when it cannot be told reliably (the caller then asks for file.bank). */
export function detectCsvLayout(records: readonly CsvRecord[]): BankLayout | null {
  const first = records[0]?.fields.map((f) => f.trim());
  if (!first) return null;
  if (first[0] === 'TRAN_DATE' && first.includes('NARRATIVE')) return 'westpac_col';
  if (first.includes('Narrative') && first.includes('Debit Amount')) return 'westpac';
  if (first[0] === 'Date' && first[1] === 'Amount' && first.includes('Transaction Details')) return 'nab';
  if (!records.every((r) => DAY_FIRST.test((r.fields[0] ?? '').trim()))) return null;
  // Headerless: CommBank writes 4 columns and always signs its balance (+/-); classic ANZ has 3.
  if (records.every((r) => r.fields.length === 4 && SIGNED.test((r.fields[3] ?? '').trim()))) return 'cba';
  if (records.every((r) => r.fields.length === 3)) return 'anz';
  return null;
}

/** The header columns each headed layout is read by (any order; other columns are ignored). */
const WESTPAC_COLUMNS = ['Date', 'Narrative', 'Debit Amount', 'Credit Amount', 'Balance', 'Serial'] as const;
const NAB_COLUMNS = ['Date', 'Amount', 'Transaction Details', 'Balance'] as const;
const WESTPAC_COL_COLUMNS = ['TRAN_DATE', 'CLOSING_BAL', 'AMOUNT', 'NARRATIVE', 'SERIAL'] as const;
const CBA_FIELDS = 'date, amount, description, balance';
const ANZ_FIELDS = 'date, amount, description';

function expectFields(r: CsvRecord, n: number, names: string): void {
  if (r.fields.length !== n) throw new ParseError(r.line, `expected ${n} fields (${names}), found ${r.fields.length}`);
}

function headerIndex(header: CsvRecord, names: readonly string[]): number[] {
  const cols = header.fields.map((f) => f.trim().toLowerCase());
  return names.map((name) => {
    const i = cols.indexOf(name.toLowerCase());
    if (i < 0) throw new ParseError(header.line, `the header has no "${name}" column`);
    return i;
  });
}

const at = (r: CsvRecord, i: number | undefined) => (i === undefined ? '' : (r.fields[i] ?? ''));

function cba(records: readonly CsvRecord[]): ParsedLine[] {
  return records.map((r) => {
    expectFields(r, 4, CBA_FIELDS);
    // The posting date is column 1; a "Value Date: dd/mm/yyyy" inside the description is not it.
    return line(
      parseDayFirst(at(r, 0), r.line),
      parseMoney(at(r, 1), r.line),
      at(r, 2),
      undefined,
      parseMoney(at(r, 3), r.line, 'balance'),
    );
  });
}

function anz(records: readonly CsvRecord[]): ParsedLine[] {
  return records.map((r) => {
    expectFields(r, 3, ANZ_FIELDS);
    return line(parseDayFirst(at(r, 0), r.line), parseMoney(at(r, 1), r.line), at(r, 2));
  });
}

/** Westpac Live: unsigned Debit Amount / Credit Amount columns, exactly one filled. */
function westpac(records: readonly CsvRecord[]): ParsedLine[] {
  const [header, ...rows] = records;
  if (!header) return [];
  const [date, narrative, debit, credit, balance, serial] = headerIndex(header, WESTPAC_COLUMNS);
  return rows.map((r) => {
    const dr = at(r, debit).trim();
    const cr = at(r, credit).trim();
    if ((dr === '') === (cr === '')) throw new ParseError(r.line, 'exactly one of Debit Amount and Credit Amount must be filled');
    // The columns are unsigned: a signed value could mean either direction, so it is refused
    // rather than guessed (a "-12.00" debit once became money in).
    const [text, column] = dr !== '' ? [dr, 'Debit Amount'] : [cr, 'Credit Amount'];
    if (/^[+-]|^\$[+-]/.test(text)) {
      throw new ParseError(r.line, `${column}: must be unsigned; the column gives the direction`);
    }
    const amount = dr !== '' ? -parseMoney(dr, r.line, column) : parseMoney(cr, r.line, column);
    const bal = at(r, balance).trim();
    return line(
      parseDayFirst(at(r, date), r.line),
      amount,
      at(r, narrative),
      at(r, serial),
      bal === '' ? undefined : parseMoney(bal, r.line, 'Balance'),
    );
  });
}

function nab(records: readonly CsvRecord[]): ParsedLine[] {
  const [header, ...rows] = records;
  if (!header) return [];
  const [date, amount, details, balance] = headerIndex(header, NAB_COLUMNS);
  return rows.map((r) => {
    const bal = at(r, balance).trim();
    return line(
      parseDayMonthName(at(r, date), r.line),
      parseMoney(at(r, amount), r.line),
      at(r, details),
      undefined,
      bal === '' ? undefined : parseMoney(bal, r.line, 'Balance'),
    );
  });
}

/** Westpac Corporate Online: CLOSING_BAL is the day's closing balance on every row of that day. */
function westpacCol(records: readonly CsvRecord[]): ParsedStatement {
  const [header, ...rows] = records;
  if (!header) return { lines: [], sourceLines: [] };
  const [date, closing, amount, narrative, serial] = headerIndex(header, WESTPAC_COL_COLUMNS);
  const byDate = new Map<string, number>();
  const lines = rows.map((r) => {
    const d = parseCompactDate(at(r, date), r.line);
    const close = at(r, closing).trim();
    if (close !== '') {
      const c = parseMoney(close, r.line, 'CLOSING_BAL');
      const seen = byDate.get(d);
      if (seen !== undefined && seen !== c) throw new ParseError(r.line, `CLOSING_BAL differs from an earlier row of ${d}`);
      byDate.set(d, c);
    }
    return line(d, parseMoney(at(r, amount), r.line, 'AMOUNT'), at(r, narrative), at(r, serial));
  });
  return { lines, sourceLines: rows.map((r) => r.line), closingBalanceByDate: byDate };
}

/**
 * Every layout file.bank accepts, with the parser that reads it, whether its first record is a
 * header, and how its rows look: the one table the parser dispatches on and the refusal of an
 * unrecognised file lists, so the message cannot name a layout the parser lacks or miss one it
 * has (typed by the protocol's BankLayout: a layout declared there without a parser fails the build).
 */
interface LayoutEntry {
  readonly rows: string;
  readonly headed: boolean;
  readonly parse: (records: readonly CsvRecord[]) => readonly ParsedLine[] | ParsedStatement;
}
const LAYOUTS: { readonly [L in BankLayout]: LayoutEntry } = {
  cba: { rows: `CommBank, no header: ${CBA_FIELDS}`, headed: false, parse: cba },
  westpac: { rows: `Westpac Live, header ${WESTPAC_COLUMNS.join(', ')}`, headed: true, parse: westpac },
  westpac_col: { rows: `Westpac Corporate Online, header ${WESTPAC_COL_COLUMNS.join(', ')}`, headed: true, parse: westpacCol },
  nab: { rows: `NAB, header ${NAB_COLUMNS.join(', ')}`, headed: true, parse: nab },
  anz: { rows: `ANZ, no header: ${ANZ_FIELDS}`, headed: false, parse: anz },
};

/**
 * The refusal of a CSV no layout was recognised in: a file with some other header (a spreadsheet's
 * own `Date,Amount,Description`) is not guessed at, so the caller is told every layout the parser
 * reads and what its rows look like, and that rows of any other shape go in as `lines`.
 */
export const UNRECOGNISED_CSV = `the CSV layout was not recognised; give file.bank, one of: ${Object.entries(LAYOUTS)
  .map(([id, l]) => `${id} (${l.rows})`)
  .join('; ')}. A file in another layout: send its rows as lines instead of file`;

export function parseCsv(content: string, bank: BankLayout | undefined, maxLines = Number.POSITIVE_INFINITY): ParsedStatement {
  // A header and the first row over the cap are enough to refuse; nothing after them is read.
  const records = csvRecords(content, maxLines + 2);
  if (records.length === 0) throw new ParseError(1, 'the file has no rows');
  const layout = bank ?? detectCsvLayout(records);
  if (layout === null) throw new ParseError(1, UNRECOGNISED_CSV);
  const entry = LAYOUTS[layout];
  const rows = entry.headed ? records.slice(1) : records;
  const over = rows[maxLines];
  if (over !== undefined) throw overCap(over.line, maxLines);
  const parsed = entry.parse(records);
  if (Array.isArray(parsed)) return { lines: parsed, sourceLines: rows.map((r) => r.line), layout };
  return { ...(parsed as ParsedStatement), layout };
}

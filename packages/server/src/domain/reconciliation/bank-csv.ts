import type { reconciliation } from '@finance-desk/protocol';
import {
  ParseError,
  line,
  parseCompactDate,
  parseDayFirst,
  parseDayMonthName,
  parseMoney,
  type ParsedLine,
  type ParsedStatement,
} from './bank-text.js';

/**
 * CSV statement exports of the big four Australian banks (layouts and their traps are described
 * in ../shared/data/bank/README.md). Rows keep file order: newest-first files stay newest first,
 * and an exact repeated row is returned, not dropped (de-duplication is a later, visible step).
 */
type BankLayout = reconciliation.BankLayout;

interface CsvRecord {
  readonly fields: readonly string[];
  /** 1-based physical line the record starts on. */
  readonly line: number;
}

/** RFC 4180: quoted fields may hold commas, newlines and doubled quotes; CRLF, LF or CR. */
export function csvRecords(content: string): CsvRecord[] {
  const text = content.replace(/^\uFEFF/, '');
  const out: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let lineNo = 1;
  let start = 1;
  const endRecord = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === '')) out.push({ fields, line: start });
    fields = [];
    field = '';
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') lineNo += 1;
        field += c;
      }
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      endRecord();
      lineNo += 1;
      start = lineNo;
    } else field += c;
  }
  if (quoted) throw new ParseError(start, 'a quoted field is not closed');
  if (field !== '' || fields.length > 0) endRecord();
  return out;
}

const DAY_FIRST = /^\d{1,2}\/\d{1,2}\/\d{4}$/;
const SIGNED = /^[+-]\d/;

/** Which layout a CSV is, or null when it cannot be told reliably (the caller then asks for file.bank). */
export function detectCsvLayout(records: readonly CsvRecord[]): BankLayout | null {
  const first = records[0]?.fields.map((f) => f.trim());
  if (!first) return null;
  if (first[0] === 'TRAN_DATE' && first.includes('NARRATIVE')) return 'westpac_col';
  if (first.includes('Narrative') && first.includes('Debit Amount')) return 'westpac';
  if (first[0] === 'Date' && first[1] === 'Amount' && first.includes('Transaction Details'))
    return 'nab';
  if (!records.every((r) => DAY_FIRST.test((r.fields[0] ?? '').trim()))) return null;
  // Headerless: CommBank writes 4 columns and always signs its balance (+/-); classic ANZ has 3.
  if (records.every((r) => r.fields.length === 4 && SIGNED.test((r.fields[3] ?? '').trim())))
    return 'cba';
  if (records.every((r) => r.fields.length === 3)) return 'anz';
  return null;
}

function expectFields(r: CsvRecord, n: number, names: string): void {
  if (r.fields.length !== n)
    throw new ParseError(r.line, `expected ${n} fields (${names}), found ${r.fields.length}`);
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
    expectFields(r, 4, 'date, amount, description, balance');
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
    expectFields(r, 3, 'date, amount, description');
    return line(parseDayFirst(at(r, 0), r.line), parseMoney(at(r, 1), r.line), at(r, 2));
  });
}

/** Westpac Live: unsigned Debit Amount / Credit Amount columns, exactly one filled. */
function westpac(records: readonly CsvRecord[]): ParsedLine[] {
  const [header, ...rows] = records;
  if (!header) return [];
  const [date, narrative, debit, credit, balance, serial] = headerIndex(header, [
    'Date',
    'Narrative',
    'Debit Amount',
    'Credit Amount',
    'Balance',
    'Serial',
  ]);
  return rows.map((r) => {
    const dr = at(r, debit).trim();
    const cr = at(r, credit).trim();
    if ((dr === '') === (cr === ''))
      throw new ParseError(r.line, 'exactly one of Debit Amount and Credit Amount must be filled');
    const amount =
      dr !== '' ? -parseMoney(dr, r.line, 'Debit Amount') : parseMoney(cr, r.line, 'Credit Amount');
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
  const [date, amount, details, balance] = headerIndex(header, [
    'Date',
    'Amount',
    'Transaction Details',
    'Balance',
  ]);
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
  const [date, closing, amount, narrative, serial] = headerIndex(header, [
    'TRAN_DATE',
    'CLOSING_BAL',
    'AMOUNT',
    'NARRATIVE',
    'SERIAL',
  ]);
  const byDate = new Map<string, number>();
  const lines = rows.map((r) => {
    const d = parseCompactDate(at(r, date), r.line);
    const close = at(r, closing).trim();
    if (close !== '') {
      const c = parseMoney(close, r.line, 'CLOSING_BAL');
      const seen = byDate.get(d);
      if (seen !== undefined && seen !== c)
        throw new ParseError(r.line, `CLOSING_BAL differs from an earlier row of ${d}`);
      byDate.set(d, c);
    }
    return line(d, parseMoney(at(r, amount), r.line, 'AMOUNT'), at(r, narrative), at(r, serial));
  });
  return { lines, sourceLines: rows.map((r) => r.line), closingBalanceByDate: byDate };
}

export function parseCsv(content: string, bank: BankLayout | undefined): ParsedStatement {
  const records = csvRecords(content);
  if (records.length === 0) throw new ParseError(1, 'the file has no rows');
  const layout = bank ?? detectCsvLayout(records);
  if (layout === null) {
    throw new ParseError(
      1,
      'the CSV layout was not recognised; give file.bank (cba, westpac, westpac_col, nab or anz)',
    );
  }
  if (layout === 'westpac_col') return { ...westpacCol(records), layout };
  const headed = layout === 'westpac' || layout === 'nab';
  const rows = headed ? records.slice(1) : records;
  const parse = { cba, anz, westpac, nab }[layout];
  return { lines: parse(records), sourceLines: rows.map((r) => r.line), layout };
}

import { ParseError, line, overCap, parseDayFirst, parseMoney, type ParsedLine, type ParsedStatement } from './bank-text.js';

/**
 * QIF (`!Type:Bank`): one field per line, a letter then the value (D date, T amount, P payee,
 * M memo, N number), `^` ends a record. The date order is chosen when the file is exported and
 * cannot be told from the file for days up to 12; we read day first, as Australian banks export
 * ("QIF dd/mm/yy"). T carries thousands separators (`T-5,292.00`).
 *
 * One pass over the rows, read one at a time; the record cap is checked as each `^` is met, not after the whole file
 * has been turned into lines.
 */
interface Draft {
  date?: string;
  amount?: number;
  payee?: string;
  memo?: string;
  number?: string;
  /** A T line was read (U, the same amount in older exports, may come before it). */
  tSeen?: boolean;
  start: number;
}

function finish(d: Draft): ParsedLine {
  if (d.date === undefined) throw new ParseError(d.start, 'the record has no D (date) line');
  if (d.amount === undefined) throw new ParseError(d.start, 'the record has no T (amount) line');
  return line(d.date, d.amount, d.payee ?? d.memo ?? '', d.number);
}

/** Rows read one at a time (CRLF, LF or CR), so a refusal stops the reading where it happens. */
class Rows {
  private pos: number;
  /** 1-based physical line of the row last returned. */
  no = 0;

  constructor(private readonly text: string) {
    this.pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  next(): string | null {
    const { text } = this;
    if (this.pos > text.length) return null;
    let end = this.pos;
    while (end < text.length && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end += 1;
    const row = text.slice(this.pos, end);
    this.pos = end + (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? 2 : 1);
    this.no += 1;
    return row;
  }
}

function readHeader(rows: Rows): void {
  let type: string | null = rows.next();
  while (type !== null && type.trim() === '') type = rows.next();
  const shown = (type ?? '').trim();
  if (!/^!Type:(Bank|Cash|CCard)\s*$/i.test(shown)) {
    throw new ParseError(Math.max(rows.no, 1), `expected !Type:Bank (or Cash, CCard), found "${shown.slice(0, 30)}"`);
  }
}

/** One field line into the record; a second D or T means a missing ^ and is refused at once. */
function readField(d: Draft, code: string | undefined, value: string, no: number): void {
  if ((code === 'D' && d.date !== undefined) || (code === 'T' && d.tSeen === true))
    throw new ParseError(no, `the record has a second ${code} line (is a ^ missing?)`);
  if (code === 'D') d.date = parseDayFirst(value, no);
  else if (code === 'T') {
    d.amount = parseMoney(value, no, 'T');
    d.tSeen = true;
  } else if (code === 'U' && d.amount === undefined) d.amount = parseMoney(value, no, 'T');
  else if (code === 'P') d.payee = value;
  else if (code === 'M') d.memo = value;
  else if (code === 'N') d.number = value;
  else if (code === '!') throw new ParseError(no, 'only one !Type section is supported');
}

export function parseQif(content: string, maxLines = Number.POSITIVE_INFINITY): ParsedStatement {
  const rows = new Rows(content);
  readHeader(rows);
  const lines: ParsedLine[] = [];
  const sourceLines: number[] = [];
  let d: Draft = { start: rows.no + 1 };
  for (let row = rows.next(); row !== null; row = rows.next()) {
    if (row.trim() === '') continue;
    if (row[0] !== '^') {
      readField(d, row[0], row.slice(1), rows.no);
      continue;
    }
    if (lines.length >= maxLines) throw overCap(d.start, maxLines);
    lines.push(finish(d));
    sourceLines.push(d.start);
    d = { start: rows.no + 1 };
  }
  if (d.date !== undefined || d.amount !== undefined) throw new ParseError(d.start, 'the last record is not ended by ^');
  return { lines, sourceLines };
}

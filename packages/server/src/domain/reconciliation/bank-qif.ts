import {
  ParseError,
  line,
  overCap,
  parseDayFirst,
  parseMoney,
  type ParsedLine,
  type ParsedStatement,
} from './bank-text.js';

/**
 * QIF (`!Type:Bank`): one field per line, a letter then the value (D date, T amount, P payee,
 * M memo, N number), `^` ends a record. The date order is chosen when the file is exported and
 * cannot be told from the file for days up to 12; we read day first, as Australian banks export
 * ("QIF dd/mm/yy"). T carries thousands separators (`T-5,292.00`).
 *
 * One pass over the rows; the record cap is checked as each `^` is met, not after the whole file
 * has been turned into lines (issue 8 item 3).
 */
interface Draft {
  date?: string;
  amount?: number;
  payee?: string;
  memo?: string;
  number?: string;
  start: number;
}

function finish(d: Draft): ParsedLine {
  if (d.date === undefined) throw new ParseError(d.start, 'the record has no D (date) line');
  if (d.amount === undefined) throw new ParseError(d.start, 'the record has no T (amount) line');
  return line(d.date, d.amount, d.payee ?? d.memo ?? '', d.number);
}

export function parseQif(content: string, maxLines = Number.POSITIVE_INFINITY): ParsedStatement {
  const rows = content.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const header = rows.findIndex((r) => r.trim() !== '');
  const type = rows[header]?.trim() ?? '';
  if (!/^!Type:(Bank|Cash|CCard)\s*$/i.test(type)) {
    throw new ParseError(
      header + 1,
      `expected !Type:Bank (or Cash, CCard), found "${type.slice(0, 30)}"`,
    );
  }
  const lines: ParsedLine[] = [];
  const sourceLines: number[] = [];
  let d: Draft = { start: header + 2 };
  for (let i = header + 1; i < rows.length; i += 1) {
    const row = rows[i] ?? '';
    const no = i + 1;
    if (row.trim() === '') continue;
    const code = row[0];
    const value = row.slice(1);
    if (code === '^') {
      if (lines.length >= maxLines) throw overCap(d.start, maxLines);
      lines.push(finish(d));
      sourceLines.push(d.start);
      d = { start: no + 1 };
      continue;
    }
    if (code === 'D') d.date = parseDayFirst(value, no);
    else if (code === 'T' || (code === 'U' && d.amount === undefined))
      d.amount = parseMoney(value, no, 'T');
    else if (code === 'P') d.payee = value;
    else if (code === 'M') d.memo = value;
    else if (code === 'N') d.number = value;
    else if (code === '!') throw new ParseError(no, 'only one !Type section is supported');
  }
  if (d.date !== undefined || d.amount !== undefined)
    throw new ParseError(d.start, 'the last record is not ended by ^');
  return { lines, sourceLines };
}

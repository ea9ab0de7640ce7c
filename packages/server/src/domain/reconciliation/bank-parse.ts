import { reconciliation } from '@finance-desk/protocol';
import { parseCsv } from './bank-csv.js';
import { parseOfx } from './bank-ofx.js';
import { parseQif } from './bank-qif.js';
import type { ParsedStatement } from './bank-text.js';

export { ParseError, type ParsedLine, type ParsedStatement } from './bank-text.js';

export interface BankFile {
  readonly format: 'csv' | 'ofx' | 'qif';
  readonly bank?: reconciliation.BankLayout | undefined;
  readonly content: string;
}

/**
 * Parse a statement export to its lines in file order (throws ParseError naming a line). Every
 * parser is one linear pass and stops at the first line over maxLines (default: the import cap,
 * feedLimits.linesMax), so a hostile 1 MB body is refused early instead of parsed in full.
 */
export function parseBankFile(file: BankFile, maxLines: number = reconciliation.feedLimits.linesMax): ParsedStatement {
  if (file.format === 'ofx') return parseOfx(file.content, maxLines);
  if (file.format === 'qif') return parseQif(file.content, maxLines);
  return parseCsv(file.content, file.bank, maxLines);
}

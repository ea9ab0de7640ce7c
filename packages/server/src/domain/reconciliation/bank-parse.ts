import type { reconciliation } from '@finance-desk/protocol';
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

/** Parse a statement export to its lines in file order (throws ParseError naming a line). */
export function parseBankFile(file: BankFile): ParsedStatement {
  if (file.format === 'ofx') return parseOfx(file.content);
  if (file.format === 'qif') return parseQif(file.content);
  return parseCsv(file.content, file.bank);
}

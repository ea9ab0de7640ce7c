/**
 * Reads an ABA file back by column positions (1-based, inclusive, as in
 * docs/reference/aba-format.md), independently of the generator, so tests check the layout
 * itself rather than the generator against its own code.
 */
const col = (r: string, from: number, to: number) => r.slice(from - 1, to);

export interface ParsedAba {
  descriptive: Record<string, string>;
  details: Record<string, string>[];
  total: Record<string, string>;
  records: string[];
}

export function parseAba(text: string): ParsedAba {
  if (!text.endsWith('\r\n')) throw new Error('the last record must end with CR LF');
  const records = text.slice(0, -2).split('\r\n');
  for (const [i, r] of records.entries()) {
    if (r.length !== 120) throw new Error(`record ${i + 1} is ${r.length} characters, not 120`);
    if (/[\r\n]/.test(r)) throw new Error(`record ${i + 1} holds a bare CR or LF`);
  }
  const head = records[0] ?? '';
  const tail = records.at(-1) ?? '';
  if (head[0] !== '0' || tail[0] !== '7') throw new Error('a file is one type 0 record, type 1 records, one type 7 record');
  const details = records.slice(1, -1).map((r) => {
    if (r[0] !== '1') throw new Error('detail records are type 1');
    return {
      recordType: col(r, 1, 1),
      bsb: col(r, 2, 8),
      accountNumber: col(r, 9, 17),
      indicator: col(r, 18, 18),
      transactionCode: col(r, 19, 20),
      amount: col(r, 21, 30),
      accountTitle: col(r, 31, 62),
      lodgementReference: col(r, 63, 80),
      traceBsb: col(r, 81, 87),
      traceAccountNumber: col(r, 88, 96),
      remitterName: col(r, 97, 112),
      withholdingTax: col(r, 113, 120),
    };
  });
  return {
    records,
    descriptive: {
      recordType: col(head, 1, 1),
      blank1: col(head, 2, 18),
      reelSequenceNumber: col(head, 19, 20),
      financialInstitution: col(head, 21, 23),
      blank2: col(head, 24, 30),
      userName: col(head, 31, 56),
      userIdNumber: col(head, 57, 62),
      entriesDescription: col(head, 63, 74),
      processingDate: col(head, 75, 80),
      blank3: col(head, 81, 120),
    },
    details,
    total: {
      recordType: col(tail, 1, 1),
      bsbFiller: col(tail, 2, 8),
      blank1: col(tail, 9, 20),
      netTotal: col(tail, 21, 30),
      creditTotal: col(tail, 31, 40),
      debitTotal: col(tail, 41, 50),
      blank2: col(tail, 51, 74),
      count: col(tail, 75, 80),
      blank3: col(tail, 81, 120),
    },
  };
}

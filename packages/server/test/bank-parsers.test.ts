import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reconciliation } from '@finance-desk/protocol';
import { csvRecords, detectCsvLayout } from '../src/domain/reconciliation/bank-csv.js';
import { ParseError, parseBankFile, type BankFile } from '../src/domain/reconciliation/bank-parse.js';
import { parseDayFirst, parseMoney } from '../src/domain/reconciliation/bank-text.js';
import { fingerprint, planImport } from '../src/domain/reconciliation/dedupe.js';

/** The bank exports of fixtures/bank (docs/reference/bank-exports.md) and what they must parse to. */
const dir = new URL('./fixtures/bank/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dir), 'utf8');
const EXPECTED = JSON.parse(read('EXPECTED.json')) as Record<
  string,
  { lines: unknown[]; annotations: { index: number; kinds: string[] }[] }
>;

const FILES: readonly [string, BankFile['format'], BankFile['bank']][] = [
  ['cba_netbank.csv', 'csv', 'cba'],
  ['westpac_live.csv', 'csv', 'westpac'],
  ['nab_internet_banking.csv', 'csv', 'nab'],
  ['anz_internet_banking.csv', 'csv', 'anz'],
  ['westpac_corporate_online.csv', 'csv', 'westpac_col'],
  ['statement_ofx102.ofx', 'ofx', undefined],
  ['statement_ofx220.ofx', 'ofx', undefined],
  ['statement_ddmmyy.qif', 'qif', undefined],
];

function parseError(f: () => unknown): ParseError {
  try {
    f();
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw e;
  }
  throw new Error('expected a ParseError');
}

describe('bank statement parsers', () => {
  it('every fixture file is covered', () => {
    expect(FILES.map(([f]) => f).sort()).toEqual(
      Object.keys(EXPECTED)
        .filter((k) => !k.startsWith('_'))
        .sort(),
    );
  });

  it.each(FILES)('%s parses to exactly EXPECTED.json (layout given)', (name, format, bank) => {
    const parsed = parseBankFile({ format, bank, content: read(name) });
    expect(parsed.lines).toEqual(EXPECTED[name]?.lines);
    expect(parsed.sourceLines).toHaveLength(parsed.lines.length);
  });

  it.each(FILES.filter(([, format]) => format === 'csv'))('%s: the CSV layout is detected when file.bank is omitted', (name, _f, bank) => {
    expect(detectCsvLayout(csvRecords(read(name)))).toBe(bank);
    expect(parseBankFile({ format: 'csv', content: read(name) }).lines).toEqual(EXPECTED[name]?.lines);
  });

  it('OFX 2 dates are the calendar date as written, never converted to UTC', () => {
    const [first] = parseBankFile({ format: 'ofx', content: read('statement_ofx220.ofx') }).lines;
    expect(first?.date).toBe('2026-11-01'); // posted 20261101003000[+11:AEDT]; UTC would be 10-31
  });

  it('CommBank: the posting date is column 1, not the "Value Date" in the description', () => {
    const line = parseBankFile({ format: 'csv', bank: 'cba', content: read('cba_netbank.csv') }).lines[3];
    expect(line).toMatchObject({ date: '2026-09-28', description: expect.stringContaining('Value Date: 26/09/2026') });
  });

  it('money is read from text to integer cents without floats', () => {
    expect(parseMoney('+18727.94', 1)).toBe(1_872_794);
    expect(parseMoney('"25,000.00"'.replace(/"/g, ''), 1)).toBe(2_500_000);
    expect(parseMoney('-5,292.00', 1)).toBe(-529_200);
    expect(parseMoney('0.29', 1)).toBe(29);
    expect(parseMoney('1.5', 1)).toBe(150);
    expect(parseMoney('-0.00', 1)).toBe(0);
    for (const bad of [
      '1,23.00',
      '12.345',
      '1e3',
      '',
      '--1',
      '1 000',
      '$',
      '-',
      '.',
      '-.',
      '$$5',
      '-$-5',
      '+-5',
      '5.',
      '.5.0',
      '5$',
      '1'.repeat(41),
    ]) {
      expect(() => parseMoney(bad, 7)).toThrow(ParseError);
    }
  });

  it.each([
    ['$1,234.50', 123_450],
    ['-$12.00', -1_200],
    ['$-12.00', -1_200],
    ['+$12', 1_200],
    ['$+0.05', 5],
    ['$0.29', 29],
    ['-.50', -50],
    ['.50', 50],
    ['+.5', 50],
    ['$.07', 7],
    ['-$.07', -7],
    [' $ 1.00'.replace(' 1', '1'), 100],
  ])('money with a $ sign or no whole part: %s → %i cents', (text, cents) => {
    expect(parseMoney(text, 1)).toBe(cents);
  });

  it.each([
    ['03/10/24', '2024-10-03'],
    ['3/1/24', '2024-01-03'],
    ['31/12/99', '2099-12-31'],
    ['01/01/00', '2000-01-01'],
    ['13/01/26', '2026-01-13'],
    ['03/10/2024', '2024-10-03'],
  ])('two-digit years are 2000–2099, day first: %s → %s', (text, iso) => {
    expect(parseDayFirst(text, 1)).toBe(iso);
  });

  it.each([
    [
      'ANZ, 2-digit years',
      '03/10/24,"-$12.00","CARD PURCHASE"\r\n02/10/24,"$1,234.50","TRANSFER FROM J SMITH"\r\n01/10/24,-.50,FEE\r\n',
      'anz',
      [
        { date: '2024-10-03', amountCents: -1_200, description: 'CARD PURCHASE' },
        { date: '2024-10-02', amountCents: 123_450, description: 'TRANSFER FROM J SMITH' },
        { date: '2024-10-01', amountCents: -50, description: 'FEE' },
      ],
    ],
    // 12/10/24 is read day first (12 October), as the 4-digit-year detector always has.
    ['ANZ, 2-digit years, day ≤ 12', '12/10/24,$-5.00,X\n', 'anz', [{ date: '2024-10-12', amountCents: -500, description: 'X' }]],
    [
      'CommBank, 2-digit years, $ balance',
      '03/10/24,"-$10.00","FEE","+$1,000.00"\r\n',
      'cba',
      [{ date: '2024-10-03', amountCents: -1_000, description: 'FEE', balanceCents: 100_000 }],
    ],
    [
      'CommBank, 4-digit years, $ after sign',
      '03/10/2024,"+5.00","X","-$1.00"\r\n',
      'cba',
      [{ date: '2024-10-03', amountCents: 500, description: 'X', balanceCents: -100 }],
    ],
  ] as const)('headerless %s: detected and parsed', (_name, content, layout, lines) => {
    expect(detectCsvLayout(csvRecords(content))).toBe(layout);
    expect(parseBankFile({ format: 'csv', content }).lines).toEqual(lines);
  });

  it('a CSV with a 2-digit year on one row and an unreadable date on another is not guessed', () => {
    expect(detectCsvLayout(csvRecords('03/10/24,-1.00,X\n2024-10-03,-1.00,Y\n'))).toBeNull();
  });

  const ofx = (trn: string) =>
    `OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST>\n<STMTTRN>\n<DTPOSTED>20261101\n${trn}\n</STMTTRN>\n</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n`;

  it.each([
    ['-.50', -50],
    ['.50', 50],
    ['+.50', 50],
    ['-0.5', -50],
    ['+12.00', 1_200],
  ])('OFX TRNAMT %s → %i cents', (amount, cents) => {
    expect(parseBankFile({ format: 'ofx', content: ofx(`<TRNAMT>${amount}\n<NAME>X`) }).lines[0]?.amountCents).toBe(cents);
  });

  it.each([
    ['M&amp;J &#x20AC;5 &#8364; &lt;&gt;', 'M&J €5 € <>'],
    ['M&J &copy;', 'M&J &copy;'],
    ['TAB&#9;IN', 'TAB\tIN'],
    ['&#x1F600;', '😀'],
  ])('OFX NAME %s decodes to %s', (name, text) => {
    expect(parseBankFile({ format: 'ofx', content: ofx(`<TRNAMT>-1.00\n<NAME>${name}`) }).lines[0]?.description).toBe(text);
  });

  it.each([
    ['&#xD800;', 'character reference "&#xD800;" is a surrogate, not a character'],
    ['&#55296;', 'character reference "&#55296;" is a surrogate, not a character'],
    ['&#xDFFF;', 'character reference "&#xDFFF;" is a surrogate, not a character'],
    ['&#x110000;', 'character reference "&#x110000;" is beyond U+10FFFF'],
    ['&#1114112;', 'character reference "&#1114112;" is beyond U+10FFFF'],
    ['&#99999999999;', 'malformed character reference "&#9999999999"'],
    ['&#0;', 'character reference "&#0;" is a control or bidi-override character, not allowed in text'],
    ['&#x1B;', 'character reference "&#x1B;" is a control or bidi-override character, not allowed in text'],
    ['&#13;', 'character reference "&#13;" is a control or bidi-override character, not allowed in text'],
    ['&#x85;', 'character reference "&#x85;" is a control or bidi-override character, not allowed in text'],
    ['&#x202E;', 'character reference "&#x202E;" is a control or bidi-override character, not allowed in text'],
    ['&#x2066;', 'character reference "&#x2066;" is a control or bidi-override character, not allowed in text'],
    ['&#x;', 'malformed character reference "&#x;"'],
    ['&#12a;', 'malformed character reference "&#12a;"'],
    ['&#', 'malformed character reference "&#B"'],
  ])('OFX NAME with %s is refused naming the field and line', (ref, message) => {
    const e = parseError(() => parseBankFile({ format: 'ofx', content: ofx(`<TRNAMT>-1.00\n<NAME>A${ref}B`) }));
    expect([e.line, e.message]).toEqual([8, `NAME: ${message}`]);
  });

  it('MEMO is decoded (and checked) only when it stands in for a missing NAME', () => {
    expect(parseBankFile({ format: 'ofx', content: ofx('<TRNAMT>-1.00\n<NAME>OK\n<MEMO>&#0;') }).lines[0]?.description).toBe('OK');
    expect(parseError(() => parseBankFile({ format: 'ofx', content: ofx('<TRNAMT>-1.00\n<MEMO>&#0;') })).message).toContain('MEMO: ');
  });

  it('an OFX STMTTRN that is never closed is refused, not skipped', () => {
    const unclosed = ofx('<TRNAMT>-1.00').replace('</STMTTRN>', '');
    expect(parseError(() => parseBankFile({ format: 'ofx', content: unclosed })).message).toBe('STMTTRN is not closed by </STMTTRN>');
    const nested = ofx('<TRNAMT>-1.00').replace('</STMTTRN>', '<STMTTRN>');
    expect(parseError(() => parseBankFile({ format: 'ofx', content: nested })).message).toBe(
      'STMTTRN is not closed before the next STMTTRN',
    );
  });

  it.each([
    ['ofx', undefined, (n: number) => ofx('<TRNAMT>-1.00\n<NAME>X').replace(/<STMTTRN>[\s\S]*<\/STMTTRN>\n/, (b) => b.repeat(n)), 5],
    ['qif', undefined, (n: number) => `!Type:Bank\n${'D01/06/26\nT1.00\n^\n'.repeat(n)}`, 2],
    ['csv', 'anz', (n: number) => '01/06/26,1.00,X\n'.repeat(n), 1],
    [
      'csv',
      'nab',
      (n: number) => `Date,Amount,Account Number,,Transaction Type,Transaction Details,Balance\n${'03 Aug 26,1.00,1,,X,Y,\n'.repeat(n)}`,
      2,
    ],
    ['csv', 'westpac_col', (n: number) => `TRAN_DATE,CLOSING_BAL,AMOUNT,NARRATIVE,SERIAL\n${'20260601,,1.00,X,\n'.repeat(n)}`, 2],
  ] as const)(
    '%s (%s): the line cap is checked while parsing: max lines parse, max + 1 is refused naming the cap',
    (format, bank, body, firstLine) => {
      expect(parseBankFile({ format, bank, content: body(3) }, 3).lines).toHaveLength(3);
      const e = parseError(() => parseBankFile({ format, bank, content: body(4) }, 3));
      expect(e.message).toBe('the file has more than 3 statement lines; import at most 3 at a time');
      const perLine = { ofx: 5, qif: 3, csv: 1 }[format];
      expect(e.line).toBe(firstLine + 3 * perLine);
    },
  );

  it('a headerless CSV that is neither CommBank nor ANZ is not guessed', () => {
    const content = '01/07/2026,-10.00,FEE,x,y\r\n';
    expect(detectCsvLayout(csvRecords(content))).toBeNull();
    expect(parseError(() => parseBankFile({ format: 'csv', content })).message).toContain('give file.bank');
  });

  it('a CSV with a header of its own is refused naming every layout file.bank accepts, with how its rows look', () => {
    const content = 'Date,Amount,Description\r\n01/07/2026,-10.00,FEE\r\n';
    const e = parseError(() => parseBankFile({ format: 'csv', content }));
    expect(e.line).toBe(1);
    expect(e.message).toMatch(/^the CSV layout was not recognised; give file\.bank, one of: /);
    // Every layout the field accepts, each with its rows; and nothing else offered as a layout.
    for (const layout of reconciliation.BANK_LAYOUTS) expect(e.message).toContain(`${layout} (`);
    const offered = [...e.message.matchAll(/(?:one of: |; )([a-z_]+) \(/g)].map((m) => m[1]);
    expect(offered).toEqual([...reconciliation.BANK_LAYOUTS]);
    expect(e.message).toContain('westpac (Westpac Live, header Date, Narrative, Debit Amount, Credit Amount, Balance, Serial)');
    expect(e.message).toContain('cba (CommBank, no header: date, amount, description, balance)');
    expect(e.message).toContain('send its rows as lines');
    // Each layout named parses a file of its shape when given as file.bank.
    const samples: Record<string, string> = {
      cba: '01/07/2026,-10.00,FEE,+5.00\n',
      anz: '01/07/2026,-10.00,FEE\n',
      westpac: 'Date,Narrative,Debit Amount,Credit Amount,Balance,Serial\n01/07/2026,FEE,10.00,,,\n',
      westpac_col: 'TRAN_DATE,CLOSING_BAL,AMOUNT,NARRATIVE,SERIAL\n20260701,,-10.00,FEE,\n',
      nab: 'Date,Amount,Transaction Details,Balance\n01 Jul 26,-10.00,FEE,\n',
    };
    for (const bank of reconciliation.BANK_LAYOUTS) {
      expect(
        parseBankFile({ format: 'csv', bank, content: samples[bank] ?? '' }).lines.map((l) => l.amountCents),
        bank,
      ).toEqual([-1000]);
    }
  });

  it('refusals name the physical line and the problem', () => {
    const cba = read('cba_netbank.csv').split('\r\n');
    cba[4] = '25/13/2026,"+5000.00","Transfer","+1.00"';
    let e = parseError(() => parseBankFile({ format: 'csv', bank: 'cba', content: cba.join('\r\n') }));
    expect([e.line, e.message]).toEqual([5, 'date "25/13/2026" is not a real calendar date']);
    cba[4] = '25/09/2026,"+5,00.00","Transfer","+1.00"';
    e = parseError(() => parseBankFile({ format: 'csv', bank: 'cba', content: cba.join('\r\n') }));
    expect([e.line, e.message]).toEqual([5, 'amount "+5,00.00" is not an amount of money']);
    e = parseError(() => parseBankFile({ format: 'csv', bank: 'anz', content: read('cba_netbank.csv') }));
    expect(e.message).toBe('expected 3 fields (date, amount, description), found 4');
    e = parseError(() => parseBankFile({ format: 'ofx', content: read('statement_ddmmyy.qif') }));
    expect(e.message).toContain('not an OFX file');
    e = parseError(() => parseBankFile({ format: 'qif', content: '!Type:Bank\nD01/06/26\nT1.00\nPX\n' }));
    expect(e.message).toBe('the last record is not ended by ^');
    e = parseError(() => parseBankFile({ format: 'qif', content: '!Type:Bank\nD01/06/26\nT1.00\nT2.00\n^\n' }));
    expect([e.line, e.message]).toEqual([4, 'the record has a second T line (is a ^ missing?)']);
    expect(parseBankFile({ format: 'qif', content: '!Type:Bank\nD01/06/26\nU9.00\nT2.00\nU3.00\n^\n' }).lines[0]?.amountCents).toBe(200);
    e = parseError(() => parseBankFile({ format: 'qif', content: '!Type:Invst\n' }));
    expect(e.message).toContain('expected !Type:Bank');
    e = parseError(() => parseBankFile({ format: 'csv', bank: 'westpac', content: 'Date,Amount\r\n' }));
    expect(e.message).toBe('the header has no "Narrative" column');
  });

  it.each(['-12.00', '+12.00', '$-12.00'])(
    'Westpac Live: a signed %s in an unsigned column is refused, never turned into money in',
    (amount) => {
      const head = 'Bank Account,Date,Narrative,Debit Amount,Credit Amount,Balance,Categories,Serial\r\n';
      const content = `${head}034702458921,30/10/2026,REFUND?,${amount},,"7,524.24",FEE,\r\n`;
      const e = parseError(() => parseBankFile({ format: 'csv', bank: 'westpac', content }));
      expect([e.line, e.message]).toEqual([2, 'Debit Amount: must be unsigned; the column gives the direction']);
    },
  );

  it('any text in any format gives lines or a ParseError, never another error (no RangeError from a character reference)', () => {
    const piece = fc.constantFrom(
      '<STMTTRN>',
      '</STMTTRN>',
      '<DTPOSTED>20261101',
      '<TRNAMT>',
      '-.50',
      '$-1',
      '<NAME>',
      '&#',
      '&#x',
      'D800',
      '110000',
      ';',
      '&amp;',
      '&#x110000;',
      '&#1114112;',
      '&#xD800;',
      '&#0;',
      '\n',
      '\r\n',
      ',',
      '"',
      '^',
      'D01/02/26',
      'T1,000.00',
      '01/02/26',
      '!Type:Bank\n',
      'x',
      '9',
      '\u0000',
      '\ud800',
    );
    const text = fc.array(piece, { maxLength: 60 }).map((a) => a.join(''));
    const heads = fc.constantFrom(
      '',
      'OFXHEADER:100\n<BANKTRANLIST>',
      '<?OFX ?>',
      '!Type:Bank\n',
      'OFXHEADER:100\n<STMTTRN><DTPOSTED>20261101<TRNAMT>1<NAME>',
    );
    const tails = fc.constantFrom('', '</STMTTRN>', '\n^\n');
    fc.assert(
      fc.property(fc.constantFrom<BankFile['format']>('csv', 'ofx', 'qif'), heads, text, tails, (format, head, body, tail) => {
        try {
          const parsed = parseBankFile({ format, content: head + body + tail }, 50);
          for (const l of parsed.lines) expect(Number.isSafeInteger(l.amountCents)).toBe(true);
        } catch (e) {
          if (!(e instanceof ParseError)) throw e;
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('quoted fields keep commas, doubled quotes and newlines', () => {
    const recs = csvRecords('a,"b, c","say ""hi""","two\nlines"\r\nx,y,z,w\n');
    expect(recs).toEqual([
      { fields: ['a', 'b, c', 'say "hi"', 'two\nlines'], line: 1 },
      { fields: ['x', 'y', 'z', 'w'], line: 3 },
    ]);
  });

  it('CSV records: line endings, BOM, blank lines, stray quotes and the physical line each record starts on', () => {
    const at = (content: string, max?: number) => csvRecords(content, max).map((r) => [r.line, ...r.fields]);
    // CRLF, LF and CR mixed in one file; a leading BOM is not part of the first field.
    expect(at('\ufeffa,b\rc\r\nd\ne')).toEqual([
      [1, 'a', 'b'],
      [2, 'c'],
      [3, 'd'],
      [4, 'e'],
    ]);
    // Empty lines are no records but still count as lines; a line of spaces or commas is a record.
    expect(at('\n\n a \n\n,\n')).toEqual([
      [3, ' a '],
      [5, '', ''],
    ]);
    // A line holding only "" is a record of one empty field (not a blank line), which a layout then refuses.
    expect(at('""\nx\n')).toEqual([
      [1, ''],
      [2, 'x'],
    ]);
    // A quote inside an unquoted field is a character; text after a closing quote stays, quotes and all.
    expect(at('ab"c,d"e,  "x",y\n"ab"cd,e\n')).toEqual([
      [1, 'ab"c', 'd"e', '  "x"', 'y'],
      [2, '"ab"cd', 'e'],
    ]);
    // A CRLF or CR inside a quoted field is kept; only its LF counts as a physical line.
    expect(at('"a\r\nb"\r\nc\r\n"x\ry"\rz')).toEqual([
      [1, 'a\r\nb'],
      [3, 'c'],
      [4, 'x\ry'],
      [5, 'z'],
    ]);
    // An unclosed quote is refused naming the line its record starts on...
    const e = parseError(() => csvRecords('a\n\n"open\nmore\n'));
    expect([e.line, e.message]).toEqual([3, 'a quoted field is not closed']);
    // ...unless it lies after the records asked for: reading stops there.
    expect(at('a\nb\n\nc\n"open', 3)).toEqual([
      [1, 'a'],
      [2, 'b'],
      [4, 'c'],
    ]);
  });

  it('CSV records: any fields written the RFC 4180 way read back, each with the physical line it starts on', () => {
    const field = fc.array(fc.constantFrom('a', ' ', ',', '"', '\r', '\n', '\r\n', '9'), { maxLength: 5 }).map((a) => a.join(''));
    const record = fc.array(field, { minLength: 1, maxLength: 4 }).filter((r) => !(r.length === 1 && r[0] === ''));
    const ending = fc.constantFrom('\r\n', '\n', '\r');
    const quote = (f: string) => (/[",\r\n]/.test(f) ? `"${f.replaceAll('"', '""')}"` : f);
    fc.assert(
      fc.property(fc.array(fc.tuple(record, ending, fc.nat(2)), { maxLength: 8 }), (rows) => {
        let content = '';
        let line = 1;
        const expected: (string | number)[][] = [];
        for (const [fields, end, blanks] of rows) {
          expected.push([line, ...fields]);
          content += fields.map(quote).join(',') + end + end.repeat(blanks);
          line += fields.join('').split('\n').length - 1 + 1 + blanks;
        }
        expect(csvRecords(content).map((r) => [r.line, ...r.fields])).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('de-duplication of an import', () => {
  const exportDuplicates = (name: string) =>
    (EXPECTED[name]?.annotations ?? []).flatMap((a) => {
      const dup = a.kinds.find((k) => k.startsWith('exportDuplicateOf:'));
      return dup ? [{ index: a.index, duplicateOf: Number(dup.split(':')[1]) }] : [];
    });

  it.each(FILES)('%s: export duplicates found where the file gives evidence', (name, format, bank) => {
    const parsed = parseBankFile({ format, bank, content: read(name) });
    const plan = planImport(parsed.lines, parsed.closingBalanceByDate);
    const expected = exportDuplicates(name);
    expect(expected).toHaveLength(1);
    const evidence = name.startsWith('anz') || name.endsWith('.qif') ? 'none' : 'balance, reference or closing balance';
    if (evidence === 'none') {
      // ANZ and QIF carry no balance and no reference: the repeat is kept and reported.
      expect(plan.skipped).toEqual([]);
      expect(plan.possibleDuplicates).toEqual(expected.map((d) => ({ index: d.index, sameAs: d.duplicateOf })));
      expect(plan.keep).toHaveLength(parsed.lines.length);
    } else {
      expect(plan.skipped).toEqual(expected.map((d) => ({ ...d, reason: 'export_duplicate' })));
      expect(plan.possibleDuplicates).toEqual([]);
      expect(plan.keep).toHaveLength(parsed.lines.length - 1);
    }
  });

  it('genuine repeats (different running balance) are both kept with occurrences 0 and 1', () => {
    const coffee = { date: '2026-11-02', amountCents: -550, description: 'CAFE' };
    const plan = planImport([
      { ...coffee, balanceCents: 10_000 },
      { ...coffee, balanceCents: 9_450 },
    ]);
    expect(plan.skipped).toEqual([]);
    expect(plan.keep.map((k) => k.occurrence)).toEqual([0, 1]);
    expect(plan.possibleDuplicates).toEqual([]);
    const [a, b] = plan.keep.map((k) => fingerprint('1000', k.line, k.occurrence));
    expect(a).not.toBe(b);
  });

  it('the fingerprint ignores case and spacing of the description, and the balance', () => {
    const l = { date: '2026-11-02', amountCents: -550, description: ' Cafe  Brookvale ' };
    expect(fingerprint('1000', l, 0)).toBe(fingerprint('1000', { ...l, description: 'CAFE BROOKVALE', balanceCents: 5 }, 0));
    expect(fingerprint('1000', l, 0)).not.toBe(fingerprint('1010', l, 0));
    expect(fingerprint('1000', l, 0)).not.toBe(fingerprint('1000', { ...l, reference: 'X' }, 0));
  });

  it('zero-amount rows are skipped and listed', () => {
    const plan = planImport([{ date: '2026-11-02', amountCents: 0, description: 'INFO' }]);
    expect(plan.skipped).toEqual([{ index: 0, reason: 'zero_amount', duplicateOf: null }]);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AbaError, abaTotals, balancingPayment, buildAba, type AbaBatch, type AbaPayment } from '../src/adapters/aba.js';
import { parseAba } from './aba-parse.js';

const fixture = (name: string) => new URL(`./fixtures/aba/${name}`, import.meta.url);

interface InputJson {
  descriptive: AbaBatch['descriptive'];
  trace: AbaBatch['trace'];
  remitterName: string;
  payments: AbaPayment[];
  expectedTotals: {
    creditTotalCents: number;
    debitTotalCents: number;
    netTotalCents: number;
    detailRecordCount: number;
    fileBytes: number;
  };
}

function load(name: string): { input: InputJson; batch: AbaBatch; bytes: Buffer } {
  const input = JSON.parse(readFileSync(fixture(`${name}.input.json`), 'utf8')) as InputJson;
  const batch: AbaBatch = {
    descriptive: input.descriptive,
    trace: input.trace,
    remitterName: input.remitterName,
    payments: input.payments,
  };
  return { input, batch, bytes: readFileSync(fixture(`${name}.aba`)) };
}

describe('ABA (Cemtex, BECS Direct Entry) generator', () => {
  it.each(['example_supplier_run', 'example_supplier_run_balanced'])('reproduces %s.aba byte for byte from its inputs', (name) => {
    const { input, batch, bytes } = load(name);
    const out = Buffer.from(buildAba(batch), 'latin1');
    expect(out.length).toBe(input.expectedTotals.fileBytes);
    expect(out.equals(bytes)).toBe(true);
    const { fileBytes: _bytes, ...totals } = input.expectedTotals;
    expect(abaTotals(batch.payments)).toEqual(totals);
  });

  it('the self-balancing record is a code-13 debit of the trace account for the credits', () => {
    const { batch } = load('example_supplier_run');
    const balanced = load('example_supplier_run_balanced');
    const extra = balancingPayment(batch, 'HARBOURSIDE JOINERY PTY LTD', 'CREDITORS 021026');
    expect(extra).toMatchObject({ bsb: '034-702', accountNumber: '458921', transactionCode: '13', amountCents: 1_446_017 });
    const out = buildAba({ ...batch, payments: [...batch.payments, extra] });
    expect(Buffer.from(out, 'latin1').equals(balanced.bytes)).toBe(true);
  });

  it('every field sits in its columns (FORMAT.md, read back by position)', () => {
    const { batch } = load('example_supplier_run');
    const f = parseAba(buildAba(batch));
    expect(f.descriptive).toEqual({
      recordType: '0',
      blank1: ' '.repeat(17),
      reelSequenceNumber: '01',
      financialInstitution: 'WBC',
      blank2: ' '.repeat(7),
      userName: 'HARBOURSIDE JOINERY'.padEnd(26),
      userIdNumber: '512734',
      entriesDescription: 'CREDITORS   ',
      processingDate: '021026',
      blank3: ' '.repeat(40),
    });
    // The first detail record as FORMAT.md spells it out field by field.
    expect(f.details[0]).toEqual({
      recordType: '1',
      bsb: '062-703',
      accountNumber: ' 11223344',
      indicator: ' ',
      transactionCode: '50',
      amount: '0001234567',
      accountTitle: 'COASTAL TIMBER SUPPLIES PTY LTD ',
      lodgementReference: 'CTS-89012         ',
      traceBsb: '034-702',
      traceAccountNumber: '   458921',
      remitterName: 'HARBOURSIDE JOIN',
      withholdingTax: '00000000',
    });
    expect(f.details[1]?.accountNumber).toBe('587412369');
    expect(f.total).toEqual({
      recordType: '7',
      bsbFiller: '999-999',
      blank1: ' '.repeat(12),
      netTotal: '0001446017',
      creditTotal: '0001446017',
      debitTotal: '0000000000',
      blank2: ' '.repeat(24),
      count: '000003',
      blank3: ' '.repeat(40),
    });
  });

  const base = load('example_supplier_run').batch;
  const pay0 = base.payments[0] as AbaPayment;
  const withPayment = (patch: Partial<AbaPayment>): AbaBatch => ({ ...base, payments: [{ ...pay0, ...patch }] });
  const cases: [string, AbaBatch, string][] = [
    ['a BSB without its hyphen', withPayment({ bsb: '062703' }), 'payments[0].bsb: must be a BSB of the form NNN-NNN'],
    ['letters in an account number', withPayment({ accountNumber: '1122A344' }), 'payments[0].accountNumber: must be 1 to 9 digits'],
    ['a ten-digit account number', withPayment({ accountNumber: '1234567890' }), 'payments[0].accountNumber: must be 1 to 9 digits'],
    ['an all-zero account number', withPayment({ accountNumber: '000000' }), 'payments[0].accountNumber: must not be all blanks or zeros'],
    ['a zero amount', withPayment({ amountCents: 0 }), 'payments[0].amountCents: must be an integer from 1 to 9999999999'],
    ['a fractional amount', withPayment({ amountCents: 12.5 }), 'payments[0].amountCents: must be an integer from 1'],
    ['an amount over ten digits', withPayment({ amountCents: 10_000_000_000 }), 'payments[0].amountCents: must be an integer from 1'],
    [
      'a character outside the set',
      withPayment({ accountTitle: 'CAFÉ DU MONDE' }),
      'payments[0].accountTitle: must use only letters, digits',
    ],
    ['a tilde', withPayment({ accountTitle: 'A~B' }), 'payments[0].accountTitle: must use only'],
    ['a title over 32', withPayment({ accountTitle: 'X'.repeat(33) }), 'payments[0].accountTitle: must be at most 32 characters'],
    ['a blank title', withPayment({ accountTitle: '   ' }), 'payments[0].accountTitle: must not be blank'],
    [
      'a reference starting with a zero',
      withPayment({ lodgementReference: '0123' }),
      'payments[0].lodgementReference: must not start with',
    ],
    [
      'a reference starting with a hyphen',
      withPayment({ lodgementReference: '-X' }),
      'payments[0].lodgementReference: must not start with',
    ],
    [
      'an unknown transaction code',
      withPayment({ transactionCode: '99' as AbaPayment['transactionCode'] }),
      'payments[0].transactionCode: must be one of',
    ],
    ['an unknown indicator', withPayment({ indicator: 'Q' }), 'payments[0].indicator: must be one of'],
    ['a bad trace BSB', { ...base, trace: { bsb: '34-702', accountNumber: '458921' } }, 'trace.bsb: must be a BSB'],
    ['a remitter over 16', { ...base, remitterName: 'HARBOURSIDE JOINERY' }, 'remitterName: must be at most 16 characters'],
    [
      'a bank that is not 3 capitals',
      { ...base, descriptive: { ...base.descriptive, financialInstitution: 'wbc' } },
      'descriptive.financialInstitution',
    ],
    [
      'a user id of 5 digits',
      { ...base, descriptive: { ...base.descriptive, userIdNumber: '51273' } },
      'descriptive.userIdNumber: must be 6 digits',
    ],
    [
      'a date that does not exist',
      { ...base, descriptive: { ...base.descriptive, processingDate: '2026-02-30' } },
      'descriptive.processingDate: must be a real date',
    ],
    [
      'a user name over 26',
      { ...base, descriptive: { ...base.descriptive, userName: 'U'.repeat(27) } },
      'descriptive.userName: must be at most 26',
    ],
    ['no payments', { ...base, payments: [] }, 'payments: must have at least 1 payment'],
    [
      'a batch total over ten digits',
      {
        ...base,
        payments: [
          { ...pay0, amountCents: 9_999_999_999 },
          { ...pay0, amountCents: 1 },
        ],
      },
      'creditTotalCents: must be an integer from 0 to 9999999999',
    ],
  ];
  it.each(cases)('refuses %s, naming the field', (_name, batch, message) => {
    let caught: unknown;
    try {
      buildAba(batch);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AbaError);
    expect((caught as Error).message).toContain(message);
  });
});

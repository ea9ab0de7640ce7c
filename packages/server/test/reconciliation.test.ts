import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, DEFAULT_TIME_ZONE, localDate } from '../src/clock.js';
import { accountBalanceCents } from '../src/domain/gl/post.js';
import { UNRECOGNISED_CSV } from '../src/domain/reconciliation/bank-csv.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, refusal, startTestServer, type TestServer } from './harness.js';
import { approvedBill, journalLines } from './payables-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

// The organisation's today: test organisations keep the default time zone (clock.ts).
const today = () => localDate(new Date().toISOString(), DEFAULT_TIME_ZONE);
const fixture = (name: string) => readFileSync(new URL(`./fixtures/bank/${name}`, import.meta.url), 'utf8');

/** Bank lines of a statement dated today (documents are issued today; a payment cannot precede them). */
const bankLine = (amountCents: number, description: string, extra: Record<string, unknown> = {}) => ({
  date: today(),
  amountCents,
  description,
  ...extra,
});

describe.each(engines)('reconciliation (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  const post = (method: string, params: unknown, o: CreatedOrg = org, headers: Record<string, string> = {}) =>
    t.post(o.keys.agent, method, params, headers);
  const events = async (o: CreatedOrg = org) => (await t.get(o.keys.observer, 'events?limit=500')).body.events as any[];
  const headSeq = async (o: CreatedOrg = org) => (await t.get(o.keys.observer, 'snapshot')).body.head.seq as number;
  const bank = (o: CreatedOrg = org) => accountBalanceCents(t.db.reader, o.orgId, '1000');
  const ok = (r: { status: number; body: any }) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };

  async function invoice(payeeName: string, totalCents: number, o: CreatedOrg = org): Promise<string> {
    const d = ok(await post('books.invoiceDraft', { payeeName, description: 'Joinery', totalCents, dueDays: 14 }, o));
    ok(await post('books.invoiceSend', { id: d.id }, o));
    return d.id;
  }

  async function claim(claimant: string, amountCents: number, o: CreatedOrg = org): Promise<string> {
    const c = ok(
      await post('books.expenseClaim', { claimant, description: 'Stationery', amountCents, spentOn: today(), receiptRef: 'photo 1' }, o),
    );
    ok(await post('books.expenseApprove', { id: c.id }, o));
    return c.id;
  }

  async function feed(lines: unknown[], o: CreatedOrg = org) {
    return ok(await post('books.feedLines', { lines }, o));
  }

  async function oneLine(amountCents: number, description: string, o: CreatedOrg = org): Promise<string> {
    const r = await feed([bankLine(amountCents, `${description} ${freshKey()}`)], o);
    return r.lineIds[0];
  }

  const journalOf = (id: string, o: CreatedOrg = org) =>
    t.db.reader.get<{ date: string; ledger_id: string; source_kind: string; source_id: string }>(
      'SELECT date, ledger_id, source_kind, source_id FROM journals WHERE org_id = ? AND id = ?',
      [o.orgId, id],
    );

  describe('books.feedLines', () => {
    it('imports JSON lines as unmatched lines, posts nothing, and records counts (never descriptions) in one event', async () => {
      const o = await t.org();
      const before = await headSeq(o);
      const r = await feed(
        [bankLine(12_345, 'PAYMENT FROM MS SECRET NAME'), bankLine(-1_000, 'ACCOUNT FEE', { reference: 'R1', balanceCents: 50 })],
        o,
      );
      expect(r).toMatchObject({
        accountCode: '1000',
        received: 2,
        imported: 2,
        duplicates: 0,
        skipped: [],
        possibleDuplicates: [],
        duplicateLineIds: [],
      });
      expect(r.lineIds).toHaveLength(2);
      expect(r.lineIds[0]).toMatch(/^bln_[0-9a-z]{26}$/);
      expect(r.importId).toMatch(/^imp_/);
      expect(await headSeq(o)).toBe(before + 1);
      const [event] = (await events(o)).slice(-1);
      expect(event).toMatchObject({ kind: 'books.feed.import', entity_id: r.importId });
      expect(event.payload).toMatchObject({ received: 2, imported: 2, duplicates: 0, inCents: 12_345, outCents: 1_000, source: 'lines' });
      expect(JSON.stringify(event.payload)).not.toContain('SECRET');
      expect(event.row_hash.slice(0, 8)).toBe(r.ledgerId);
      expect(await bank(o)).toBe(0); // nothing posted until matched or recoded
      const list = ok(await post('books.feedLinesList', { status: 'all' }, o));
      expect(list.lines.map((l: any) => [l.status, l.amountCents, l.reference, l.balanceCents, l.remainingCents])).toEqual([
        ['unmatched', 12_345, null, null, 12_345],
        ['unmatched', -1_000, 'R1', 50, 1_000],
      ]);
      expect(list.summary).toEqual({ accountCode: '1000', ledgerBalanceCents: 0, unreconciledLines: 2, unreconciledCents: 11_345 });
    });

    it('re-importing the same lines imports nothing new: a no-op with the first import’s ledgerId', async () => {
      const o = await t.org();
      const lines = [bankLine(500, 'CAFE'), bankLine(500, 'CAFE'), bankLine(-70, 'FEE')];
      const first = await feed(lines, o);
      // Two identical coffees on one day without a balance or reference are both kept (possible duplicates).
      expect(first).toMatchObject({ imported: 3, possibleDuplicates: [{ index: 1, sameAs: 0 }] });
      const seq = await headSeq(o);
      const again = await feed(lines, o);
      expect(again).toMatchObject({ importId: null, imported: 0, duplicates: 3, lineIds: [], ledgerId: first.ledgerId, noop: true });
      expect(again.duplicateLineIds).toEqual(first.lineIds);
      expect(await headSeq(o)).toBe(seq);
      // A third identical coffee in a later statement is a new line (occurrence 2 of the day).
      const more = await feed([...lines.slice(0, 2), bankLine(500, ' cafe ')], o);
      expect(more).toMatchObject({ imported: 1, duplicates: 2 });
    });

    const FILES: readonly [string, string, string | undefined, number, number, number][] = [
      // file, format, bank, rows, export duplicates skipped, possible duplicates kept
      ['cba_netbank.csv', 'csv', 'cba', 21, 1, 0],
      ['westpac_live.csv', 'csv', undefined, 19, 1, 0],
      ['nab_internet_banking.csv', 'csv', 'nab', 19, 1, 0],
      ['anz_internet_banking.csv', 'csv', 'anz', 18, 0, 1],
      ['westpac_corporate_online.csv', 'csv', undefined, 16, 1, 0],
      ['statement_ofx102.ofx', 'ofx', undefined, 17, 1, 0],
      ['statement_ofx220.ofx', 'ofx', undefined, 16, 1, 0],
      ['statement_ddmmyy.qif', 'qif', undefined, 16, 0, 1],
    ];

    it.each(FILES)('imports %s once; a second import is a no-op', async (name, format, bankName, rows, skipped, possible) => {
      const o = await t.org();
      const file = { format, content: fixture(name), ...(bankName ? { bank: bankName } : {}) };
      const r = ok(await post('books.feedLines', { file }, o));
      expect(r).toMatchObject({ received: rows, imported: rows - skipped, duplicates: 0 });
      expect(r.skipped).toHaveLength(skipped);
      expect(r.possibleDuplicates).toHaveLength(possible);
      const [event] = (await events(o)).slice(-1);
      expect(event.payload.source).toBe(
        format === 'csv' ? `csv:${bankName ?? (name.includes('corporate') ? 'westpac_col' : 'westpac')}` : format,
      );
      const again = ok(await post('books.feedLines', { file }, o));
      expect(again).toMatchObject({ imported: 0, duplicates: rows - skipped, noop: true, ledgerId: r.ledgerId });
    });

    it('takes 5000 lines in one call, not 5001', async () => {
      const o = await t.org();
      const lines = Array.from({ length: 5000 }, (_, i) => bankLine(i % 2 === 0 ? 100 + i : -(100 + i), `CARD ${i}`));
      const r = await feed(lines, o);
      expect(r).toMatchObject({ imported: 5000, duplicates: 0 });
      expect(r.suggestions).toEqual([]);
      const list = ok(await post('books.feedLinesList', { limit: 200 }, o));
      expect(list.lines.map((l: any) => l.description)).toEqual(lines.slice(0, 200).map((l) => l.description));
      expect(list.summary.unreconciledLines).toBe(5000);
      const over = await post('books.feedLines', { lines: [...lines, bankLine(1, 'one more')] }, o);
      expect(over.body.error.message).toBe('lines: must have at most 5000 lines');
    });

    it('bad input names every field and changes nothing', async () => {
      const seq = await headSeq();
      const cases: [unknown, string][] = [
        [
          { lines: [bankLine(0, 'x'), bankLine(5, '')] },
          'lines[0].amountCents: must not be 0 (+ money in, − money out); lines[1].description: must not be empty',
        ],
        [{ lines: [bankLine(5, 'x', { date: addDays(today(), 3) })] }, `lines[0].date: ${addDays(today(), 3)} is in the future`],
        [{}, 'lines: give either lines or file'],
        [{ lines: [bankLine(5, 'x')], file: { format: 'qif', content: 'x' } }, 'lines: give either lines or file'],
        [{ file: { format: 'ofx', bank: 'cba', content: 'x' } }, 'file.bank: is only for format csv'],
        [{ file: { format: 'xls', content: 'x' } }, 'file.format: must be one of csv, ofx, qif'],
        [
          { file: { format: 'csv', bank: 'cba', content: '31/02/2026,"-1.00","X","+1.00"\r\n' } },
          'file.content: line 1: date "31/02/2026" is not a real calendar date',
        ],
        [{ file: { format: 'csv', content: 'a,b\r\n' } }, `file.content: line 1: ${UNRECOGNISED_CSV}`],
        [{ accountCode: '1100', lines: [bankLine(5, 'x')] }, 'accountCode: account 1100 (Accounts receivable) is not a bank account'],
        [{ accountCode: '1999', lines: [bankLine(5, 'x')] }, 'accountCode: account 1999 does not exist'],
        [{ lines: [bankLine(5, 'x', { memo: 'y' })] }, 'lines[0].memo: unknown field'],
      ];
      for (const [params, message] of cases) {
        const r = await post('books.feedLines', params);
        expect(r.status, JSON.stringify(params)).toBe(400);
        expect(r.body.error).toEqual(refusal('BAD_REQUEST', message).error);
      }
      expect(await headSeq()).toBe(seq);
    });

    // Each body is ~1 MB; before the parsers were linear the OFX ones took 30 s+
    // (a line count from the file start per STMTTRN, a lazy regex from every unclosed STMTTRN).
    const OFX_HEAD = 'OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST>\n';
    const cap = 'the file has more than 5000 statement lines; import at most 5000 at a time';
    const hostile: [string, { format: string; bank?: string; content: string }, string][] = [
      [
        'OFX: 21,000 minimal STMTTRN blocks',
        { format: 'ofx', content: OFX_HEAD + '<STMTTRN><DTPOSTED>20260101<TRNAMT>1</STMTTRN>'.repeat(21_000) },
        `file.content: line 5: ${cap}`,
      ],
      [
        'OFX: 100,000 unclosed STMTTRN tags',
        { format: 'ofx', content: OFX_HEAD + '<STMTTRN>'.repeat(100_000) },
        'file.content: line 5: STMTTRN is not closed before the next STMTTRN',
      ],
      [
        'OFX: one STMTTRN, then 1 MB of unclosed leaf tags',
        { format: 'ofx', content: OFX_HEAD + '<STMTTRN>' + '<NAME>x<TRNAMT'.repeat(70_000) },
        'file.content: line 5: STMTTRN is not closed by </STMTTRN>',
      ],
      [
        'OFX: a 1 MB amount',
        { format: 'ofx', content: `${OFX_HEAD}<STMTTRN><DTPOSTED>20260101<TRNAMT>${'1'.repeat(990_000)}</STMTTRN>` },
        `file.content: line 5: TRNAMT "${'1'.repeat(30)}" is not an amount of money`,
      ],
      [
        'QIF: 55,000 records',
        { format: 'qif', content: `!Type:Bank\n${'D01/06/26\nT1\n^\n'.repeat(55_000)}` },
        `file.content: line 15002: ${cap}`,
      ],
      [
        'QIF: 1 MB of lines with no ^',
        { format: 'qif', content: `!Type:Bank\n${'D01/06/26\n'.repeat(90_000)}` },
        'file.content: line 3: the record has a second D line (is a ^ missing?)',
      ],
      ['CSV (ANZ detected): 60,000 rows', { format: 'csv', content: '01/06/26,-1,X\n'.repeat(60_000) }, `file.content: line 5001: ${cap}`],
      [
        'CSV (Westpac): a header and 60,000 rows',
        {
          format: 'csv',
          bank: 'westpac',
          content: `Date,Narrative,Debit Amount,Credit Amount,Balance,Serial\n${'01/06/2026,X,1,,,\n'.repeat(55_000)}`,
        },
        `file.content: line 5002: ${cap}`,
      ],
      [
        'CSV: a quoted field never closed',
        { format: 'csv', content: `01/06/26,-1,"${'x,'.repeat(490_000)}` },
        'file.content: line 1: a quoted field is not closed',
      ],
    ];

    it.each(hostile)('a hostile ~1 MB body is answered at once and changes nothing: %s', async (_name, file, message) => {
      expect(file.content.length).toBeLessThanOrEqual(1_000_000);
      expect(JSON.stringify({ file }).length).toBeGreaterThan(850_000);
      const seq = await headSeq();
      const r = await post('books.feedLines', { file });
      expect(r.status).toBe(400);
      expect(r.body.error).toEqual(refusal('BAD_REQUEST', message).error);
      expect(await headSeq()).toBe(seq);
    });

    it('a ~1 MB OFX of exactly 5000 transactions is parsed in full (the repeats are export duplicates)', async () => {
      const o = await t.org();
      const block = `<STMTTRN>\n<TRNTYPE>DEBIT\n<DTPOSTED>20260101\n<TRNAMT>-.50\n<FITID>F1\n<NAME>${'PADDED NAME '.repeat(8)}\n</STMTTRN>\n`;
      const content = `${OFX_HEAD}${block.repeat(5000)}</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n`;
      expect(content.length).toBeGreaterThan(850_000);
      const r = ok(await post('books.feedLines', { file: { format: 'ofx', content } }, o));
      expect(r).toMatchObject({ received: 5000, imported: 1 });
      expect(r.skipped).toHaveLength(4999);
    });

    it('a headerless ANZ export with 2-digit years and $ amounts is detected; OFX -.50 is 50 cents out', async () => {
      const o = await t.org();
      const anz = '03/10/24,"-$12.00","CARD PURCHASE"\r\n02/10/24,"$1,234.50","TRANSFER FROM J SMITH"\r\n01/10/24,$-0.50,FEE\r\n';
      const r = ok(await post('books.feedLines', { file: { format: 'csv', content: anz } }, o));
      expect(r).toMatchObject({ received: 3, imported: 3 });
      expect((await events(o)).slice(-1)[0].payload.source).toBe('csv:anz');
      const list = ok(await post('books.feedLinesList', { limit: 10 }, o));
      const got = list.lines.map((l: any) => [l.date, l.amountCents, l.description]).sort();
      expect(got).toEqual([
        ['2024-10-01', -50, 'FEE'],
        ['2024-10-02', 123_450, 'TRANSFER FROM J SMITH'],
        ['2024-10-03', -1_200, 'CARD PURCHASE'],
      ]);
      const ofx = `${OFX_HEAD}<STMTTRN><DTPOSTED>20241004<TRNAMT>-.50<FITID>A<NAME>FEE &#x20AC;</STMTTRN>\n<STMTTRN><DTPOSTED>20241004<TRNAMT>+.50<FITID>B<NAME>REFUND</STMTTRN>\n</BANKTRANLIST>`;
      expect(ok(await post('books.feedLines', { file: { format: 'ofx', content: ofx } }, o))).toMatchObject({ imported: 2 });
      const after = ok(await post('books.feedLinesList', { limit: 10 }, o));
      const fee = after.lines.find((l: any) => l.reference === 'A');
      expect([fee.amountCents, fee.description]).toEqual([-50, 'FEE €']);
      expect(after.lines.find((l: any) => l.reference === 'B').amountCents).toBe(50);
    });

    it.each([
      ['&#xD800;', 'is a surrogate, not a character'],
      ['&#55296;', 'is a surrogate, not a character'],
      ['&#x110000;', 'is beyond U+10FFFF'],
      ['&#0;', 'is a control or bidi-override character, not allowed in text'],
      ['&#x202E;', 'is a control or bidi-override character, not allowed in text'],
    ])('an OFX character reference %s is BAD_REQUEST naming NAME and its line; nothing stored', async (ref, problem) => {
      const seq = await headSeq();
      const content = `${OFX_HEAD}<STMTTRN><DTPOSTED>20241004<TRNAMT>-1.00\n<NAME>PAY ${ref} X</STMTTRN>\n</BANKTRANLIST>`;
      const r = await post('books.feedLines', { file: { format: 'ofx', content } });
      expect(r.status).toBe(400);
      expect(r.body.error).toEqual(refusal('BAD_REQUEST', `file.content: line 6: NAME: character reference "${ref}" ${problem}`).error);
      expect(await headSeq()).toBe(seq);
    });

    it('a malformed OFX character reference is BAD_REQUEST naming NAME', async () => {
      const content = `${OFX_HEAD}<STMTTRN><DTPOSTED>20241004<TRNAMT>-1.00<NAME>PAY &#x; X</STMTTRN>\n</BANKTRANLIST>`;
      const r = await post('books.feedLines', { file: { format: 'ofx', content } });
      expect(r.body.error).toEqual(refusal('BAD_REQUEST', 'file.content: line 5: NAME: malformed character reference "&#x;"').error);
    });

    it('suggests open invoices for money in and bills and claims for money out, best first', async () => {
      const o = await t.org();
      const inv = await invoice('Coastal Cafe Group', 374_000, o);
      const other = await invoice('Baker St Dental', 88_000, o);
      const bill = (
        await approvedBill(t, o, { payeeName: 'Northside Hardware', description: 'Fixings', totalCents: 78_500, payeeReference: 'NH-2101' })
      ).id;
      const cl = await claim('Mia Chen', 8_745, o);
      const r = await feed(
        [
          bankLine(374_000, `DEPOSIT ONLINE COASTAL CAFE GROUP ${inv}`),
          bankLine(50_000, 'DIRECT CREDIT BAKER ST DENTAL PART PAYMENT'),
          bankLine(-78_500, 'INTERNET TRANSFER NORTHSIDE HARDWARE NH-2101'),
          bankLine(-8_745, 'TRANSFER TO M CHEN'),
          bankLine(-1_000, 'ACCOUNT KEEPING FEE'),
        ],
        o,
      );
      const byLine = new Map(r.suggestions.map((s: any) => [s.lineId, s.candidates]));
      const top = (i: number) => (byLine.get(r.lineIds[i]) as any[] | undefined)?.[0];
      expect(top(0)).toMatchObject({
        kind: 'invoice',
        id: inv,
        score: 100,
        reasons: ['amount', 'reference', 'payee'],
        outstandingCents: 374_000,
      });
      expect(top(1)).toMatchObject({ kind: 'invoice', id: other, score: 35, reasons: ['partial_amount', 'payee'] });
      expect(top(2)).toMatchObject({ kind: 'bill', id: bill, score: 100, reasons: ['amount', 'reference', 'payee'] });
      expect(top(3)).toMatchObject({ kind: 'claim', id: cl, score: 67, reasons: ['amount', 'payee'] });
      expect(byLine.has(r.lineIds[4])).toBe(false); // a bank fee matches nothing
      const listed = ok(await post('books.feedLinesList', { limit: 2 }, o));
      expect(listed.lines).toHaveLength(2);
      expect(listed.lines[0].suggestions[0]).toEqual(top(0));
      const rest = ok(await post('books.feedLinesList', { limit: 10, cursor: listed.nextCursor, suggestions: false }, o));
      expect(rest.lines.map((l: any) => l.id)).toEqual(r.lineIds.slice(2));
      expect(rest.lines[0].suggestions).toEqual([]);
      expect(rest.nextCursor).toBeNull();
    });

    it('a reader may list lines; writing needs books.write', async () => {
      expect((await t.post(org.keys.reader, 'books.feedLinesList', {})).status).toBe(200);
      const r = await t.post(org.keys.reader, 'books.feedLines', { lines: [bankLine(5, 'x')] });
      expect(r.status).toBe(403);
      expect(r.body.error.message).toBe('missing scope books.write for books.feedLines');
      expect((await t.post(org.keys.reader, 'books.feedLinesList', { cursor: 'nope' })).body.error.message).toBe(
        'cursor: must be the nextCursor of a previous page',
      );
    });
  });

  describe('books.matchAccept', () => {
    it('a line smaller than the invoice is a part payment: Dr 1000 / Cr 1100 dated the line, one event naming the journal', async () => {
      const inv = await invoice('Baker St Dental', 88_000);
      const line = await oneLine(50_000, 'DIRECT CREDIT BAKER ST DENTAL');
      const before = await bank();
      const r = ok(await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: inv } }));
      expect(r).toMatchObject({
        lineId: line,
        status: 'matched',
        message: null,
        document: { kind: 'invoice', id: inv, status: 'part_paid', outstandingCents: 38_000 },
        match: { kind: 'invoice', targetId: inv, amountCents: 50_000 },
      });
      expect(r.line).toMatchObject({ status: 'matched', matchedCents: 50_000, remainingCents: 0, ledgerId: r.ledgerId });
      expect(await bank()).toBe(before + 50_000);
      const j = r.match.journalId;
      expect(await journalLines(t, org.orgId, j)).toEqual([
        expect.objectContaining({ account_code: '1000', debit_cents: 50_000, credit_cents: 0, doc_id: null }),
        expect.objectContaining({ account_code: '1100', debit_cents: 0, credit_cents: 50_000, doc_id: inv }),
      ]);
      expect(await journalOf(j)).toMatchObject({ date: today(), ledger_id: r.ledgerId });
      const [event] = (await events()).slice(-1);
      expect(event).toMatchObject({ kind: 'books.match.accept', entity_id: line });
      expect(event.payload).toMatchObject({
        journalId: j,
        targetKind: 'invoice',
        targetId: inv,
        amountCents: 50_000,
        outstandingCents: 38_000,
      });
      const inv2 = ok(await post('books.invoices', { payeeName: 'Baker St' })).invoices.find((i: any) => i.id === inv);
      expect(inv2).toMatchObject({ status: 'part_paid', outstandingCents: 38_000 });

      const seq = await headSeq();
      const again = ok(await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: inv } }));
      expect(again).toMatchObject({ noop: true, ledgerId: r.ledgerId, status: 'matched', match: r.match });
      expect(await headSeq()).toBe(seq);
      const other = await invoice('Someone Else', 10_000);
      const clash = await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: other } });
      expect(clash.status).toBe(409);
      expect(clash.body.error.message).toBe(`bank line ${line} is matched (50000 cents to invoice ${inv}); nothing is left to match`);
      const diff = await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: inv }, amountCents: 100 });
      expect(diff.status).toBe(409);
    });

    it('one payment of two invoices: amountCents applies part of the line to each', async () => {
      const a = await invoice('M&J Renovations', 60_500);
      const b = await invoice('M&J Renovations', 60_500);
      const line = await oneLine(121_000 - 30_000, 'DEPOSIT M&J RENOVATIONS'); // 91,000: below the floor
      const tooMuch = await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: a } });
      expect(tooMuch.status).toBe(400);
      expect(tooMuch.body.error.message).toBe(
        `amountCents: 91000 is more than the 60500 cents outstanding on invoice ${a}; give amountCents to apply part of the line`,
      );
      const first = ok(await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: a }, amountCents: 60_500 }));
      expect(first).toMatchObject({ status: 'part_matched', document: { status: 'paid', outstandingCents: 0 } });
      expect(first.line).toMatchObject({ matchedCents: 60_500, remainingCents: 30_500 });
      const over = await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: b }, amountCents: 40_000 });
      expect(over.body.error.message).toBe(`amountCents: 40000 is more than the 30500 cents left to match on bank line ${line}`);
      const second = ok(await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: b } }));
      expect(second).toMatchObject({ status: 'matched', document: { status: 'part_paid', outstandingCents: 30_000 } });
      expect(second.line.matches.map((m: any) => [m.targetId, m.amountCents])).toEqual([
        [a, 60_500],
        [b, 30_500],
      ]);
    });

    it('money out pays an approved bill (Dr 2000 / Cr 1000) or an expense claim (Dr 2500 / Cr 1000)', async () => {
      const bill = (await approvedBill(t, org, { payeeName: 'Coastal Timber', description: 'Decking', totalCents: 39_800 })).id;
      const line = await oneLine(-39_800, 'BPAY COASTAL TIMBER');
      const r = ok(await post('books.matchAccept', { lineId: line, target: { kind: 'bill', id: bill } }));
      expect(r).toMatchObject({ status: 'matched', document: { kind: 'bill', status: 'paid', outstandingCents: 0 } });
      expect(await journalLines(t, org.orgId, r.match.journalId)).toEqual([
        expect.objectContaining({ account_code: '2000', debit_cents: 39_800, doc_id: bill }),
        expect.objectContaining({ account_code: '1000', credit_cents: 39_800 }),
      ]);
      const cl = await claim('Sam Lee', 4_560);
      const cline = await oneLine(-4_560, 'TRANSFER TO S LEE');
      const c = ok(await post('books.matchAccept', { lineId: cline, target: { kind: 'claim', id: cl } }));
      expect(c.document).toEqual({ kind: 'claim', id: cl, status: 'paid', outstandingCents: 0 });
      expect(await journalLines(t, org.orgId, c.match.journalId)).toEqual([
        expect.objectContaining({ account_code: '2500', debit_cents: 4_560, doc_id: cl }),
        expect.objectContaining({ account_code: '1000', credit_cents: 4_560 }),
      ]);
    });

    it('a payment already recorded is matched to its journal: the line is reconciled and nothing is posted again', async () => {
      const o = await t.org();
      const inv = await invoice('Tidewater Property', 20_900, o);
      const paid = ok(await post('books.invoiceRecordPayment', { id: inv, amountCents: 20_900 }, o));
      const r = await feed([bankLine(20_900, 'DEPOSIT TIDEWATER PROPERTY')], o);
      const [candidate] = r.suggestions[0].candidates;
      expect(candidate).toMatchObject({ kind: 'journal', id: paid.journalId, score: 75, reasons: ['amount', 'payee'] });
      const before = await bank(o);
      const m = ok(await post('books.matchAccept', { lineId: r.lineIds[0], target: { kind: 'journal', id: paid.journalId } }, o));
      expect(m).toMatchObject({
        status: 'matched',
        match: { kind: 'journal', journalId: paid.journalId },
        document: { status: 'reconciled', outstandingCents: 0 },
      });
      expect(await bank(o)).toBe(before);
      const again = await feed([bankLine(20_900, 'ANOTHER DEPOSIT TIDEWATER')], o);
      expect(again.suggestions).toEqual([]); // the journal is accounted for
      const late = await post('books.matchAccept', { lineId: again.lineIds[0], target: { kind: 'journal', id: paid.journalId } }, o);
      expect(late.status).toBe(409);
      expect(late.body.error.message).toBe(`journal ${paid.journalId} is reconciled with nothing outstanding; there is nothing to match`);
    });

    it('refusals: wrong direction, unknown rows, another organisation’s line, a paid invoice', async () => {
      const inv = await invoice('Direction Test', 5_000);
      const out = await oneLine(-5_000, 'OUT');
      const wrong = await post('books.matchAccept', { lineId: out, target: { kind: 'invoice', id: inv } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.message).toBe(
        `target.kind: bank line ${out} is money out; match it to a bill, a claim, or a journal that paid money`,
      );
      const missing = await post('books.matchAccept', { lineId: 'bln_nope', target: { kind: 'invoice', id: inv } });
      expect([missing.status, missing.body.error.message]).toEqual([404, 'bank line bln_nope not found']);
      const noInv = await post('books.matchAccept', { lineId: out, target: { kind: 'bill', id: 'bill_nope' } });
      expect([noInv.status, noInv.body.error.message]).toEqual([404, 'bill bill_nope not found']);
      const other = await t.org();
      const foreign = await post('books.matchAccept', { lineId: out, target: { kind: 'invoice', id: inv } }, other);
      expect(foreign.status).toBe(404);
      const bad = await post('books.matchAccept', { lineId: out, target: { kind: 'order', id: 'x' }, amountCents: 0 });
      expect(bad.body.error.message).toBe(
        'target.kind: must be one of invoice, bill, claim, journal; amountCents: must be an integer greater than 0',
      );
      ok(await post('books.invoiceRecordPayment', { id: inv, amountCents: 5_000 }));
      const inLine = await oneLine(5_000, 'IN');
      const paid = await post('books.matchAccept', { lineId: inLine, target: { kind: 'invoice', id: inv } });
      expect([paid.status, paid.body.error.message]).toEqual([
        409,
        `invoice ${inv} is paid with nothing outstanding; there is nothing to match`,
      ]);
      expect((await t.post(org.keys.reader, 'books.matchAccept', { lineId: inLine, target: { kind: 'invoice', id: inv } })).status).toBe(
        403,
      );
      // A disputed bill is not paid, and a big line is not held for it either.
      const bill = (await approvedBill(t, org, { payeeName: 'Disputed Supplies', description: 'x', totalCents: 250_000 })).id;
      ok(await post('books.billHold', { id: bill, reason: 'Short delivery' }));
      const bigOut = await oneLine(-250_000, 'DISPUTED SUPPLIES');
      const onHold = await post('books.matchAccept', { lineId: bigOut, target: { kind: 'bill', id: bill } });
      expect([onHold.status, onHold.body.error.message]).toEqual([
        409,
        `bill ${bill} is on_hold; only an approved bill can take a payment`,
      ]);
    });

    it('a line above the materiality floor is held, not matched; the same call again is a no-op, another target CONFLICT', async () => {
      const inv = await invoice('Big Customer', 374_000);
      const line = await oneLine(374_000, 'DEPOSIT BIG CUSTOMER');
      const before = await bank();
      const r = ok(await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: inv } }));
      expect(r).toMatchObject({ status: 'held', match: null, document: { id: inv, status: 'sent', outstandingCents: 374_000 } });
      expect(r.line.held).toEqual({ kind: 'invoice', targetId: inv, amountCents: 374_000 });
      expect(r.message).toContain('above the materiality floor ($1,000.00)');
      expect(r.message).toContain('books.matchHoldResolve');
      expect(await bank()).toBe(before);
      const [event] = (await events()).slice(-1);
      expect(event).toMatchObject({
        kind: 'books.match.hold',
        entity_id: line,
        payload: { amountCents: 374_000, materialityFloorCents: 100_000 },
      });
      const seq = await headSeq();
      const again = ok(await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: inv } }));
      expect(again).toMatchObject({ status: 'held', noop: true, ledgerId: r.ledgerId });
      expect(await headSeq()).toBe(seq);
      const other = await invoice('Big Customer', 374_000);
      const clash = await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: other } });
      expect(clash.status).toBe(409);
      expect(clash.body.error.message).toBe(
        `bank line ${line} is held for a human decision (374000 cents to invoice ${inv}); complete or change the match with books.matchHoldResolve`,
      );
    });

    it('a held line cannot be recoded by the agent: CONFLICT naming the hold, nothing changes; a human proof still matches it', async () => {
      const inv = await invoice('Held Recode Pty Ltd', 250_000);
      const line = await oneLine(250_000, 'DEPOSIT HELD RECODE');
      const params = { lineId: line, target: { kind: 'invoice', id: inv } };
      expect(ok(await post('books.matchAccept', params)).status).toBe('held');
      const before = await bank();
      const seq = await headSeq();
      const recode = await post('books.lineRecode', { lineId: line, accountCode: '4200' });
      expect(recode.status).toBe(409);
      expect(recode.body.error.code).toBe('CONFLICT');
      expect(recode.body.error.message).toBe(
        `bank line ${line} is held for a human decision (250000 cents to invoice ${inv}, above the materiality floor); it cannot be recoded. ` +
          'Only books.matchHoldResolve with a human approval (approvalId or signatureToken for books.match_hold_resolve) releases it',
      );
      expect(await headSeq()).toBe(seq);
      expect(await bank()).toBe(before);
      const still = (await t.post(org.keys.reader, 'books.feedLinesList', { status: 'held' })).body.result.lines.find(
        (l: any) => l.id === line,
      );
      expect(still).toMatchObject({ status: 'held', held: { kind: 'invoice', targetId: inv, amountCents: 250_000 } });
      // The way out is the signature act, with a human's proof.
      const { approvalId } = await heldAndRequested(t, org, 'books.matchHoldResolve', params);
      await decide(t, org, approvalId, true);
      const done = ok(await post('books.matchHoldResolve', { ...params, approvalId }, org, { 'x-idempotency-key': freshKey() }));
      expect(done).toMatchObject({ status: 'matched', document: { status: 'paid' } });
    });
  });

  describe('refusals change nothing', () => {
    it('a line dated before a bill or claim was approved cannot pay it; the aged report of that day still adds up', async () => {
      const o = await t.org();
      const bill = (await approvedBill(t, o, { payeeName: 'Early Timber', description: 'Decking', totalCents: 12_300 })).id;
      const cl = await claim('Kim Early', 2_200, o);
      const yesterday = addDays(today(), -1);
      const lines = (
        await feed(
          [
            { date: yesterday, amountCents: -12_300, description: `EARLY TIMBER ${freshKey()}` },
            { date: yesterday, amountCents: -2_200, description: `K EARLY ${freshKey()}` },
          ],
          o,
        )
      ).lineIds as string[];
      const before = await headSeq(o);
      const cases: [string, string, string][] = [
        [lines[0]!, 'bill', `lineId: bank line ${lines[0]} of ${yesterday} is dated before bill ${bill} was approved (${today()})`],
        [lines[1]!, 'claim', `lineId: bank line ${lines[1]} of ${yesterday} is dated before expense claim ${cl} was approved (${today()})`],
      ];
      for (const [lineId, kind, message] of cases) {
        const r = await post('books.matchAccept', { lineId, target: { kind, id: kind === 'bill' ? bill : cl } }, o);
        expect(r.status).toBe(400);
        expect(r.body).toEqual(refusal('BAD_REQUEST', message));
      }
      expect(await headSeq(o)).toBe(before);
      const listed = ok(await t.post(o.keys.reader, 'books.feedLinesList', { status: 'all' })).lines as any[];
      expect(listed.flatMap((l) => l.suggestions.map((x: any) => x.id))).toEqual([]);
      const aged = ok(await t.post(o.keys.reader, 'books.reports', { type: 'aged_payables', asOf: yesterday }));
      expect([aged.totals.totalCents, aged.controlAccount.balanceCents]).toEqual([0, 0]);
    });

    it('over-allocating a bill or a claim is BAD_REQUEST naming amountCents with what is outstanding, as for an invoice', async () => {
      const o = await t.org();
      const bill = (await approvedBill(t, o, { payeeName: 'Coastal Timber', description: 'Decking', totalCents: 39_800 })).id;
      const cl = await claim('Sam Lee', 4_560, o);
      const billLine = await oneLine(-50_000, 'BPAY COASTAL TIMBER', o);
      const claimLine = await oneLine(-5_000, 'TRANSFER TO S LEE', o);
      const before = await headSeq(o);
      const bankBefore = await bank(o);
      const cases: [Record<string, unknown>, string][] = [
        [
          { lineId: billLine, target: { kind: 'bill', id: bill } },
          `amountCents: 50000 is more than the 39800 cents outstanding on bill ${bill}; give amountCents to apply part of the line`,
        ],
        [
          { lineId: billLine, target: { kind: 'bill', id: bill }, amountCents: 39_801 },
          `amountCents: 39801 is more than the 39800 cents outstanding on bill ${bill}`,
        ],
        [
          { lineId: claimLine, target: { kind: 'claim', id: cl } },
          `amountCents: 5000 is more than the 4560 cents outstanding on expense claim ${cl}; give amountCents to apply part of the line`,
        ],
        [
          { lineId: claimLine, target: { kind: 'claim', id: cl }, amountCents: 4_561 },
          `amountCents: 4561 is more than the 4560 cents outstanding on expense claim ${cl}`,
        ],
      ];
      for (const method of ['books.matchAccept', 'books.matchHoldResolve']) {
        for (const [params, message] of cases) {
          const r = await post(method, params, o);
          expect(r.status, `${method} ${JSON.stringify(params)}`).toBe(400);
          expect(r.body).toEqual(refusal('BAD_REQUEST', message));
        }
      }
      expect(await headSeq(o)).toBe(before);
      expect(await bank(o)).toBe(bankBefore);
      const bills = ok(await t.post(o.keys.reader, 'books.bills', {})).bills;
      expect(bills.map((b: any) => [b.id, b.status, b.outstandingCents])).toEqual([[bill, 'approved', 39_800]]);
      // The exact amount is accepted: the line is part matched, the bill paid.
      const m = ok(await post('books.matchAccept', { lineId: billLine, target: { kind: 'bill', id: bill }, amountCents: 39_800 }, o));
      expect(m).toMatchObject({ status: 'part_matched', document: { kind: 'bill', status: 'paid', outstandingCents: 0 } });
    });

    it('illegal states are CONFLICT naming the state; no event, no posting', async () => {
      const o = await t.org();
      const inv = await invoice('State Co', 5_000, o);
      const other = await invoice('State Co', 5_000, o);
      const matched = await oneLine(5_000, 'DEPOSIT STATE CO', o);
      ok(await post('books.matchAccept', { lineId: matched, target: { kind: 'invoice', id: inv } }, o));
      const recoded = await oneLine(-300, 'FEE', o);
      ok(await post('books.lineRecode', { lineId: recoded, accountCode: '6300' }, o));
      const cl = await claim('Sam Lee', 300, o);
      const before = await headSeq(o);
      const bankBefore = await bank(o);
      const cases: [string, Record<string, unknown>, string][] = [
        [
          'books.matchAccept',
          { lineId: matched, target: { kind: 'invoice', id: other } },
          `bank line ${matched} is matched (5000 cents to invoice ${inv}); nothing is left to match`,
        ],
        [
          'books.matchHoldResolve',
          { lineId: matched, target: { kind: 'invoice', id: other } },
          `bank line ${matched} is matched (5000 cents to invoice ${inv}); nothing is left to match`,
        ],
        [
          'books.matchAccept',
          { lineId: matched, target: { kind: 'invoice', id: inv }, amountCents: 100 },
          `bank line ${matched} already applies 5000 cents to invoice ${inv}; a line is applied to a document once`,
        ],
        [
          'books.matchAccept',
          { lineId: recoded, target: { kind: 'claim', id: cl } },
          `bank line ${recoded} is recoded to account 6300; only an unmatched or part_matched line can be matched`,
        ],
        [
          'books.lineRecode',
          { lineId: matched, accountCode: '4200' },
          `bank line ${matched} is matched with 5000 cents applied to documents; only a line with nothing applied (unmatched or recoded) can be recoded`,
        ],
      ];
      for (const [method, params, message] of cases) {
        const r = await post(method, params, o);
        expect(r.status, `${method} ${JSON.stringify(params)}`).toBe(409);
        expect(r.body).toEqual(refusal('CONFLICT', message));
      }
      expect(await headSeq(o)).toBe(before);
      expect(await bank(o)).toBe(bankBefore);
    });

    it('another organisation’s line or claim is NOT_FOUND for every write that names one', async () => {
      const o = await t.org();
      const line = await oneLine(-1_000, 'FEE', o);
      const cl = await claim('Mia Chen', 1_000, o);
      const before = await headSeq();
      const cases: [string, Record<string, unknown>, string][] = [
        ['books.matchAccept', { lineId: line, target: { kind: 'claim', id: cl } }, `bank line ${line} not found`],
        ['books.matchHoldResolve', { lineId: line, target: { kind: 'claim', id: cl } }, `bank line ${line} not found`],
        ['books.lineRecode', { lineId: line, accountCode: '6300' }, `bank line ${line} not found`],
        [
          'books.receiptsRegister',
          { contentBase64: 'QUJD', filename: 'r.pdf', mimeType: 'application/pdf', lineId: line },
          `bank line ${line} not found`,
        ],
        [
          'books.receiptsRegister',
          { contentBase64: 'QUJD', filename: 'r.pdf', mimeType: 'application/pdf', claimId: cl },
          `expense claim ${cl} not found`,
        ],
      ];
      for (const [method, params, message] of cases) {
        const r = await post(method, params);
        expect(r.body, method).toEqual(refusal('NOT_FOUND', message));
      }
      expect(await headSeq()).toBe(before);
      expect(ok(await post('books.feedLinesList', { status: 'all' })).lines.map((l: any) => l.id)).not.toContain(line);
    });

    it('books.feedLinesList: a bad query names the field; a reader pages by cursor', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ status: 'open' }, 'status: must be one of unreconciled, all, unmatched, part_matched, held, matched, recoded'],
        [{ limit: 0 }, 'limit: must be an integer from 1 to 200'],
        [{ limit: 201 }, 'limit: must be an integer from 1 to 200'],
        [{ from: '2026-7-1' }, 'from: must be a date YYYY-MM-DD'],
        [{ suggestions: 'no' }, 'suggestions: must be a boolean'],
        [{ accountCode: 'bank' }, 'accountCode: must be an account code (3 to 6 digits)'],
        [{ page: 2 }, 'page: unknown field'],
      ];
      for (const [params, message] of cases) {
        const r = await t.post(org.keys.reader, 'books.feedLinesList', params);
        expect(r.status, JSON.stringify(params)).toBe(400);
        expect(r.body).toEqual(refusal('BAD_REQUEST', message));
      }
      const o = await t.org();
      const ids = (await feed([bankLine(100, 'A'), bankLine(200, 'B'), bankLine(300, 'C')], o)).lineIds;
      const p1 = ok(await t.post(o.keys.reader, 'books.feedLinesList', { limit: 2 }));
      expect(p1.lines.map((l: any) => l.id)).toEqual(ids.slice(0, 2));
      const p2 = ok(await t.post(o.keys.reader, 'books.feedLinesList', { limit: 2, cursor: p1.nextCursor }));
      expect(p2).toMatchObject({ lines: [{ id: ids[2] }], nextCursor: null });
    });
  });

  describe('books.matchHoldResolve', () => {
    it('above the floor: the hold frame, a human approves, the retry with the proof matches; the proof is single-use', async () => {
      const inv = await invoice('Coastal Cafe Group', 374_000);
      const line = await oneLine(374_000, 'DEPOSIT COASTAL CAFE GROUP');
      ok(await post('books.matchAccept', { lineId: line, target: { kind: 'invoice', id: inv } }));
      const params = { lineId: line, target: { kind: 'invoice', id: inv } };
      const { hold, approvalId } = await heldAndRequested(t, org, 'books.matchHoldResolve', params);
      expect(hold.approval.actionClass).toBe('books.match_hold_resolve');
      expect(hold.subjectId).toBe(line);
      expect(hold.approval.subject.summary).toBe(
        `Match bank line ${line} (${today()}, money in $3,740.00, ${JSON.stringify((await post('books.feedLinesList', {})).body.result.lines.find((l: any) => l.id === line).description)}) ` +
          `to invoice ${inv} ("Coastal Cafe Group"): apply $3,740.00 of $3,740.00 outstanding`,
      );
      const early = await post('books.matchHoldResolve', { ...params, approvalId }, org, { 'x-idempotency-key': freshKey() });
      expect(early.status).toBe(423);
      await decide(t, org, approvalId, true);
      const before = await bank();
      const done = ok(await post('books.matchHoldResolve', { ...params, approvalId }, org, { 'x-idempotency-key': freshKey() }));
      expect(done).toMatchObject({ status: 'matched', document: { status: 'paid', outstandingCents: 0 } });
      expect(done.line.held).toBeNull();
      expect(await bank()).toBe(before + 374_000);
      const [event] = (await events()).slice(-1);
      expect(event).toMatchObject({
        kind: 'books.match.resolve',
        entity_id: line,
        payload: { approvalId, journalId: done.match.journalId },
      });
      const reuse = await post('books.matchHoldResolve', { ...params, approvalId }, org, { 'x-idempotency-key': freshKey() });
      expect(reuse.status).toBe(409);
      expect(reuse.body.error.message).toContain('already used');
      const seq = await headSeq();
      const replay = ok(await post('books.matchHoldResolve', params));
      expect(replay).toMatchObject({ noop: true, ledgerId: done.ledgerId });
      expect(await headSeq()).toBe(seq);
    });

    it('a denied approval never completes it; a different target is a different approval', async () => {
      const inv = await invoice('Denied Co', 200_000);
      const line = await oneLine(200_000, 'DEPOSIT DENIED CO');
      const params = { lineId: line, target: { kind: 'invoice', id: inv } };
      const { approvalId } = await heldAndRequested(t, org, 'books.matchHoldResolve', params);
      await decide(t, org, approvalId, false, 'not this invoice');
      const r = await post('books.matchHoldResolve', { ...params, approvalId }, org, { 'x-idempotency-key': freshKey() });
      expect([r.status, r.body.error.code]).toEqual([423, 'GOVERNANCE_NOT_READY']);
      const other = await invoice('Denied Co', 200_000);
      const wrong = await post('books.matchHoldResolve', { lineId: line, target: { kind: 'invoice', id: other }, approvalId }, org, {
        'x-idempotency-key': freshKey(),
      });
      expect(wrong.status).toBe(409);
      expect(wrong.body.error.message).toContain('bound to another payload');
    });

    it('at or below the floor it matches at once; with no decision rights an above-floor match is refused', async () => {
      const inv = await invoice('Small Co', 100_000);
      const line = await oneLine(100_000, 'DEPOSIT SMALL CO'); // exactly the floor: not above it
      const r = ok(await post('books.matchHoldResolve', { lineId: line, target: { kind: 'invoice', id: inv } }));
      expect(r).toMatchObject({ status: 'matched', document: { status: 'paid' } });
      const nobody = await t.org(undefined, { decisionRights: false });
      const big = await invoice('Big Co', 150_000, nobody);
      const bigLine = await oneLine(150_000, 'DEPOSIT BIG CO', nobody);
      const refused = await post('books.matchHoldResolve', { lineId: bigLine, target: { kind: 'invoice', id: big } }, nobody);
      expect([refused.status, refused.body.error.code]).toEqual([423, 'GOVERNANCE_NOT_READY']);
      const bad = await post('books.matchHoldResolve', {
        lineId: bigLine,
        target: { kind: 'invoice', id: big },
        approvalId: 'apr_x',
        signatureToken: 't',
      });
      expect(bad.body.error.message).toBe('signatureToken: give either approvalId or signatureToken, not both');
    });

    it('a recoded line cannot be resolved into a match; a reader cannot call it', async () => {
      const inv = await invoice('Recoded Co', 300_000);
      const line = await oneLine(300_000, 'DEPOSIT RECODED CO');
      ok(await post('books.lineRecode', { lineId: line, accountCode: '4200', taxCode: 'GST' }));
      const seq = await headSeq();
      const r = await post('books.matchHoldResolve', { lineId: line, target: { kind: 'invoice', id: inv } });
      expect([r.status, r.body.error.message]).toEqual([
        409,
        `bank line ${line} is recoded to account 4200; only an unmatched or part_matched line can be matched`,
      ]);
      expect(await headSeq()).toBe(seq); // refused before any hold is recorded
      const reader = await t.post(org.keys.reader, 'books.matchHoldResolve', { lineId: line, target: { kind: 'invoice', id: inv } });
      expect(reader.body.error).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope books.write for books.matchHoldResolve' });
    });
  });

  describe('books.lineRecode', () => {
    it('a bank fee: Dr 6300 / Cr 1000 dated the line, input taxed by default; each call is a new act', async () => {
      const line = await oneLine(-1_000, 'ACCOUNT KEEPING FEE');
      const before = await bank();
      const r = ok(await post('books.lineRecode', { lineId: line, accountCode: '6300' }));
      expect(r).toMatchObject({
        status: 'recoded',
        accountCode: '6300',
        taxCode: 'INPUT_TAXED_EXPENSE',
        gstCents: 0,
        reversedJournalId: null,
      });
      expect(r.line.recode).toEqual({ accountCode: '6300', taxCode: 'INPUT_TAXED_EXPENSE', gstCents: 0, journalId: r.journalId });
      expect(await journalLines(t, org.orgId, r.journalId)).toEqual([
        expect.objectContaining({
          account_code: '6300',
          debit_cents: 1_000,
          tax_code: 'INPUT_TAXED_EXPENSE',
          tax_base_cents: 1_000,
          gst_cents: 0,
        }),
        expect.objectContaining({ account_code: '1000', credit_cents: 1_000, tax_code: null }),
      ]);
      expect(await journalOf(r.journalId)).toMatchObject({
        date: today(),
        source_kind: 'feed_recode',
        source_id: line,
        ledger_id: r.ledgerId,
      });
      expect(await bank()).toBe(before - 1_000);
      const seq = await headSeq();
      const again = ok(await post('books.lineRecode', { lineId: line, accountCode: '6300' }));
      expect(again.ledgerId).not.toBe(r.ledgerId);
      expect(again.reversedJournalId).toBe(r.journalId);
      expect(await headSeq()).toBe(seq + 1);
      expect(await bank()).toBe(before - 1_000);
      expect((await events()).at(-1)).toMatchObject({
        kind: 'books.line.recode',
        payload: { reversedJournalId: r.journalId, journalId: again.journalId },
      });
      const reader = await t.post(org.keys.reader, 'books.lineRecode', { lineId: line, accountCode: '6300' });
      expect(reader.status).toBe(403);
      const key = freshKey();
      const first = ok(await post('books.lineRecode', { lineId: line, accountCode: '6300' }, org, { 'x-idempotency-key': key }));
      const replay = await post('books.lineRecode', { lineId: line, accountCode: '6300' }, org, { 'x-idempotency-key': key });
      expect(replay.body).toEqual({ ok: true, code: 'IDEMPOTENT_REPLAY', result: first });
    });

    it('a card purchase with GST, recoded to another account: the first coding is reversed with its tags', async () => {
      const line = await oneLine(-8_745, 'OFFICEWORKS 0612 BROOKVALE');
      const r = ok(
        await post('books.lineRecode', { lineId: line, accountCode: '6600', taxCode: 'GST_ON_EXPENSES', description: 'Printer paper' }),
      );
      expect(r.gstCents).toBe(795);
      expect(await journalLines(t, org.orgId, r.journalId)).toEqual([
        expect.objectContaining({
          account_code: '6600',
          debit_cents: 7_950,
          tax_code: 'GST_ON_EXPENSES',
          tax_base_cents: 8_745,
          gst_cents: 795,
        }),
        expect.objectContaining({ account_code: '1200', debit_cents: 795 }),
        expect.objectContaining({ account_code: '1000', credit_cents: 8_745 }),
      ]);
      const gstBefore = await accountBalanceCents(t.db.reader, org.orgId, '1200');
      const again = ok(await post('books.lineRecode', { lineId: line, accountCode: '6000', taxCode: 'GST_FREE_EXPENSES' }));
      expect(await journalLines(t, org.orgId, again.reversalJournalId)).toEqual([
        expect.objectContaining({ account_code: '6600', credit_cents: 7_950, tax_base_cents: -8_745, gst_cents: -795 }),
        expect.objectContaining({ account_code: '1200', credit_cents: 795 }),
        expect.objectContaining({ account_code: '1000', debit_cents: 8_745 }),
      ]);
      expect(await accountBalanceCents(t.db.reader, org.orgId, '1200')).toBe(gstBefore - 795);
      expect(await journalLines(t, org.orgId, again.journalId)).toEqual([
        expect.objectContaining({
          account_code: '6000',
          debit_cents: 8_745,
          tax_code: 'GST_FREE_EXPENSES',
          tax_base_cents: 8_745,
          gst_cents: 0,
        }),
        expect.objectContaining({ account_code: '1000', credit_cents: 8_745 }),
      ]);
    });

    it('money in with a purchase code is a refund: tags negative; with a sale code GST goes to 2100', async () => {
      const refund = await oneLine(12_900, 'REVERSAL CARD AMAZON');
      const r = ok(await post('books.lineRecode', { lineId: refund, accountCode: '6600', taxCode: 'GST_ON_EXPENSES' }));
      expect(await journalLines(t, org.orgId, r.journalId)).toEqual([
        expect.objectContaining({ account_code: '1000', debit_cents: 12_900 }),
        expect.objectContaining({ account_code: '6600', credit_cents: 11_727, tax_base_cents: -12_900, gst_cents: -1_173 }),
        expect.objectContaining({ account_code: '1200', credit_cents: 1_173 }),
      ]);
      const sale = await oneLine(5_500, 'CASH SALE');
      const s = ok(await post('books.lineRecode', { lineId: sale, accountCode: '4000', taxCode: 'GST' }));
      expect(await journalLines(t, org.orgId, s.journalId)).toEqual([
        expect.objectContaining({ account_code: '1000', debit_cents: 5_500 }),
        expect.objectContaining({ account_code: '4000', credit_cents: 5_000, tax_base_cents: 5_500, gst_cents: 500 }),
        expect.objectContaining({ account_code: '2100', credit_cents: 500 }),
      ]);
    });

    it('refusals: control accounts, unknown accounts, the line’s own bank, GST accounts with a GST code, a matched line', async () => {
      const line = await oneLine(-2_000, 'SOMETHING');
      const cases: [Record<string, unknown>, unknown][] = [
        [
          { accountCode: '1100' },
          'accountCode: account 1100 (Accounts receivable) is a control account; match money in to the invoice with books.matchAccept, or credit the invoice',
        ],
        [
          { accountCode: '2000' },
          'accountCode: account 2000 (Accounts payable) is a control account; match money out to the bill with books.matchAccept',
        ],
        [{ accountCode: '9999' }, 'accountCode: account 9999 does not exist'],
        [{ accountCode: '1000' }, 'accountCode: 1000 is the bank account the line is on'],
        [
          { accountCode: '1200', taxCode: 'GST_ON_EXPENSES' },
          'accountCode: account 1200 (GST paid (input tax credits)) is a GST account; post to it only with taxCode BAS_EXCLUDED',
        ],
        [{ accountCode: '6100', taxCode: 'BAS_EXCLUDED_WAGES' }, expect.stringContaining('taxCode: must be one of GST, EXPORT')],
        [{ accountCode: '60' }, 'accountCode: must be an account code (3 to 6 digits)'],
      ];
      const seq = await headSeq();
      for (const [extra, message] of cases) {
        const r = await post('books.lineRecode', { lineId: line, ...extra });
        expect(r.status, JSON.stringify(extra)).toBe(400);
        expect(r.body.error.message).toEqual(message);
      }
      expect(await headSeq()).toBe(seq);
      const bill = (await approvedBill(t, org, { payeeName: 'Recode Refusal Pty Ltd', description: 'x', totalCents: 2_000 })).id;
      ok(await post('books.matchAccept', { lineId: line, target: { kind: 'bill', id: bill } }));
      const matched = await post('books.lineRecode', { lineId: line, accountCode: '6000' });
      expect(matched.status).toBe(409);
      expect(matched.body.error.message).toBe(
        `bank line ${line} is matched with 2000 cents applied to documents; only a line with nothing applied (unmatched or recoded) can be recoded`,
      );
      const back = await post('books.matchAccept', { lineId: await recodedLine(), target: { kind: 'bill', id: bill } });
      expect(back.status).toBe(409);
      expect(back.body.error.message).toMatch(/is recoded to account 6300; only an unmatched or part_matched line can be matched$/);
    });

    async function recodedLine() {
      const l = await oneLine(-300, 'FEE');
      ok(await post('books.lineRecode', { lineId: l, accountCode: '6300' }));
      return l;
    }
  });

  describe('books.journalPost', () => {
    it('posts a balanced journal; a GST-coded line is split into net and GST', async () => {
      const r = ok(
        await post('books.journalPost', {
          date: today(),
          memo: 'Owner paid for a printer personally',
          lines: [
            { accountCode: '6600', debitCents: 33_000, taxCode: 'GST_ON_EXPENSES', description: 'Printer' },
            { accountCode: '3000', creditCents: 33_000 },
          ],
        }),
      );
      expect(r.journalId).toMatch(/^jnl_/);
      expect(r.totalCents).toBe(33_000);
      expect(r.lines).toEqual([
        {
          accountCode: '6600',
          debitCents: 30_000,
          creditCents: 0,
          taxCode: 'GST_ON_EXPENSES',
          taxBaseCents: 33_000,
          gstCents: 3_000,
          description: 'Printer',
        },
        {
          accountCode: '3000',
          debitCents: 0,
          creditCents: 33_000,
          taxCode: null,
          taxBaseCents: 0,
          gstCents: 0,
          description: 'Owner paid for a printer personally',
        },
        {
          accountCode: '1200',
          debitCents: 3_000,
          creditCents: 0,
          taxCode: null,
          taxBaseCents: 0,
          gstCents: 0,
          description: 'GST: Owner paid for a printer personally',
        },
      ]);
      expect(await journalOf(r.journalId)).toMatchObject({ source_kind: 'manual', ledger_id: r.ledgerId });
      expect((await events()).at(-1)).toMatchObject({
        kind: 'books.journal.post',
        entity_id: r.journalId,
        payload: { totalCents: 33_000, lineCount: 3, accounts: ['1200', '3000', '6600'] },
      });
    });

    it('GST is rounded once per journal and side, shared back to the lines', async () => {
      const r = ok(
        await post('books.journalPost', {
          date: today(),
          memo: 'Two purchases',
          lines: [
            { accountCode: '6600', debitCents: 5, taxCode: 'GST_ON_EXPENSES' },
            { accountCode: '6700', debitCents: 5, taxCode: 'GST_ON_EXPENSES' },
            { accountCode: '3000', creditCents: 10 },
          ],
        }),
      );
      // 10 cents GST-inclusive: GST 1 cent (rounded once), not 0 + 0 per line.
      expect(r.lines.map((l: any) => [l.accountCode, l.debitCents, l.creditCents, l.gstCents])).toEqual([
        ['6600', 4, 0, 1],
        ['6700', 5, 0, 0],
        ['3000', 0, 10, 0],
        ['1200', 1, 0, 0],
      ]);
    });

    it('refusals name the field: unbalanced, unknown or control account, both sides, future date', async () => {
      const seq = await headSeq();
      const cases: [unknown, string][] = [
        [
          {
            date: today(),
            memo: 'x',
            lines: [
              { accountCode: '6000', debitCents: 100 },
              { accountCode: '3000', creditCents: 90 },
            ],
          },
          'lines: debits (100) must equal credits (90)',
        ],
        [
          {
            date: today(),
            memo: 'x',
            lines: [
              { accountCode: '6000', debitCents: 100 },
              { accountCode: '3999', creditCents: 50 },
              { accountCode: '1100', creditCents: 50 },
            ],
          },
          'lines[1].accountCode: account 3999 does not exist; lines[2].accountCode: account 1100 (Accounts receivable) is a control account; match money in to the invoice with books.matchAccept, or credit the invoice',
        ],
        [
          {
            date: today(),
            memo: 'x',
            lines: [
              { accountCode: '6000', debitCents: 100, creditCents: 100 },
              { accountCode: '3000', creditCents: 100 },
            ],
          },
          'lines[0].debitCents: give exactly one of debitCents and creditCents',
        ],
        [{ date: today(), memo: 'x', lines: [{ accountCode: '6000', debitCents: 100 }] }, 'lines: must have at least 2 lines'],
        [
          {
            date: addDays(today(), 2),
            memo: 'x',
            lines: [
              { accountCode: '6000', debitCents: 1 },
              { accountCode: '3000', creditCents: 1 },
            ],
          },
          `date: ${addDays(today(), 2)} is in the future; post it on or after that day`,
        ],
        [
          {
            date: today(),
            memo: '',
            lines: [
              { accountCode: '6000', debitCents: -1 },
              { accountCode: '3000', creditCents: 1 },
            ],
          },
          'memo: must not be empty; lines[0].debitCents: must be an integer greater than 0',
        ],
      ];
      for (const [params, message] of cases) {
        const r = await post('books.journalPost', params);
        expect(r.status, message).toBe(400);
        expect(r.body.error.message).toBe(message);
      }
      expect(await headSeq()).toBe(seq);
      expect((await t.post(org.keys.reader, 'books.journalPost', {})).status).toBe(403);
    });

    it('each call is a new journal; the same idempotency key replays the first', async () => {
      const params = {
        date: today(),
        memo: 'Loan drawn',
        lines: [
          { accountCode: '1000', debitCents: 500_000 },
          { accountCode: '3000', creditCents: 500_000 },
        ],
      };
      const a = ok(await post('books.journalPost', params));
      const b = ok(await post('books.journalPost', params));
      expect(a.journalId).not.toBe(b.journalId);
      const key = freshKey();
      const c = await post('books.journalPost', params, org, { 'x-idempotency-key': key });
      const d = await post('books.journalPost', params, org, { 'x-idempotency-key': key });
      expect(d.body).toEqual({ ok: true, code: 'IDEMPOTENT_REPLAY', result: c.body.result });
    });
  });

  describe('books.receiptsRegister', () => {
    const bytes = Buffer.from('%PDF-1.4 receipt from Officeworks, total $87.45 incl GST');
    const contentBase64 = bytes.toString('base64');
    const sha256 = createHash('sha256').update(bytes).digest('hex');

    it('stores the bytes with their hash; the same bytes again are a no-op; a new link is a new event', async () => {
      const o = await t.org();
      const r = ok(await post('books.receiptsRegister', { contentBase64, filename: 'officeworks.pdf', mimeType: 'application/pdf' }, o));
      expect(r).toMatchObject({ sha256, sizeBytes: bytes.length, mimeType: 'application/pdf', filename: 'officeworks.pdf', links: [] });
      expect(r.id).toMatch(/^rcpt_/);
      const [event] = (await events(o)).slice(-1);
      expect(event).toMatchObject({
        kind: 'books.receipt.register',
        entity_id: r.id,
        payload: { sha256, sizeBytes: bytes.length, mimeType: 'application/pdf' },
      });
      expect(JSON.stringify(event)).not.toContain(contentBase64.slice(0, 20));
      expect(JSON.stringify(event)).not.toContain('officeworks.pdf');
      const stored = await t.db.reader.get<{ content_base64: string }>('SELECT content_base64 FROM receipts WHERE org_id = ? AND id = ?', [
        o.orgId,
        r.id,
      ]);
      expect(Buffer.from(stored?.content_base64 ?? '', 'base64')).toEqual(bytes);
      const seq = await headSeq(o);
      const again = ok(await post('books.receiptsRegister', { contentBase64, filename: 'other-name.pdf', mimeType: 'application/pdf' }, o));
      expect(again).toMatchObject({ id: r.id, noop: true, ledgerId: r.ledgerId, filename: 'officeworks.pdf' });
      expect(await headSeq(o)).toBe(seq);
      const line = await oneLine(-8_745, 'OFFICEWORKS', o);
      const linked = ok(
        await post('books.receiptsRegister', { contentBase64, filename: 'officeworks.pdf', mimeType: 'application/pdf', lineId: line }, o),
      );
      expect(linked).toMatchObject({ id: r.id, links: [{ kind: 'line', id: line }] });
      expect(linked.noop).toBeUndefined();
      expect((await events(o)).at(-1)).toMatchObject({ kind: 'books.receipt.link', payload: { linkKind: 'line', linkId: line } });
      const twice = ok(
        await post('books.receiptsRegister', { contentBase64, filename: 'x.pdf', mimeType: 'application/pdf', lineId: line }, o),
      );
      expect(twice).toMatchObject({ noop: true, ledgerId: linked.ledgerId });
      const cl = await claim('Mia Chen', 8_745, o);
      const withClaim = ok(
        await post(
          'books.receiptsRegister',
          { contentBase64: Buffer.from('another').toString('base64'), filename: 'b.jpg', mimeType: 'image/jpeg', claimId: cl },
          o,
        ),
      );
      expect(withClaim.links).toEqual([{ kind: 'claim', id: cl }]);
    });

    it('refusals: not base64, too large, a path as file name, unknown line or claim, both links', async () => {
      const seq = await headSeq();
      const big = Buffer.alloc(700 * 1024 + 1).toString('base64');
      const cases: [Record<string, unknown>, number, string][] = [
        [{ contentBase64: 'not base64!' }, 400, 'contentBase64: must be base64 (A–Z a–z 0–9 + /, padded with =)'],
        [{ contentBase64: 'QR==' }, 400, 'contentBase64: must be canonical base64 (its padding bits must be 0)'],
        [{ contentBase64: 'QUJ' }, 400, 'contentBase64: must be base64 (A–Z a–z 0–9 + /, padded with =)'],
        [{ contentBase64: '' }, 400, 'contentBase64: must not be empty'],
        [{ contentBase64: big }, 400, 'contentBase64: decodes to 716801 bytes; at most 716800'],
        [{ filename: '../etc/passwd' }, 400, 'filename: must be a file name without / \\ or control characters'],
        [{ mimeType: 'PDF' }, 400, 'mimeType: must be a MIME type such as image/jpeg or application/pdf'],
        [{ lineId: 'bln_nope' }, 404, 'bank line bln_nope not found'],
        [{ claimId: 'clm_nope' }, 404, 'expense claim clm_nope not found'],
        [{ lineId: 'a', claimId: 'b' }, 400, 'claimId: give lineId or claimId, not both'],
      ];
      for (const [extra, status, message] of cases) {
        const r = await post('books.receiptsRegister', { contentBase64, filename: 'r.pdf', mimeType: 'application/pdf', ...extra });
        expect(r.status, message).toBe(status);
        expect(r.body.error.message).toBe(message);
      }
      expect(await headSeq()).toBe(seq);
      expect(
        (await t.post(org.keys.reader, 'books.receiptsRegister', { contentBase64, filename: 'r.pdf', mimeType: 'application/pdf' })).status,
      ).toBe(403);
    });
  });

  it('worked example (docs/examples/reconciliation.md): a short statement reconciled to the penny', async () => {
    const o = await t.org('Harbourside Joinery');
    ok(
      await post(
        'books.journalPost',
        {
          date: addDays(today(), -1),
          memo: 'Opening balance',
          lines: [
            { accountCode: '1000', debitCents: 1_000_000 },
            { accountCode: '3000', creditCents: 1_000_000 },
          ],
        },
        o,
      ),
    );
    const baker = await invoice('Baker St Dental', 88_000, o);
    const coastal = await invoice('Coastal Cafe Group', 374_000, o);
    const bill = (
      await approvedBill(t, o, { payeeName: 'Northside Hardware', description: 'Fixings', totalCents: 78_500, payeeReference: 'NH-2101' })
    ).id;
    const r = await feed(
      [
        bankLine(50_000, 'DIRECT CREDIT 062118 BAKER ST DENTAL PART PAYMENT', { balanceCents: 1_050_000 }),
        bankLine(-78_500, 'INTERNET TRANSFER NORTHSIDE HARDWARE NH-2101', { balanceCents: 971_500 }),
        bankLine(-1_000, 'ACCOUNT KEEPING FEE', { balanceCents: 970_500 }),
        bankLine(374_000, 'DEPOSIT ONLINE COASTAL CAFE GROUP', { balanceCents: 1_344_500 }),
      ],
      o,
    );
    const [l1, l2, l3, l4] = r.lineIds;
    const scores = new Map(r.suggestions.map((s: any) => [s.lineId, s.candidates.map((c: any) => [c.id, c.score])]));
    expect([scores.get(l1), scores.get(l2), scores.get(l3), scores.get(l4)]).toEqual([
      [[baker, 35]],
      [[bill, 100]],
      undefined,
      [[coastal, 75]],
    ]);
    const m1 = ok(await post('books.matchAccept', { lineId: l1, target: { kind: 'invoice', id: baker } }, o));
    expect(m1.document).toEqual({ kind: 'invoice', id: baker, status: 'part_paid', outstandingCents: 38_000 });
    const m2 = ok(await post('books.matchAccept', { lineId: l2, target: { kind: 'bill', id: bill } }, o));
    expect(m2.document.status).toBe('paid');
    const fee = ok(await post('books.lineRecode', { lineId: l3, accountCode: '6300' }, o));
    const held = ok(await post('books.matchAccept', { lineId: l4, target: { kind: 'invoice', id: coastal } }, o));
    expect(held.status).toBe('held');
    expect(ok(await post('books.feedLinesList', {}, o)).summary).toEqual({
      accountCode: '1000',
      ledgerBalanceCents: 970_500,
      unreconciledLines: 1,
      unreconciledCents: 374_000,
    });
    const params = { lineId: l4, target: { kind: 'invoice', id: coastal } };
    const { approvalId } = await heldAndRequested(t, o, 'books.matchHoldResolve', params);
    await decide(t, o, approvalId, true);
    const m4 = ok(await post('books.matchHoldResolve', { ...params, approvalId }, o, { 'x-idempotency-key': freshKey() }));
    expect(m4.document).toEqual({ kind: 'invoice', id: coastal, status: 'paid', outstandingCents: 0 });
    const lines = async (j: string) => (await journalLines(t, o.orgId, j)).map((l) => [l.account_code, l.debit_cents, l.credit_cents]);
    expect(await lines(m1.match.journalId)).toEqual([
      ['1000', 50_000, 0],
      ['1100', 0, 50_000],
    ]);
    expect(await lines(m2.match.journalId)).toEqual([
      ['2000', 78_500, 0],
      ['1000', 0, 78_500],
    ]);
    expect(await lines(fee.journalId)).toEqual([
      ['6300', 1_000, 0],
      ['1000', 0, 1_000],
    ]);
    expect(await lines(m4.match.journalId)).toEqual([
      ['1000', 374_000, 0],
      ['1100', 0, 374_000],
    ]);
    // The statement's closing balance equals the ledger's bank account: everything is reconciled.
    expect(await bank(o)).toBe(1_344_500);
    const list = ok(await post('books.feedLinesList', {}, o));
    expect(list).toMatchObject({ lines: [], summary: { ledgerBalanceCents: 1_344_500, unreconciledLines: 0, unreconciledCents: 0 } });
    expect(await accountBalanceCents(t.db.reader, o.orgId, '1100')).toBe(38_000);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, DEFAULT_TIME_ZONE, localDate } from '../src/clock.js';
import { accountBalanceCents } from '../src/domain/gl/post.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleJson, consoleSignIn } from './console-helpers.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill } from './payables-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

/**
 * Transfers between bank accounts matched on both sides (books.transferMatch), a transfer seen on
 * one side first (lineRecode to the other account, then matchAccept to that journal), and one
 * line split across documents and accounts (books.lineSplit), with their refusals and the
 * materiality floor, through HTTP on both engines.
 */
const today = () => localDate(new Date().toISOString(), DEFAULT_TIME_ZONE);

describe.each(engines)('transfers and split lines (%s)', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  const ok = (r: { status: number; body: any }) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const headSeq = async (o: CreatedOrg) => (await t.get(o.keys.observer, 'snapshot')).body.head.seq as number;
  const balance = (o: CreatedOrg, code: string) => accountBalanceCents(t.db.reader, o.orgId, code);

  /** An organisation with a credit card (2610) and a second bank account (1010). */
  async function setup() {
    const o = await t.org();
    const s = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    expect((await consoleJson(t, s, 'POST', '/console/api/bank-accounts', { kind: 'credit_card', name: 'Visa' })).status).toBe(200);
    expect((await consoleJson(t, s, 'POST', '/console/api/bank-accounts', { kind: 'bank', name: 'Saver' })).status).toBe(200);
    const post = (method: string, params: unknown) => t.post(o.keys.agent, method, params);
    const line = async (accountCode: string, amountCents: number, description: string, date = today()) =>
      ok(await post('books.feedLines', { accountCode, lines: [{ date, amountCents, description: `${description} ${freshKey()}` }] }))
        .lineIds[0] as string;
    return { o, post, line };
  }

  it('a card repayment from the bank is a transfer: suggested, matched on both sides, each account moved on its own date', async () => {
    const { o, post, line } = await setup();
    const purchase = await line('2610', -17_500, 'BUNNINGS');
    ok(await post('books.lineRecode', { lineId: purchase, accountCode: '6600', taxCode: 'GST_ON_EXPENSES' }));
    const out = await line('1000', -17_500, 'TRANSFER TO VISA', addDays(today(), -2));
    const imported = ok(
      await post('books.feedLines', {
        accountCode: '2610',
        lines: [{ date: today(), amountCents: 17_500, description: `PAYMENT THANK YOU ${freshKey()}` }],
      }),
    );
    const into = imported.lineIds[0] as string;
    // Suggested at import too: the bank line is the other side.
    expect(imported.suggestions).toEqual([{ lineId: into, candidates: [expect.objectContaining({ kind: 'transfer', id: out })] }]);
    const listed = ok(await post('books.feedLinesList', { accountCode: '1000' }));
    const suggested = listed.lines.find((l: any) => l.id === out).suggestions;
    expect(suggested[0]).toMatchObject({ kind: 'transfer', id: into, outstandingCents: 17_500, daysApart: 2, reasons: ['amount'] });
    const before = await headSeq(o);
    const r = ok(await post('books.transferMatch', { fromLineId: out, toLineId: into }));
    expect(await headSeq(o)).toBe(before + 1);
    expect(r).toMatchObject({
      amountCents: 17_500,
      transferId: expect.stringMatching(/^trf_/),
      from: { status: 'matched', remainingCents: 0 },
      to: { status: 'matched' },
    });
    expect(r.from.matches).toEqual([expect.objectContaining({ kind: 'transfer', targetId: into, amountCents: 17_500 })]);
    expect(r.journalIds).toHaveLength(2);
    const journals = await t.db.reader.all<{ id: string; date: string }>(
      `SELECT id, date FROM journals WHERE org_id = ? AND id IN (?, ?) ORDER BY date`,
      [o.orgId, ...r.journalIds],
    );
    expect(journals.map((j) => j.date)).toEqual([addDays(today(), -2), today()]);
    expect(await balance(o, '1000')).toBe(-17_500);
    expect(await balance(o, '2610')).toBe(0);
    expect(await balance(o, '1300')).toBe(0);
    expect(await accountBalanceCents(t.db.reader, o.orgId, '1300', addDays(today(), -1))).toBe(17_500);
    const accounts = ok(await t.post(o.keys.reader, 'books.bankAccounts', {})).accounts;
    expect(accounts.find((a: any) => a.accountCode === '2610')).toMatchObject({ ledgerBalanceCents: 0, unreconciledLines: 0 });
    // The same pair again: a no-op (idempotent by state), no event.
    const again = ok(await post('books.transferMatch', { fromLineId: out, toLineId: into }));
    expect(again).toMatchObject({ noop: true, transferId: r.transferId, journalIds: r.journalIds });
    expect(await headSeq(o)).toBe(before + 1);
    const [event] = (await t.get(o.keys.observer, 'events?limit=500')).body.events.slice(-1);
    expect(event).toMatchObject({
      kind: 'books.transfer.match',
      payload: { fromAccountCode: '1000', toAccountCode: '2610', amountCents: 17_500 },
    });
  });

  it('refuses a transfer on one account, of different amounts, too far apart, the wrong way round, or of a matched line', async () => {
    const { o, post, line } = await setup();
    const a = await line('1000', -5_000, 'OUT');
    const b = await line('1000', 5_000, 'IN');
    const c = await line('1010', 4_000, 'IN');
    const d = await line('1010', 5_000, 'IN', addDays(today(), -9));
    const e = await line('1010', 5_000, 'IN');
    const before = await headSeq(o);
    const refused = async (params: unknown, status: number, text: string) => {
      const r = await post('books.transferMatch', params);
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body.error.message).toContain(text);
    };
    await refused({ fromLineId: a, toLineId: b }, 400, 'toLineId: both lines are on account 1000');
    await refused({ fromLineId: a, toLineId: c }, 400, 'a transfer moves the same amount');
    await refused({ fromLineId: a, toLineId: d }, 400, 'days from bank line');
    await refused({ fromLineId: e, toLineId: a }, 400, 'fromLineId: bank line');
    await refused({ fromLineId: a, toLineId: a }, 400, 'toLineId: is the same line as fromLineId');
    expect(await headSeq(o)).toBe(before);
    ok(await post('books.transferMatch', { fromLineId: a, toLineId: e }));
    const f = await line('1000', -5_000, 'OUT AGAIN');
    await refused({ fromLineId: f, toLineId: e }, 409, 'toLineId: bank line');
  });

  it('a transfer seen on one side first: recode it to the other account, then match the other side to that journal', async () => {
    const { o, post, line } = await setup();
    const out = await line('1000', -30_000, 'TO SAVER');
    const recoded = ok(await post('books.lineRecode', { lineId: out, accountCode: '1010' }));
    expect(await balance(o, '1010')).toBe(30_000);
    const into = await line('1010', 30_000, 'FROM CHEQUE');
    const listed = ok(await post('books.feedLinesList', { accountCode: '1010' }));
    expect(listed.lines.find((l: any) => l.id === into).suggestions[0]).toMatchObject({
      kind: 'journal',
      id: recoded.journalId,
      outstandingCents: 30_000,
    });
    // On its own account the recode journal is the line's own posting, never a match target.
    const own = await line('1000', 30_000, 'SOMETHING ELSE');
    const selfMatch = await post('books.matchAccept', { lineId: own, target: { kind: 'journal', id: recoded.journalId } });
    expect(selfMatch.status).toBe(400);
    const m = ok(await post('books.matchAccept', { lineId: into, target: { kind: 'journal', id: recoded.journalId } }));
    expect(m).toMatchObject({ status: 'matched', document: { kind: 'journal', outstandingCents: 0 } });
    expect(await balance(o, '1010')).toBe(30_000);
    const page = ok(await post('books.feedLinesList', { accountCode: '1010' }));
    expect(page.summary).toMatchObject({ ledgerBalanceCents: 30_000, unreconciledLines: 0 });
    // Its coding is now what the other account's line accounts for: it cannot move.
    const again = await post('books.lineRecode', { lineId: out, accountCode: '6000' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain(`is matched by bank line ${into}`);
  });

  it('a split line and a transfer are undone by books.lineUnmatch: every part reversed, documents reopened, nothing left on 1300', async () => {
    const { o, post, line } = await setup();
    const d = ok(await post('books.invoiceDraft', { payeeName: 'Hills Cafe', description: 'Shelving', totalCents: 11_000, dueDays: 14 }));
    ok(await post('books.invoiceSend', { id: d.id }));
    const payout = await line('1000', 10_500, 'STRIPE PAYOUT');
    ok(
      await post('books.lineSplit', {
        lineId: payout,
        parts: [
          { target: { kind: 'invoice', id: d.id }, amountCents: 11_000 },
          { accountCode: '6300', amountCents: -500, description: 'Stripe fees' },
        ],
      }),
    );
    const undone = ok(await post('books.lineUnmatch', { lineId: payout, reason: 'split wrongly' }));
    expect(undone.line).toMatchObject({ status: 'unmatched', matchedCents: 0, remainingCents: 10_500 });
    expect(await balance(o, '1000')).toBe(0);
    expect(await balance(o, '6300')).toBe(0);
    expect(await balance(o, '1100')).toBe(11_000);
    const inv = ok(await post('books.invoices', { status: 'sent' })).invoices.find((i: any) => i.id === d.id);
    expect(inv.outstandingCents).toBe(11_000);

    const out = await line('1000', -4_000, 'TRANSFER TO SAVER');
    const into = await line('1010', 4_000, 'TRANSFER FROM CHEQUE');
    ok(await post('books.transferMatch', { fromLineId: out, toLineId: into }));
    ok(await post('books.lineUnmatch', { lineId: out, reason: 'not a transfer' }));
    ok(await post('books.lineUnmatch', { lineId: into, reason: 'not a transfer' }));
    expect(await balance(o, '1000')).toBe(0);
    expect(await balance(o, '1010')).toBe(0);
    expect(await balance(o, '1300')).toBe(0);
    // Both lines are free again: the same transfer can be matched anew.
    ok(await post('books.transferMatch', { fromLineId: out, toLineId: into }));
    expect(await balance(o, '1010')).toBe(4_000);
  });

  it('splits one receipt across two invoices and a fee deducted; one event; postings dated the line', async () => {
    const { o, post, line } = await setup();
    const invoice = async (totalCents: number) => {
      const d = ok(await post('books.invoiceDraft', { payeeName: 'Hills Cafe', description: 'Shelving', totalCents, dueDays: 14 }));
      ok(await post('books.invoiceSend', { id: d.id }));
      return d.id as string;
    };
    const a = await invoice(11_000);
    const b = await invoice(22_000);
    const payout = await line('1000', 32_000, 'STRIPE PAYOUT');
    const before = await headSeq(o);
    const r = ok(
      await post('books.lineSplit', {
        lineId: payout,
        parts: [
          { target: { kind: 'invoice', id: a }, amountCents: 11_000 },
          { target: { kind: 'invoice', id: b }, amountCents: 22_000 },
          { accountCode: '6300', amountCents: -1_000, description: 'Stripe fees' },
        ],
      }),
    );
    expect(await headSeq(o)).toBe(before + 1);
    expect(r).toMatchObject({ status: 'matched', line: { status: 'matched', remainingCents: 0, matchedCents: 32_000 } });
    expect(r.parts.map((p: any) => [p.kind, p.targetId, p.amountCents, p.outstandingCents])).toEqual([
      ['invoice', a, 11_000, 0],
      ['invoice', b, 22_000, 0],
      ['account', '6300', -1_000, 0],
    ]);
    expect(await balance(o, '1000')).toBe(32_000);
    expect(await balance(o, '6300')).toBe(1_000);
    expect(await balance(o, '1100')).toBe(0);
    const dates = await t.db.reader.all<{ date: string }>('SELECT DISTINCT date FROM journals WHERE org_id = ? AND id IN (?, ?, ?)', [
      o.orgId,
      ...r.parts.map((p: any) => p.journalId),
    ]);
    expect(dates).toEqual([{ date: today() }]);
    const [event] = (await t.get(o.keys.observer, 'events?limit=500')).body.events.slice(-1);
    expect(event).toMatchObject({ kind: 'books.line.split', entity_id: payout, payload: { lineAmountCents: 32_000, accountCode: '1000' } });
    // Nothing left on the bank account's unreconciled journals: each part's journal is accounted for.
    const listed = ok(await post('books.feedLinesList', { accountCode: '1000', status: 'all' }));
    expect(listed.summary).toMatchObject({ ledgerBalanceCents: 32_000, unreconciledLines: 0 });
  });

  it('splits a card purchase across a bill and an expense account', async () => {
    const { o, post, line } = await setup();
    const bill = await approvedBill(t, o, { payeeName: 'Timber Co', description: 'Pine', totalCents: 8_800 });
    const purchase = await line('2610', -12_100, 'TIMBER CO AND CAFE');
    ok(
      await post('books.lineSplit', {
        lineId: purchase,
        parts: [
          { target: { kind: 'bill', id: bill.id }, amountCents: 8_800 },
          { accountCode: '6700', taxCode: 'GST_ON_EXPENSES', amountCents: 3_300 },
        ],
      }),
    );
    expect(await balance(o, '2610')).toBe(-12_100);
    expect(await balance(o, '6700')).toBe(3_000);
  });

  it('refuses a split whose parts do not add up, a bad part (naming parts[i]), a repeated document, and keeps the floor', async () => {
    const { o, post, line } = await setup();
    const d = ok(await post('books.invoiceDraft', { payeeName: 'Hills Cafe', description: 'Shelving', totalCents: 5_000, dueDays: 14 }));
    ok(await post('books.invoiceSend', { id: d.id }));
    const l = await line('1000', 8_000, 'RECEIPT');
    const before = await headSeq(o);
    const refused = async (params: unknown, status: number, text: string) => {
      const r = await post('books.lineSplit', params);
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body.error.message).toContain(text);
    };
    const inv = { target: { kind: 'invoice', id: d.id } };
    await refused(
      {
        lineId: l,
        parts: [
          { ...inv, amountCents: 5_000 },
          { accountCode: '4200', amountCents: 2_000 },
        ],
      },
      400,
      'parts: add up to 7000 cents; 8000 cents are left',
    );
    await refused(
      {
        lineId: l,
        parts: [
          { ...inv, amountCents: 6_000 },
          { accountCode: '4200', amountCents: 2_000 },
        ],
      },
      400,
      'parts[0].amountCents: 6000 is more than the 5000 cents outstanding',
    );
    await refused(
      {
        lineId: l,
        parts: [
          { ...inv, amountCents: 4_000 },
          { ...inv, amountCents: 4_000 },
        ],
      },
      400,
      'parts[1].target: invoice',
    );
    await refused(
      {
        lineId: l,
        parts: [
          { ...inv, amountCents: 5_000 },
          { accountCode: '1100', amountCents: 3_000 },
        ],
      },
      400,
      'parts[1].accountCode',
    );
    await refused({ lineId: l, parts: [{ accountCode: '4200', amountCents: 8_000 }] }, 400, 'parts: must have at least 2 parts');
    await refused(
      {
        lineId: l,
        parts: [
          { target: { kind: 'bill', id: d.id }, amountCents: 5_000 },
          { accountCode: '4200', amountCents: 3_000 },
        ],
      },
      400,
      `parts[0].target.id: bill ${d.id} not found`,
    );
    const bad = await post('books.lineSplit', { lineId: l, parts: [{ accountCode: '4200' }, { accountCode: '4200', amountCents: 1.5 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('parts[1].amountCents');
    // Above the materiality floor ($1,000 by default) documents are matched only with a human's approval.
    const big = await line('1000', 150_000, 'BIG RECEIPT');
    await refused(
      {
        lineId: big,
        parts: [
          { ...inv, amountCents: 5_000 },
          { accountCode: '4200', amountCents: 145_000 },
        ],
      },
      409,
      'books.matchHoldResolve',
    );
    expect(await headSeq(o)).toBe(before + 1);
    // Accounts only: coding was never a signature act.
    ok(
      await post('books.lineSplit', {
        lineId: big,
        parts: [
          { accountCode: '4200', amountCents: 100_000 },
          { accountCode: '3000', amountCents: 50_000 },
        ],
      }),
    );
    expect(await balance(o, '1000')).toBe(150_000);
  });
  it('above the floor: each document part through matchHoldResolve with a human, then the rest split to accounts', async () => {
    const { o, post, line } = await setup();
    const d = ok(
      await post('books.invoiceDraft', { payeeName: 'Coastal Cafe Group', description: 'Fit-out', totalCents: 120_000, dueDays: 14 }),
    );
    ok(await post('books.invoiceSend', { id: d.id }));
    const big = await line('1000', 150_000, 'COASTAL CAFE AND INTEREST');
    const params = { lineId: big, target: { kind: 'invoice', id: d.id }, amountCents: 120_000 };
    const { approvalId } = await heldAndRequested(t, o, 'books.matchHoldResolve', params);
    await decide(t, o, approvalId, true);
    ok(await t.post(o.keys.agent, 'books.matchHoldResolve', { ...params, approvalId }, { 'x-idempotency-key': freshKey() }));
    const r = ok(await post('books.lineSplit', { lineId: big, parts: [{ accountCode: '4100', amountCents: 30_000 }] }));
    expect(r.line).toMatchObject({ status: 'matched', remainingCents: 0 });
    expect(r.line.matches.map((m: any) => [m.kind, m.amountCents])).toEqual([
      ['invoice', 120_000],
      ['account', 30_000],
    ]);
    expect(await balance(o, '4100')).toBe(-30_000);
    expect(await balance(o, '1100')).toBe(0);
  });
});

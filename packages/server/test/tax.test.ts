import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { apportion } from '../src/domain/tax/cash.js';
import { migration } from '../src/domain/tax/migration.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { postEntry, purchaseLines, saleLines } from './reports-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

/**
 * Tax: the BAS through HTTP. The worked quarter of docs/reference/gst-bas.md (copied to
 * fixtures/gst) is posted as the ledger holds it and taxPrepare must give its BAS label for
 * label; then the state machine, the signature loop to a lodged BAS with its file, the
 * settlement journal, a refund quarter, and idempotency (by key and by state), scope, NOT_FOUND.
 */
interface Transaction {
  id: string;
  date: string;
  taxCode: string;
  amountInclGstCents: number;
  gstCents: number;
}

const quarter = JSON.parse(readFileSync(new URL('./fixtures/gst/worked_quarter.json', import.meta.url), 'utf8')) as {
  period: { start: string; end: string };
  transactions: Transaction[];
  payroll: { paydays: string[]; grossPerPay: string; paygPerPay: number; superPerPay12pc: string };
  expected: { frontOfBAS: Record<string, number>; summary: Record<string, number>; accountsMethodCheck: Record<string, number> };
};

const centsOf = (dollars: string) => {
  const m = /^(\d+)\.(\d{2})$/.exec(dollars);
  if (!m) throw new Error(`not a dollar amount: ${dollars}`);
  return Number(m[1]) * 100 + Number(m[2]);
};

const ACCOUNT: Record<string, string> = {
  S1: '4000',
  S2: '4000',
  S3: '4000',
  S4: '4000',
  S5: '4000',
  S6: '4000',
  S7: '4200',
  S8: '4100',
  P1: '5000',
  P2: '6600',
  P3: '1500',
  P4: '6800',
  P5: '6900',
  P6: '6300',
  P7: '6000',
};

const Q = { periodStart: quarter.period.start, periodEnd: quarter.period.end };

describe('cash-basis apportioning (largest remainder)', () => {
  it.each([
    [[100, 200], 50, 300, [17, 33]],
    [[1, 1, 1], 1, 3, [1, 0, 0]],
    [[10_000], 33_333, 110_000, [3_030]],
    [[110_000, -11_000], 50_000, 99_000, [55_556, -5_556]],
    [[9_007_199_254_740_991], 3, 7, [3_860_228_252_031_853]],
  ])('apportion(%j, %i, %i) = %j', (weights, num, den, expected) => {
    const out = apportion(weights, num, den);
    expect(out).toEqual(expected);
  });
});

describe.each(engines)('tax: the BAS (%s)', (engine) => {
  let t: TestServer;
  let dir: string;

  async function postQuarter(o: CreatedOrg) {
    for (const tx of quarter.transactions.filter((x) => x.id in ACCOUNT)) {
      const account = ACCOUNT[tx.id] as string;
      const lines = tx.id.startsWith('S')
        ? saleLines(tx.amountInclGstCents, tx.gstCents, tx.taxCode, account)
        : purchaseLines(tx.amountInclGstCents, tx.gstCents, tx.taxCode, account);
      await postEntry(t, o, tx.date, `${tx.id} ${tx.taxCode}`, lines);
    }
    const gross = centsOf(quarter.payroll.grossPerPay);
    const withheld = quarter.payroll.paygPerPay * 100;
    for (const payday of quarter.payroll.paydays) {
      await postEntry(t, o, payday, `Pay run ${payday}`, [
        { account: '6100', debitCents: gross, taxCode: 'BAS_EXCLUDED_WAGES', taxBaseCents: gross },
        { account: '1000', creditCents: gross - withheld },
        { account: '2200', creditCents: withheld, taxCode: 'BAS_EXCLUDED_PAYGW', taxBaseCents: withheld },
      ]);
    }
  }

  const call = (o: CreatedOrg, method: string, params: unknown, key?: string) =>
    t.post(o.keys.agent, `books.${method}`, params, key ? { 'x-idempotency-key': key } : {});
  const ok = async (o: CreatedOrg, method: string, params: unknown, key?: string) => {
    const r = await call(o, method, params, key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const headSeq = async (o: CreatedOrg) => (await t.get(o.keys.observer, 'snapshot')).body.head.seq as number;
  const balance = async (o: CreatedOrg, code: string, asOf: string) => {
    const r = await t.post(o.keys.reader, 'books.accounts', { asOf });
    return (r.body.result.accounts as { code: string; balanceCents: number }[]).find((a) => a.code === code)?.balanceCents;
  };
  const obligations = async (o: CreatedOrg, params: Record<string, unknown> = {}) => {
    const r = await t.post(o.keys.reader, 'books.taxObligations', params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };

  /** Hold frame → approval.request → the owner approves → retry with the proof. */
  async function signAndLodge(o: CreatedOrg, id: string) {
    const { hold, approvalId } = await heldAndRequested(t, o, 'books.taxSignLodge', { id });
    await decide(t, o, approvalId, true);
    const result = await ok(o, 'taxSignLodge', { id, approvalId }, freshKey());
    return { hold, result, approvalId };
  }

  async function waitLodged(o: CreatedOrg, id: string) {
    for (let i = 0; i < 100; i += 1) {
      await t.server.outbox.kick();
      const row = (await obligations(o)).obligations.find((x: { id: string }) => x.id === id);
      if (row?.status === 'lodged') return row;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`BAS ${id} was not lodged`);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-lodge-'));
    t = await startTestServer(engine, { lodgementOutboxDir: dir });
  });
  afterAll(async () => t.close());

  it('taxPrepare reproduces the worked quarter label for label', async () => {
    const o = await t.org('Harbourside Joinery Pty Ltd');
    await postQuarter(o);
    await postEntry(t, o, '2026-10-01', 'October sale', saleLines(110_000, 10_000, 'GST'));
    const bas = await ok(o, 'taxPrepare', Q);
    expect(bas).toMatchObject({ status: 'prepared', ...Q, frequency: 'quarter', basis: 'accrual', dueOn: '2026-10-28' });
    expect(bas.id).toMatch(/^bas_/);
    expect(bas.labels).toEqual(quarter.expected.frontOfBAS);
    const s = quarter.expected.summary;
    expect(bas.summary).toEqual({ '4': s['4'], '8A': s['8A'], '8B': s['8B'], '9': s['9'], position: 'payable', net: s['9'] });
    expect(bas.netCents).toBe(826_300);
    expect(bas.exactCents['1A']).toBe(quarter.expected.accountsMethodCheck['1A_cents']);
    expect(bas.exactCents['1B']).toBe(quarter.expected.accountsMethodCheck['1B_cents']);
    expect(bas).toMatchObject({ journalId: null, receipt: null, note: null });
  });

  it('preparing the period again is a no-op; the same idempotency key replays; neither appends an event', async () => {
    const o = await t.org();
    await postQuarter(o);
    const key = freshKey();
    const first = await ok(o, 'taxPrepare', Q, key);
    const seq = await headSeq(o);
    const again = await ok(o, 'taxPrepare', { ...Q, basis: 'accrual' });
    expect(again).toEqual({ ...first, noop: true });
    const replay = await call(o, 'taxPrepare', Q, key);
    expect(replay.body).toMatchObject({ ok: true, code: 'IDEMPOTENT_REPLAY', result: first });
    expect(await headSeq(o)).toBe(seq);
  });

  it.each([
    [{ periodStart: '2026-07-02', periodEnd: '2026-09-30' }, 'periodStart: must be the first day of a month'],
    [{ periodStart: '2026-07-01', periodEnd: '2026-09-29' }, 'periodEnd: must be the last day of a month'],
    [{ periodStart: '2026-08-01', periodEnd: '2026-10-31' }, 'periodEnd: the period must be one calendar month or a quarter'],
    [{ periodStart: '2026-07-01', periodEnd: '2026-08-31' }, 'periodEnd: the period must be one calendar month or a quarter'],
    [{ ...Q, basis: 'weekly' }, 'basis: must be one of accrual, cash'],
    [{ periodStart: '2099-01-01', periodEnd: '2099-03-31' }, 'periodEnd: the period has not ended'],
    [{ ...Q, extra: 1 }, 'extra'],
  ])('bad input %j is BAD_REQUEST naming the field, nothing changes', async (params, message) => {
    const o = await t.org();
    const seq = await headSeq(o);
    const r = await call(o, 'taxPrepare', params);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('BAD_REQUEST');
    expect(r.body.error.message).toContain(message);
    expect(await headSeq(o)).toBe(seq);
  });

  it('a month inside a prepared quarter is CONFLICT naming the BAS; a monthly BAS is due the 21st', async () => {
    const o = await t.org();
    const bas = await ok(o, 'taxPrepare', Q);
    const r = await call(o, 'taxPrepare', { periodStart: '2026-08-01', periodEnd: '2026-08-31' });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain(`BAS ${bas.id} (2026-07-01 to 2026-09-30, prepared) overlaps this period`);
    const june = await ok(o, 'taxPrepare', { periodStart: '2026-06-01', periodEnd: '2026-06-30' });
    expect(june).toMatchObject({ frequency: 'month', dueOn: '2026-07-21' });
    const dec = await ok(o, 'taxPrepare', { periodStart: '2025-10-01', periodEnd: '2025-12-31' });
    expect(dec.dueOn).toBe('2026-02-28');
  });

  it('hold, return and the state rules: a held BAS cannot be signed; taxReturn is a new act every call', async () => {
    const o = await t.org();
    await postQuarter(o);
    const bas = await ok(o, 'taxPrepare', Q);
    const held = await ok(o, 'taxHold', { id: bas.id, reason: 'check the CNC router invoice' });
    expect(held).toMatchObject({ status: 'held', note: 'check the CNC router invoice' });
    const seq = await headSeq(o);
    expect(await ok(o, 'taxHold', { id: bas.id, reason: 'again' })).toMatchObject({ status: 'held', noop: true, ledgerId: held.ledgerId });
    expect(await headSeq(o)).toBe(seq);
    const sign = await call(o, 'taxSignLodge', { id: bas.id });
    expect(sign.status).toBe(409);
    expect(sign.body.error.message).toContain(`BAS ${bas.id} is held`);
    const again = await call(o, 'taxPrepare', Q);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('is held');
    // A correction in the period, then taxReturn recomputes the labels from the ledger now.
    await postEntry(t, o, '2026-09-15', 'Late invoice', saleLines(110_000, 10_000, 'GST'));
    const back = await ok(o, 'taxReturn', { id: bas.id, reason: 'invoice added' });
    expect(back).toMatchObject({ status: 'prepared', note: 'invoice added' });
    expect(back.labels.G1).toBe(bas.labels.G1 + 1_100);
    expect(back.labels['1A']).toBe(bas.labels['1A'] + 100);
    const twice = await ok(o, 'taxReturn', { id: bas.id, reason: 'again' });
    expect(twice.ledgerId).not.toBe(back.ledgerId);
    expect(await headSeq(o)).toBe(seq + 3); // the correction, then two returns
  });

  it('signing figures the ledger no longer gives is CONFLICT until taxReturn recomputes them', async () => {
    const o = await t.org();
    const bas = await ok(o, 'taxPrepare', Q);
    await postEntry(t, o, '2026-08-10', 'Sale', saleLines(220_000, 20_000, 'GST'));
    const r = await call(o, 'taxSignLodge', { id: bas.id });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain('no longer matches the ledger (G1 0 → 2200, 1A 0 → 200)');
    // A change of cents alone is a change too: the settlement would no longer clear 2100.
    const back = await ok(o, 'taxReturn', { id: bas.id, reason: 'sale added' });
    await postEntry(t, o, '2026-08-11', 'Small sale', saleLines(11, 1, 'GST'));
    const cents = await call(o, 'taxSignLodge', { id: bas.id });
    expect(cents.status).toBe(409);
    expect(cents.body.error.message).toContain('1A 20000 cents → 20001 cents');
    expect(back.labels).toMatchObject({ G1: 2_200, '1A': 200 });
  });

  it('the signature loop: hold → approval → proof → lodging → the adapter writes the file → lodged with a receipt', async () => {
    const o = await t.org('Harbourside Joinery Pty Ltd');
    await postQuarter(o);
    const bas = await ok(o, 'taxPrepare', Q);
    const { hold, result, approvalId } = await signAndLodge(o, bas.id);
    expect(hold.approval.actionClass).toBe('books.tax_sign_lodge');
    const summary = hold.approval.subject.summary as string;
    expect(summary).toContain('July–September 2026 quarter (2026-07-01 to 2026-09-30');
    for (const [label, value] of Object.entries(quarter.expected.frontOfBAS)) {
      expect(summary).toContain(`${label} $${value.toLocaleString('en-AU')}`);
    }
    expect(summary).toContain('$8,263 payable to the ATO');
    expect(summary).not.toMatch(/\blodged\b(?! only)/);
    expect(result).toMatchObject({ id: bas.id, status: 'lodging', receipt: null });
    expect(result.journalId).toMatch(/^jnl_/);
    const lodged = await waitLodged(o, bas.id);
    const file = join(dir, `${bas.id}.json`);
    const bytes = readFileSync(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(lodged.receipt).toMatchObject({ fileName: `${bas.id}.json`, sha256: createHash('sha256').update(bytes).digest('hex') });
    const doc = JSON.parse(bytes.toString('utf8'));
    expect(doc).toMatchObject({ format: 'finance-desk.lodgement', version: 1, kind: 'bas', id: bas.id, orgId: o.orgId });
    expect(doc.bas).toMatchObject({ ...Q, frequency: 'quarter', basis: 'accrual', gstMethod: 'accounts', dueOn: '2026-10-28' });
    expect(doc.bas.labels).toEqual(quarter.expected.frontOfBAS);
    expect(doc.bas.summary).toMatchObject({ '9': 8_263, position: 'payable' });
    expect(doc.bas.signedLedgerId).toBe(result.ledgerId);
    // Signing again is a no-op; the used proof is refused (a proof is checked before anything else about the act).
    expect(await ok(o, 'taxSignLodge', { id: bas.id })).toMatchObject({ status: 'lodged', noop: true });
    const reused = await call(o, 'taxSignLodge', { id: bas.id, approvalId }, freshKey());
    expect(reused.status).toBe(409);
    // A lodged period cannot be prepared, held or returned.
    expect((await call(o, 'taxPrepare', Q)).body.error.message).toContain('a lodged period cannot be prepared again');
    expect((await call(o, 'taxHold', { id: bas.id, reason: 'x' })).body.error.message).toContain('is lodged');
    expect((await call(o, 'taxReturn', { id: bas.id, reason: 'x' })).body.error.message).toContain('is lodged');
    const events = (await t.get(o.keys.observer, 'events?limit=500')).body.events as { kind: string; actor: string }[];
    expect(events.filter((e) => e.kind === 'books.tax.lodged')).toHaveLength(1);
  });

  it('a failed delivery leaves the BAS lodging (counted in GET ops) until the adapter delivers it', async () => {
    const o = await t.org();
    const bas = await ok(o, 'taxPrepare', { periodStart: '2025-07-01', periodEnd: '2025-09-30' });
    // The lodgement directory is replaced by a file: writing the document fails.
    rmSync(dir, { recursive: true, force: true });
    writeFileSync(dir, 'not a directory');
    try {
      await signAndLodge(o, bas.id);
      await t.server.outbox.kick();
      const ops = await t.get(o.keys.observer, 'ops');
      expect(ops.body.outbox.queued).toBe(1);
      const row = (await obligations(o)).obligations[0];
      expect(row).toMatchObject({ id: bas.id, status: 'lodging', receipt: null });
      const events = (await t.get(o.keys.observer, 'events?limit=500')).body.events as { kind: string }[];
      expect(events.some((e) => e.kind === 'books.tax.lodged')).toBe(false);
    } finally {
      rmSync(dir, { force: true });
      mkdirSync(dir, { recursive: true });
    }
    // The lease of the failed attempt is over (as after LEASE_MS): the next sweep delivers it.
    await t.db.write((tx) => tx.run('UPDATE outbox SET claimed_until = NULL WHERE org_id = ?', [o.orgId]));
    const lodged = await waitLodged(o, bas.id);
    expect(lodged.receipt.fileName).toBe(`${bas.id}.json`);
    expect((await t.get(o.keys.observer, 'ops')).body.outbox).toEqual({ queued: 0, undeliverable: 0 });
  });

  it('the settlement journal balances and clears 2100, 1200 and 2200 against 2150; cents dropped go to 4200', async () => {
    const o = await t.org();
    await postQuarter(o);
    const bas = await ok(o, 'taxPrepare', Q);
    const { result } = await signAndLodge(o, bas.id);
    const j = await t.post(o.keys.reader, 'books.journals', { sourceId: bas.id });
    const journal = j.body.result.journals[0];
    expect(journal).toMatchObject({ id: result.journalId, date: Q.periodEnd, source: { kind: 'bas_settlement', id: bas.id } });
    const lines = journal.lines as { accountCode: string; debitCents: number; creditCents: number }[];
    const sum = (k: 'debitCents' | 'creditCents') => lines.reduce((s, l) => s + l[k], 0);
    expect(sum('debitCents')).toBe(sum('creditCents'));
    const at = (code: string) => lines.find((l) => l.accountCode === code);
    expect(at('2100')).toMatchObject({ debitCents: 269_005 });
    expect(at('1200')).toMatchObject({ creditCents: 300_976 });
    expect(at('2200')).toMatchObject({ debitCents: 858_200 });
    expect(at('2150')).toMatchObject({ creditCents: 826_300 });
    expect(at('4200')).toMatchObject({ debitCents: 71 }); // 1A drops 5 cents, 1B drops 76
    for (const code of ['2100', '1200', '2200']) expect(await balance(o, code, Q.periodEnd)).toBe(0);
    expect(await balance(o, '2150', Q.periodEnd)).toBe(826_300);
  });

  it('a refund quarter: refundable by the ATO, 2150 debited, the obligation negative', async () => {
    const o = await t.org();
    const R = { periodStart: '2026-01-01', periodEnd: '2026-03-31' };
    await postEntry(t, o, '2026-02-10', 'CNC router', purchaseLines(2_750_000, 250_000, 'GST_ON_CAPITAL', '1500'));
    await postEntry(t, o, '2026-03-02', 'Sale', saleLines(110_000, 10_000, 'GST'));
    const bas = await ok(o, 'taxPrepare', R);
    expect(bas.labels).toMatchObject({ G1: 1_100, G10: 27_500, '1A': 100, '1B': 2_500 });
    expect(bas.summary).toMatchObject({ '9': 2_400, position: 'refundable', net: -2_400 });
    expect(bas.dueOn).toBe('2026-04-28');
    const { hold } = await signAndLodge(o, bas.id);
    expect(hold.approval.subject.summary).toContain('$2,400 refundable by the ATO');
    await waitLodged(o, bas.id);
    expect(await balance(o, '2150', R.periodEnd)).toBe(-240_000);
    const list = await obligations(o, { asOf: '2026-05-01' });
    expect(list.obligations).toEqual([
      expect.objectContaining({ kind: 'bas', id: bas.id, status: 'lodged', amountCents: -240_000, overdue: false }),
    ]);
  });

  it('cash basis: a document counts as it is paid, its GST apportioned per payment (largest remainder)', async () => {
    const o = await t.org();
    const Q1 = { periodStart: '2026-01-01', periodEnd: '2026-03-31' };
    const Q2 = { periodStart: '2026-04-01', periodEnd: '2026-06-30' };
    const inv = 'inv_cashbasis1';
    const bill = 'bill_cashbasis1';
    // An invoice of $1,100 (GST $100) issued in Q1, $333.33 paid in Q1 and the rest in Q2.
    await postEntry(t, o, '2026-03-10', 'Invoice', [
      { account: '1100', debitCents: 110_000, docId: inv },
      { account: '4000', creditCents: 100_000, taxCode: 'GST', taxBaseCents: 110_000, gstCents: 10_000 },
      { account: '2100', creditCents: 10_000 },
    ]);
    await postEntry(t, o, '2026-03-20', 'Part payment', [
      { account: '1000', debitCents: 33_333 },
      { account: '1100', creditCents: 33_333, docId: inv },
    ]);
    await postEntry(t, o, '2026-04-15', 'Rest', [
      { account: '1000', debitCents: 76_667 },
      { account: '1100', creditCents: 76_667, docId: inv },
    ]);
    // A bill of $550 (GST $50) approved in Q1, paid in Q2; a cash sale in Q1 with no document.
    await postEntry(t, o, '2026-03-01', 'Bill', [
      { account: '6000', debitCents: 50_000, taxCode: 'GST_ON_EXPENSES', taxBaseCents: 55_000, gstCents: 5_000 },
      { account: '1200', debitCents: 5_000 },
      { account: '2000', creditCents: 55_000, docId: bill },
    ]);
    await postEntry(t, o, '2026-05-01', 'Bill paid', [
      { account: '2000', debitCents: 55_000, docId: bill },
      { account: '1000', creditCents: 55_000 },
    ]);
    await postEntry(t, o, '2026-02-02', 'Cash sale', saleLines(22_000, 2_000, 'GST'));
    const q1 = await ok(o, 'taxPrepare', { ...Q1, basis: 'cash' });
    expect(q1.basis).toBe('cash');
    // 33,333 of 110,000: base 33,333; GST 10,000 × 33,333 / 110,000 = 3,030.27 → 3,030.
    expect(q1.exactCents).toMatchObject({ G1: 33_333 + 22_000, G11: 0, '1A': 3_030 + 2_000, '1B': 0 });
    expect(q1.labels).toMatchObject({ G1: 553, G11: 0, '1A': 50, '1B': 0 });
    const q2 = await ok(o, 'taxPrepare', { ...Q2, basis: 'cash' });
    expect(q2.exactCents).toMatchObject({ G1: 76_667, G11: 55_000, '1A': 6_970, '1B': 5_000 });
    expect(q2.labels).toMatchObject({ G1: 766, G11: 550, '1A': 69, '1B': 50 });
    // The accrual basis of Q1 counts both documents whole (a different BAS of the same period).
    const other = await t.org();
    await postEntry(t, other, '2026-03-10', 'Invoice', [
      { account: '1100', debitCents: 110_000, docId: inv },
      { account: '4000', creditCents: 100_000, taxCode: 'GST', taxBaseCents: 110_000, gstCents: 10_000 },
      { account: '2100', creditCents: 10_000 },
    ]);
    expect((await ok(other, 'taxPrepare', Q1)).labels).toMatchObject({ G1: 1_100, '1A': 100 });
    // Preparing Q1 on the accrual basis while the cash BAS is prepared is CONFLICT naming it.
    const clash = await call(o, 'taxPrepare', Q1);
    expect(clash.status).toBe(409);
    expect(clash.body.error.message).toContain(`BAS ${q1.id} for this period is prepared on the cash basis`);
  });

  it('taxObligations: periods, due dates, overdue, and a held BAS never reads as lodged', async () => {
    const o = await t.org();
    const a = await ok(o, 'taxPrepare', { periodStart: '2026-04-01', periodEnd: '2026-06-30' });
    const b = await ok(o, 'taxPrepare', Q);
    await ok(o, 'taxHold', { id: b.id, reason: 'waiting on the accountant' });
    const all = await obligations(o, { asOf: '2026-11-01' });
    expect(all.asOf).toBe('2026-11-01');
    expect(
      all.obligations.map((x: { id: string; status: string; dueOn: string; overdue: boolean; receipt: unknown }) => [
        x.id,
        x.status,
        x.dueOn,
        x.overdue,
        x.receipt,
      ]),
    ).toEqual([
      [a.id, 'prepared', '2026-07-28', true, null],
      [b.id, 'held', '2026-10-28', true, null],
    ]);
    expect((await obligations(o, { from: '2026-08-01' })).obligations.map((x: { id: string }) => x.id)).toEqual([b.id]);
    expect((await obligations(o, { to: '2026-06-30' })).obligations.map((x: { id: string }) => x.id)).toEqual([a.id]);
    const bad = await t.post(o.keys.reader, 'books.taxObligations', { from: '2026-08-01', to: '2026-07-01' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('to: must be on or after from');
  });

  it('the console card names the act and shows the server’s summary of every label and the net', async () => {
    const o = await t.org('Harbourside Joinery Pty Ltd');
    await postQuarter(o);
    const bas = await ok(o, 'taxPrepare', Q);
    const { hold } = await heldAndRequested(t, o, 'books.taxSignLodge', { id: bas.id });
    const login = await fetch(`${t.url}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ org: o.slug, email: o.owner.email, password: o.owner.password }).toString(),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await (await fetch(`${t.url}/console`, { headers: { cookie } })).text();
    expect(page).toContain('Sign and lodge a business activity statement (BAS)');
    expect(page).toContain(hold.approval.subject.summary);
    expect(page).toContain('G1 $39,405');
    expect(page).toContain('$8,263 payable to the ATO');
  });

  it('taxReturn spends an approval given for the figures as they were', async () => {
    const o = await t.org();
    const bas = await ok(o, 'taxPrepare', Q);
    const { approvalId } = await heldAndRequested(t, o, 'books.taxSignLodge', { id: bas.id });
    await decide(t, o, approvalId, true);
    await ok(o, 'taxReturn', { id: bas.id, reason: 'recheck' });
    const r = await call(o, 'taxSignLodge', { id: bas.id, approvalId }, freshKey());
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain('already used');
    // A request still pending expires with the return: the console stops asking for it.
    const pending = await heldAndRequested(t, o, 'books.taxSignLodge', { id: bas.id });
    await ok(o, 'taxReturn', { id: bas.id, reason: 'recheck again' });
    const waited = await t.get(o.keys.agent, `approval.wait?approvalId=${pending.approvalId}&timeoutMs=0`);
    expect(waited.body.status).toBe('expired');
  });

  it('migration 21 gives an organisation created before it the 2150 account, once', async () => {
    const o = await t.org();
    await t.db.write((tx) => tx.run("DELETE FROM accounts WHERE org_id = ? AND code = '2150'", [o.orgId]));
    expect(await balance(o, '2150', '2026-01-01')).toBeUndefined();
    const backfill = migration.statements.filter((sql) => sql.includes('INSERT INTO accounts'));
    expect(backfill).toHaveLength(1);
    for (let i = 0; i < 2; i += 1) for (const sql of backfill) await t.db.write((tx) => tx.run(sql, []));
    const r = await t.post(o.keys.reader, 'books.accounts', { type: 'liability' });
    expect(r.body.result.accounts.filter((a: { code: string }) => a.code === '2150')).toEqual([
      expect.objectContaining({ code: '2150', name: 'ATO integrated client account', type: 'liability', balanceCents: 0 }),
    ]);
  });

  it('scope: a reader key cannot write but can read; another organisation’s BAS is NOT_FOUND', async () => {
    const o = await t.org();
    const other = await t.org();
    const bas = await ok(o, 'taxPrepare', Q);
    const denied = await t.post(o.keys.reader, 'books.taxPrepare', Q);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope books.write for books.taxPrepare' });
    for (const [method, params] of [
      ['taxHold', { id: bas.id, reason: 'x' }],
      ['taxReturn', { id: bas.id, reason: 'x' }],
      ['taxSignLodge', { id: bas.id }],
    ] as const) {
      const r = await call(other, method, params);
      expect(r.status, method).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
    }
    expect((await obligations(other)).obligations).toEqual([]);
  });
});

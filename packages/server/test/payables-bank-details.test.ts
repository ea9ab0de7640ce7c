import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migration } from '../src/domain/payables/migration-bank-details.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { parseAba } from './aba-parse.js';
import { engines, openTestDatabase, startTestServer, type TestServer } from './harness.js';
import { approvedBill, bank, FUNDING, today } from './payables-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

/**
 * The BANK_DETAILS_CHANGED hold of a bill and what the human who approves sees: the
 * bank details a bill pays against those last approved for its payee, and every payment of a run
 * with the exact BSB and account number the ABA file pays.
 */
describe.each(engines)('payables: bank details changed and what the approver sees (%s)', (engine) => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-pay-'));
    t = await startTestServer(engine, { paymentsOutboxDir: dir });
  });
  afterAll(async () => t.close());

  const capture = async (o: CreatedOrg, params: Record<string, unknown>) => {
    const r = await t.post(o.keys.agent, 'books.billCapture', { description: 'Timber', dueDays: 30, ...params });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const headSeq = async (o: CreatedOrg) => (await t.get(o.keys.observer, 'snapshot')).body.head.seq as number;
  const COASTAL = 'Coastal Timber Supplies';
  const A = bank('062-703', '11223344', COASTAL);

  it('the same payee in other case or spacing with a new BSB or account is held whatever the amount; the agent alone is refused', async () => {
    const o = await t.org();
    await approvedBill(t, o, { payeeName: COASTAL, description: 'October', totalCents: 10_000, ...A });
    // The same details under another spelling: a known payee, not held.
    expect(await capture(o, { payeeName: '  coastal   TIMBER supplies ', totalCents: 10_000, ...A })).toMatchObject({
      status: 'captured',
      heldReason: null,
    });
    // Only the account name differs: BECS pays by BSB and number, so the money goes where it went.
    expect(
      (await capture(o, { payeeName: COASTAL, totalCents: 10_000, ...bank('062-703', '11223344', 'CTS Pty Ltd') })).heldReason,
    ).toBeNull();
    // New account number, or new BSB: held, far below the $5,000 floor, for a payee that is not new.
    const held = [];
    for (const [bsb, account] of [
      ['062-703', '99887766'],
      ['082-001', '11223344'],
    ] as const) {
      const r = await capture(o, { payeeName: 'COASTAL  timber   Supplies', totalCents: 100, ...bank(bsb, account, COASTAL) });
      expect(r, `${bsb} ${account}`).toMatchObject({ status: 'held', heldReason: 'BANK_DETAILS_CHANGED' });
      held.push(r);
    }
    // It comes before ABOVE_FLOOR.
    expect((await capture(o, { payeeName: COASTAL, totalCents: 900_000, ...bank('062-703', '99887766', COASTAL) })).heldReason).toBe(
      'BANK_DETAILS_CHANGED',
    );
    // The agent alone: GOVERNANCE_NOT_READY naming old and new, no event.
    const seq = await headSeq(o);
    const refused = await t.post(o.keys.agent, 'books.billApprove', { id: held[0].id });
    expect(refused.status).toBe(423);
    expect(refused.body.error.code).toBe('GOVERNANCE_NOT_READY');
    expect(refused.body.error.message).toContain(
      `(held: bank details changed): "Timber", due ${held[0].dueOn}; bank details changed: ` +
        `was BSB 062-703 account 11223344 ("COASTAL TIMBER SUPPLIES"), now BSB 062-703 account 99887766 ("COASTAL TIMBER SUPPLIES")`,
    );
    expect(await headSeq(o)).toBe(seq);
    expect((await t.post(o.keys.reader, 'books.bills', { status: 'held' })).body.result.bills).toHaveLength(3);
  });

  it('a human approves the new details, seeing old and new side by side on the card; they become the approved ones', async () => {
    const o = await t.org();
    await approvedBill(t, o, { payeeName: COASTAL, description: 'October', totalCents: 10_000, ...A });
    const bill = await capture(o, {
      payeeName: 'coastal timber supplies',
      totalCents: 2_000,
      ...bank('082-001', '555666777', 'Coastal Timber New'),
    });
    expect(bill.heldReason).toBe('BANK_DETAILS_CHANGED');
    const refused = await t.post(o.keys.agent, 'books.billApprove', { id: bill.id });
    const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(refused.body.error.message)?.[1];
    const req = await t.post(o.keys.agent, 'approval.request', {
      actionClass: 'books.bill_approve',
      payloadHash,
      subject: { kind: 'books.signature', subjectId: bill.id, summary: 'same account as always' },
    });
    expect(req.status).toBe(200);
    expect(req.body.result.summary).toBe(
      `Approve bill ${bill.id} from "coastal timber supplies" for $20.00 (held: bank details changed): "Timber", due ${bill.dueOn}; ` +
        'bank details changed: was BSB 062-703 account 11223344 ("COASTAL TIMBER SUPPLIES"), now BSB 082-001 account 555666777 ("COASTAL TIMBER NEW")',
    );

    // The console card: the summary and a table of last approved against this bill.
    const login = await fetch(`${t.url}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ org: o.slug, email: o.owner.email, password: o.owner.password }).toString(),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await (await fetch(`${t.url}/console`, { headers: { cookie } })).text();
    const id = req.body.result.approvalId as string;
    expect(page).toContain('now BSB 082-001 account 555666777 (&quot;COASTAL TIMBER NEW&quot;)');
    const table = page.slice(page.indexOf(`<table class="bank-change" id="${id}-bank">`), page.indexOf('</table>') + 8);
    expect(table).toContain('<caption>Bank details changed</caption>');
    expect(table).toContain('<th scope="col">Last approved</th><th scope="col">This bill</th>');
    expect(table).toContain('<tr><th scope="row">BSB</th><td>062-703</td><td>082-001</td></tr>');
    expect(table).toContain('<tr><th scope="row">Account number</th><td>11223344</td><td>555666777</td></tr>');
    expect(table).toContain('<tr><th scope="row">Account name</th><td>COASTAL TIMBER SUPPLIES</td><td>COASTAL TIMBER NEW</td></tr>');

    await decide(t, o, id, true);
    const done = await t.post(o.keys.agent, 'books.billApprove', { id: bill.id, approvalId: id }, { 'x-idempotency-key': freshKey() });
    expect(done.body.result).toMatchObject({ status: 'approved', heldReason: 'BANK_DETAILS_CHANGED' });
    // The new details are now the approved ones; the old ones would be a change back.
    expect(
      (await capture(o, { payeeName: COASTAL, totalCents: 2_000, ...bank('082-001', '555666777', 'Coastal Timber New') })).heldReason,
    ).toBeNull();
    expect((await capture(o, { payeeName: COASTAL, totalCents: 2_000, ...A })).heldReason).toBe('BANK_DETAILS_CHANGED');
  });

  it('a known payee whose approved bills had no bank details, or whose approved details were returned: new details are held', async () => {
    const o = await t.org();
    const payee = 'Cash "Only" Co';
    await approvedBill(t, o, { payeeName: payee, description: 'Cash', totalCents: 500 });
    // No bank details: nothing a payment run could pay, nothing changed.
    expect((await capture(o, { payeeName: payee, totalCents: 500 })).heldReason).toBeNull();
    const first = await capture(o, { payeeName: payee, totalCents: 500, ...A });
    expect(first.heldReason).toBe('BANK_DETAILS_CHANGED');
    const refused = await t.post(o.keys.agent, 'books.billApprove', { id: first.id });
    // Agent text is quoted: its quotes cannot end the server's words.
    expect(refused.body.error.message).toContain(
      `Approve bill ${first.id} from "Cash \\"Only\\" Co" for $5.00 (held: bank details changed): "Timber", due ${first.dueOn}; ` +
        'bank details changed: was no bank details, now BSB 062-703 account 11223344 ("COASTAL TIMBER SUPPLIES")',
    );
    // Approved with those details, then returned: what was returned is not what anyone agreed to pay.
    const approved = await approvedBill(t, o, { payeeName: payee, description: 'x', totalCents: 700, ...A });
    expect((await capture(o, { payeeName: payee, totalCents: 500, ...A })).heldReason).toBeNull();
    expect((await t.post(o.keys.agent, 'books.billReturn', { id: approved.id, reason: 'Not ours' })).status).toBe(200);
    expect((await capture(o, { payeeName: payee, totalCents: 500, ...A })).heldReason).toBe('BANK_DETAILS_CHANGED');
  });

  it('a run of 25 bills: the summary lists every payee with amount, BSB and account, and the ABA file pays exactly those', async () => {
    const o = await t.org();
    const bills = [];
    for (let i = 1; i <= 25; i += 1) {
      const bsb = `0${String(10 + i)}-${String(100 + i)}`;
      const account = String(70_000_000 + i * 111);
      bills.push({
        bill: await approvedBill(t, o, {
          payeeName: `Supplier ${i}`,
          description: 'Parts',
          totalCents: 1_000 + i,
          dueDays: 7,
          ...bank(bsb, account, `Supplier ${i} Pty`),
        }),
        bsb,
        account,
      });
    }
    const params = { billIds: bills.map((b) => b.bill.id), paymentDate: today(), funding: FUNDING };
    const { hold, approvalId } = await heldAndRequested(t, o, 'books.billScheduleRun', params);
    const summary: string = hold.approval.subject.summary;
    expect(summary).not.toContain('more');
    bills.forEach(({ bill, bsb, account }, i) => {
      const cents = String(1_000 + i + 1);
      expect(summary).toContain(
        `${i + 1}. "Supplier ${i + 1}" $${cents.slice(0, -2)}.${cents.slice(-2)} to BSB ${bsb} account ${account} ("SUPPLIER ${i + 1} PTY") (${bill.id})`,
      );
    });
    await decide(t, o, approvalId, true);
    const done = await t.post(o.keys.agent, 'books.billScheduleRun', { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(done.body.result).toMatchObject({ status: 'executed', billCount: 25 });
    await t.server.outbox.kick();
    const aba = parseAba(readFileSync(join(dir, done.body.result.fileName), 'latin1'));
    expect(aba.details.map((d) => [d.bsb, (d.accountNumber ?? '').trim(), Number(d.amount)])).toEqual(
      bills.map(({ bsb, account }, i) => [bsb, account, 1_000 + i + 1]),
    );
  });

  it('migration 14 holds open bills captured before it whose bank details differ from those last approved', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate();
      const rows: [string, string, string | null, string, string | null, string | null][] = [
        // id, status, held_reason, payee_key, bsb, approved_at
        ['bill_ok', 'approved', null, 'acme', '062-000', '2026-01-01T00:00:00.000Z'],
        ['bill_same', 'captured', null, 'acme', '062-000', null],
        ['bill_new', 'captured', null, 'acme', '083-111', null],
        ['bill_parked', 'on_hold', null, 'acme', '083-111', null],
        ['bill_floor', 'held', 'ABOVE_FLOOR', 'acme', '083-111', null],
        ['bill_stranger', 'held', 'NEW_PAYEE', 'nobody', '083-111', null],
        ['bill_nobank', 'captured', null, 'acme', null, null],
      ];
      await db.write(async (tx) => {
        for (const [id, status, reason, key, bsb, approvedAt] of rows) {
          await tx.run(
            `INSERT INTO bills (org_id, id, status, payee_name, payee_key, description, total_cents, due_days, due_on, held_reason,
               payee_bsb, payee_account_number, payee_account_name, approved_at, created_at, ledger_id)
             VALUES ('org_legacy', ?, ?, ?, ?, 'Old', 100, 7, '2026-01-08', ?, ?, ?, ?, ?, '2026-01-01T00:00:00.000Z', 'abcd')`,
            [id, status, key, key, reason, bsb, bsb ? '123456' : null, bsb ? 'ACME' : null, approvedAt],
          );
        }
        for (const sql of migration.statements) await tx.run(sql);
      });
      const after = await db.reader.all<{ id: string; status: string; held_reason: string | null }>(
        "SELECT id, status, held_reason FROM bills WHERE org_id = 'org_legacy' ORDER BY id",
      );
      expect(after.map((r) => [r.id, r.status, r.held_reason])).toEqual([
        ['bill_floor', 'held', 'BANK_DETAILS_CHANGED'],
        ['bill_new', 'held', 'BANK_DETAILS_CHANGED'],
        ['bill_nobank', 'captured', null],
        ['bill_ok', 'approved', null],
        ['bill_parked', 'on_hold', 'BANK_DETAILS_CHANGED'],
        ['bill_same', 'captured', null],
        ['bill_stranger', 'held', 'NEW_PAYEE'],
      ]);
    } finally {
      await db.close();
      await drop();
    }
  });
});

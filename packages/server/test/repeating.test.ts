import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dueDate } from '../src/domain/repeating/dates.js';
import { runRepeating } from '../src/domain/repeating/sweep.js';
import { issueOrgKey, type CreatedOrg } from '../src/org/orgs.js';
import { revokeAgent } from '../src/org/pairing.js';
import { agentCalls, engines, freshDatabaseUrl, runCliInProcess, startTestServer, type TestServer } from './harness.js';
import { bank, journalLines } from './payables-helpers.js';
import { decide, freshKey } from './signature-helpers.js';

/**
 * Repeating invoices and bills through HTTP on every engine, the server's clock moved by the test
 * (startTestServer's injectable clock; the sweep itself is off and called directly). Figures:
 * rent $2,200.00 incl. GST → GST 220000 / 11 = 20000, net 200000 (Dr 6000 200000, Dr 1200 20000 /
 * Cr 2000 220000); the invoice $1,100.00 → GST 10000, net 100000.
 */

describe('due dates', () => {
  it('take the month’s last day when it is shorter than the day of month', () => {
    const c = { frequency: 'monthly' as const, dayOfMonth: 31, startOn: '2028-01-31', endOn: null, count: null };
    expect([0, 1, 2, 3].map((i) => dueDate(c, i))).toEqual(['2028-01-31', '2028-02-29', '2028-03-31', '2028-04-30']);
    expect(dueDate({ ...c, startOn: '2027-01-31' }, 1)).toBe('2027-02-28');
    // A day of month before the start's day: the first date is next month's.
    expect(dueDate({ ...c, dayOfMonth: 1, startOn: '2026-01-15' }, 0)).toBe('2026-02-01');
    expect(dueDate({ ...c, frequency: 'quarterly', dayOfMonth: 30, startOn: '2026-11-30' }, 1)).toBe('2027-02-28');
    expect(dueDate({ ...c, frequency: 'yearly', dayOfMonth: 29, startOn: '2028-02-29' }, 1)).toBe('2029-02-28');
    expect(dueDate({ frequency: 'fortnightly', dayOfMonth: null, startOn: '2026-01-01', endOn: '2026-01-29', count: null }, 2)).toBe(
      '2026-01-29',
    );
    expect(dueDate({ frequency: 'weekly', dayOfMonth: null, startOn: '2026-01-01', endOn: '2026-01-21', count: null }, 3)).toBeNull();
    expect(dueDate({ frequency: 'weekly', dayOfMonth: null, startOn: '2026-01-01', endOn: null, count: 2 }, 2)).toBeNull();
  });
});

describe.each(engines)('repeating invoices and bills (%s)', (engine) => {
  let t: TestServer;
  // 01:00 UTC is 11:00 or 12:00 the same day in Sydney (the organisations' time zone).
  let now = '2026-01-01T01:00:00.000Z';
  const at = (date: string) => (now = `${date}T01:00:00.000Z`);
  const { post, ok } = agentCalls(() => t);
  const run = (o: CreatedOrg) => runRepeating(t.db, { orgId: o.orgId });
  const count = async (sql: string, args: unknown[]) => Number((await t.db.reader.get<{ n: number }>(sql, args as never))?.n);

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => now, repeatingSweepMs: 0 });
  });
  afterAll(async () => {
    await t.close();
  });

  const RENT = {
    payeeName: 'Harbour Properties',
    description: 'Office rent',
    totalCents: 220_000,
    dueDays: 7,
    ...bank('062-000', '12345678', 'Harbour Properties'),
  };

  /** A held bill approved by a human: refused without a proof, requested, decided, retried with it. */
  async function humanApproves(o: CreatedOrg, id: string) {
    const first = await post(o, 'books.billApprove', { id });
    expect(first.status).toBe(423);
    const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(first.body.error.message)?.[1];
    const req = await ok(o, 'approval.request', {
      actionClass: 'books.bill_approve',
      payloadHash,
      subject: { kind: 'books.signature', subjectId: id },
    });
    await decide(t, o, req.approvalId, true);
    return ok(o, 'books.billApprove', { id, approvalId: req.approvalId }, { 'x-idempotency-key': freshKey() });
  }

  it('drafts a repeating invoice in another currency at each run date’s rate from the owner’s table', async () => {
    at('2026-03-01');
    const o = await t.org('Export Books');
    await ok(o, 'books.exchangeRateSet', {
      rates: [
        { currency: 'NZD', date: '2026-03-01', rate: '0.90' },
        { currency: 'NZD', date: '2026-04-01', rate: '0.92' },
      ],
    });
    await ok(o, 'books.repeatingSet', {
      kind: 'invoice',
      action: 'draft',
      template: {
        payeeName: 'Wellington Traders',
        description: 'Monthly supply',
        totalCents: 50_000,
        dueDays: 30,
        currency: 'NZD',
        taxCode: 'EXPORT',
      },
      frequency: 'monthly',
      dayOfMonth: 1,
      startDate: '2026-03-01',
    });
    at('2026-04-01');
    expect((await run(o)).created).toHaveLength(2);
    const { invoices } = await ok(o, 'books.invoices', {});
    // NZD 500.00 at 0.90 is AUD 450.00 on 1 March; at 0.92, AUD 460.00 on 1 April.
    expect(
      invoices
        .map((i: { issuedOn: string | null; currency: string; exchangeRate: string; audTotalCents: number }) => [
          i.currency,
          i.exchangeRate,
          i.audTotalCents,
        ])
        .sort(),
    ).toEqual([
      ['NZD', '0.900000', 45_000],
      ['NZD', '0.920000', 46_000],
    ]);
  });

  it('runs a monthly rent bill for twelve months: the first held as a new payee, the rest approved; new bank details held', async () => {
    at('2026-01-01');
    const o = await t.org('Rent Books');
    const schedule = await ok(o, 'books.repeatingSet', {
      kind: 'bill',
      action: 'approve',
      template: RENT,
      frequency: 'monthly',
      dayOfMonth: 1,
      startDate: '2026-01-01',
    });
    expect(schedule).toMatchObject({ status: 'active', nextDue: '2026-01-01', runs: 0, dayOfMonth: 1, lastRun: null, lastError: null });
    // The same schedule again: a no-op answering it.
    expect(
      await ok(o, 'books.repeatingSet', {
        kind: 'bill',
        action: 'approve',
        template: RENT,
        frequency: 'monthly',
        dayOfMonth: 1,
        startDate: '2026-01-01',
      }),
    ).toMatchObject({ id: schedule.id, noop: true });

    const first = await run(o);
    expect(first.created).toHaveLength(1);
    const billId = first.created[0]?.documentId as string;
    const bills1 = await ok(o, 'books.bills', {});
    expect(bills1.bills).toHaveLength(1);
    expect(bills1.bills[0]).toMatchObject({
      id: billId,
      status: 'held',
      heldReason: 'NEW_PAYEE',
      totalCents: 220_000,
      gstCents: 20_000,
      issuedOn: '2026-01-01',
      dueOn: '2026-01-08',
    });
    const approved = await humanApproves(o, billId);
    expect(approved.status).toBe('approved');

    for (let month = 2; month <= 12; month += 1) {
      at(`2026-${String(month).padStart(2, '0')}-01`);
      const r = await run(o);
      expect(r.failed).toEqual([]);
      expect(r.created.map((c) => c.dueOn)).toEqual([now.slice(0, 10)]);
    }
    const year = (await ok(o, 'books.bills', { limit: 50 })).bills as any[];
    expect(year).toHaveLength(12);
    expect(year.map((b) => b.issuedOn)).toEqual(Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}-01`));
    expect(year.every((b) => b.status === 'approved' && b.totalCents === 220_000)).toBe(true);
    expect(year.slice(1).every((b) => b.heldReason === null)).toBe(true);
    // December's posting: Dr 6000 200000, Dr 1200 20000 / Cr 2000 220000, dated 2026-12-01.
    const dec = year[11];
    const lines = await journalLines(t, o.orgId, dec.journalId);
    expect(lines.map((l) => [l.account_code, l.debit_cents, l.credit_cents])).toEqual([
      ['6000', 200_000, 0],
      ['1200', 20_000, 0],
      ['2000', 0, 220_000],
    ]);
    // One capture event per document, each naming the schedule, by the key that set it.
    const captures = await t.db.reader.all<{ payload: string; actor: string }>(
      "SELECT payload, actor FROM events WHERE org_id = ? AND kind = 'books.bill.capture' ORDER BY seq",
      [o.orgId],
    );
    expect(captures).toHaveLength(12);
    expect(captures.every((e) => (JSON.parse(e.payload) as { repeatingId: string }).repeatingId === schedule.id)).toBe(true);
    expect(new Set(captures.map((e) => e.actor))).toEqual(new Set([schedule.createdBy]));
    expect(await count('SELECT COUNT(*) AS n FROM bills WHERE org_id = ? AND repeating_id = ?', [o.orgId, schedule.id])).toBe(12);

    // New bank details in the template: the next run is held as a captured bill would be.
    const changed = await ok(o, 'books.repeatingSet', {
      id: schedule.id,
      template: { ...RENT, ...bank('062-999', '87654321', 'Harbour Properties') },
    });
    expect(changed).toMatchObject({ nextDue: '2027-01-01', runs: 12 });
    at('2027-01-01');
    const jan = await run(o);
    const held = await ok(o, 'books.bills', { status: 'held' });
    expect(held.bills.map((b: any) => [b.id, b.heldReason, b.payeeBsb])).toEqual([
      [jan.created[0]?.documentId, 'BANK_DETAILS_CHANGED', '062-999'],
    ]);
    const listed = await ok(o, 'books.repeating', {});
    expect(listed.schedules[0]).toMatchObject({ id: schedule.id, runs: 13, lastRun: { dueOn: '2027-01-01' }, nextDue: '2027-02-01' });
  });

  it('sends a repeating invoice monthly and catches up three missed months with three invoices', async () => {
    at('2026-01-15');
    const o = await t.org('Retainer Books');
    const s = await ok(o, 'books.repeatingSet', {
      kind: 'invoice',
      action: 'send',
      template: {
        payeeName: 'Bondi Dental',
        payeeEmail: 'accounts@bondi.example',
        description: 'Monthly retainer',
        totalCents: 110_000,
        dueDays: 14,
      },
      frequency: 'monthly',
      startDate: '2026-01-15',
    });
    expect(s.dayOfMonth).toBe(15);
    expect((await run(o)).created).toHaveLength(1);
    // The clock jumps three months: February, March and April are made, one each.
    at('2026-04-20');
    const caught = await run(o);
    expect(caught.created.map((c) => c.dueOn)).toEqual(['2026-02-15', '2026-03-15', '2026-04-15']);
    expect((await run(o)).created).toEqual([]);
    const invoices = (await ok(o, 'books.invoices', {})).invoices as any[];
    expect(invoices.map((i) => [i.status, i.issuedOn, i.dueOn, i.totalCents, i.gstCents])).toEqual([
      ['sent', '2026-01-15', '2026-01-29', 110_000, 10_000],
      ['sent', '2026-02-15', '2026-03-01', 110_000, 10_000],
      ['sent', '2026-03-15', '2026-03-29', 110_000, 10_000],
      ['sent', '2026-04-15', '2026-04-29', 110_000, 10_000],
    ]);
    expect(invoices.map((i) => i.number)).toEqual(['INV-0001', 'INV-0002', 'INV-0003', 'INV-0004']);
    // Each is two acts, as through the API: drafted, then sent (which posts Dr 1100 110000 / Cr 4000 100000 / Cr 2100 10000).
    expect(
      await count("SELECT COUNT(*) AS n FROM events WHERE org_id = ? AND kind IN ('books.invoice.draft', 'books.invoice.send')", [o.orgId]),
    ).toBe(8);
  });

  it('makes one document per date when two sweeps run at once', async () => {
    at('2026-01-01');
    const o = await t.org('Twin Sweeps');
    await ok(o, 'books.repeatingSet', {
      kind: 'invoice',
      action: 'draft',
      template: { payeeName: 'Weekly Client', description: 'Weekly service', totalCents: 5_500, dueDays: 7 },
      frequency: 'weekly',
      startDate: '2026-01-01',
    });
    // 1, 8, 15, 22, 29 January and 5 February: six dates.
    at('2026-02-05');
    const [a, b] = await Promise.all([runRepeating(t.db), runRepeating(t.db)]);
    const mine = [...a.created, ...b.created].filter((c) => c.kind === 'invoice').map((c) => c.dueOn);
    expect(mine.sort()).toEqual(['2026-01-01', '2026-01-08', '2026-01-15', '2026-01-22', '2026-01-29', '2026-02-05']);
    expect(await count('SELECT COUNT(*) AS n FROM invoices WHERE org_id = ?', [o.orgId])).toBe(6);
    expect(await count('SELECT COUNT(*) AS n FROM repeating_runs WHERE org_id = ?', [o.orgId])).toBe(6);
  });

  it('stops while paused (resuming skips the missed dates), at its end date and after its count', async () => {
    at('2026-03-02');
    const o = await t.org('Paused Books');
    const tpl = { payeeName: 'Cleaner', description: 'Cleaning', totalCents: 33_000, dueDays: 7 };
    const weekly = await ok(o, 'books.repeatingSet', {
      kind: 'bill',
      action: 'capture',
      template: tpl,
      frequency: 'weekly',
      startDate: '2026-03-02',
    });
    expect((await run(o)).created).toHaveLength(1);
    const paused = await ok(o, 'books.repeatingSet', { id: weekly.id, status: 'paused' });
    expect(paused).toMatchObject({ status: 'paused', nextDue: '2026-03-09' });
    expect(await ok(o, 'books.repeatingSet', { id: weekly.id, status: 'paused' })).toMatchObject({ noop: true });
    at('2026-03-25');
    expect((await run(o)).created).toEqual([]);
    // Resumed on the 25th: 9, 16 and 23 March are skipped; next is 30 March.
    expect(await ok(o, 'books.repeatingSet', { id: weekly.id, status: 'active' })).toMatchObject({
      status: 'active',
      nextDue: '2026-03-30',
    });
    expect((await run(o)).created).toEqual([]);
    await ok(o, 'books.repeatingSet', { id: weekly.id, status: 'ended' });
    const ended = await post(o, 'books.repeatingSet', { id: weekly.id, status: 'active' });
    expect(ended.status).toBe(409);

    at('2026-03-01');
    const o2 = await t.org('Ending Books');
    const until = await ok(o2, 'books.repeatingSet', {
      kind: 'bill',
      action: 'capture',
      template: tpl,
      frequency: 'fortnightly',
      startDate: '2026-03-01',
      endDate: '2026-03-20',
    });
    const twice = await ok(o2, 'books.repeatingSet', {
      kind: 'invoice',
      action: 'draft',
      template: { ...tpl, payeeName: 'Two Times' },
      frequency: 'weekly',
      startDate: '2026-03-01',
      count: 2,
    });
    at('2026-06-30');
    const r = await run(o2);
    // Fortnightly to 20 March: 1 and 15 March. Twice weekly: 1 and 8 March.
    expect(r.created.map((c) => [c.scheduleId, c.dueOn])).toEqual([
      [until.id, '2026-03-01'],
      [until.id, '2026-03-15'],
      [twice.id, '2026-03-01'],
      [twice.id, '2026-03-08'],
    ]);
    const listed = (await ok(o2, 'books.repeating', { status: 'ended' })).schedules as any[];
    expect(listed.map((s) => [s.id, s.nextDue, s.runs]).sort()).toEqual(
      [
        [twice.id, null, 2],
        [until.id, null, 2],
      ].sort(),
    );
  });

  it('records a failing schedule and goes on with the others', async () => {
    at('2026-05-01');
    const o = await t.org('Failing Books');
    // 6000 is an expense account: invoiceDraft refuses its line when the run drafts it.
    const bad = await ok(o, 'books.repeatingSet', {
      kind: 'invoice',
      action: 'draft',
      template: {
        payeeName: 'Bad Lines',
        description: 'x',
        totalCents: 1_000,
        dueDays: 7,
        lines: [{ description: 'x', amountCents: 1_000, accountCode: '6000' }],
      },
      frequency: 'monthly',
      startDate: '2026-05-01',
    });
    const good = await ok(o, 'books.repeatingSet', {
      kind: 'bill',
      action: 'capture',
      template: RENT,
      frequency: 'monthly',
      startDate: '2026-05-01',
    });
    const r = await run(o);
    expect(r.failed.map((f) => [f.scheduleId, f.dueOn])).toEqual([[bad.id, '2026-05-01']]);
    expect(r.failed[0]?.message).toMatch(/^BAD_REQUEST: lines\[0\]\.accountCode/);
    expect(r.created.map((c) => c.scheduleId)).toEqual([good.id]);
    const listed = (await ok(o, 'books.repeating', { kind: 'invoice' })).schedules as any[];
    expect(listed[0]).toMatchObject({ id: bad.id, runs: 0, nextDue: '2026-05-01', lastError: { dueOn: '2026-05-01' } });
    expect(await count('SELECT COUNT(*) AS n FROM invoices WHERE org_id = ?', [o.orgId])).toBe(0);
  });

  it("lapses with its creator's authority: a schedule set by an agent revoked since makes nothing and says why", async () => {
    at('2026-06-01');
    const o = await t.org('Revoked Books');
    const bot = await issueOrgKey(t.db, o.slug, 'agent', 'rent-bot');
    const set = await t.post(bot.key, 'books.repeatingSet', {
      kind: 'bill',
      action: 'capture',
      template: RENT,
      frequency: 'monthly',
      startDate: '2026-06-01',
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await run(o)).created).toHaveLength(1);
    // The schedule is the agent's (a key of a named agent acts as the agent): revoking the agent,
    // and its keys with it, ends its standing instructions.
    expect(bot.agentId).not.toBeNull();
    await revokeAgent(t.db, { orgId: o.orgId, agentId: bot.agentId ?? '', actor: '' });
    at('2026-07-01');
    const r = await run(o);
    expect(r.created).toEqual([]);
    expect(r.failed[0]?.message).toMatch(/^CONFLICT: .* has been revoked or removed: its standing instruction lapsed/);
    expect(await count('SELECT COUNT(*) AS n FROM bills WHERE org_id = ?', [o.orgId])).toBe(1);
  });

  it('names bad input and changes nothing', async () => {
    at('2026-05-01');
    const o = await t.org('Bad Input');
    const base = { kind: 'bill', action: 'capture', template: RENT, frequency: 'monthly', startDate: '2026-05-01' };
    const refused = async (params: Record<string, unknown>, message: RegExp) => {
      const r = await post(o, 'books.repeatingSet', params);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.message).toMatch(message);
    };
    await refused({ ...base, template: { ...RENT, totalCents: -5 } }, /template\.totalCents: /);
    await refused({ ...base, template: { ...RENT, dueDays: undefined } }, /template\.dueDays: is required/);
    await refused({ ...base, template: { ...RENT, issueDate: '2026-05-01' } }, /template\.issueDate: is set by the schedule/);
    await refused(
      { ...base, kind: 'invoice', action: 'send', template: { ...RENT, number: 'X-1' } },
      /template\.number: is set by the schedule/,
    );
    await refused({ ...base, frequency: 'daily' }, /frequency: must be one of weekly, fortnightly, monthly, quarterly, yearly/);
    await refused({ ...base, startDate: '2026-02-30' }, /startDate: /);
    await refused({ ...base, endDate: '2026-04-01' }, /endDate: must not be before startDate 2026-05-01/);
    await refused({ ...base, endDate: '2026-12-01', count: 3 }, /endDate: give endDate or count, not both/);
    await refused({ ...base, action: 'send' }, /action: must be one of capture, approve for a bill/);
    await refused({ ...base, frequency: 'weekly', dayOfMonth: 3 }, /dayOfMonth: is for monthly/);
    await refused({ ...base, dayOfMonth: 32 }, /dayOfMonth: must be an integer from 1 to 31/);
    await refused({ ...base, startDate: '2024-01-01' }, /startDate: must be no more than 366 days before today/);
    await refused({ id: 'rpt_missing' }, /id: give template, endDate or status/);
    expect((await post(o, 'books.repeatingSet', { id: 'rpt_missing', status: 'paused' })).status).toBe(404);
    expect((await ok(o, 'books.repeating', {})).schedules).toEqual([]);
  });
});

describe.each(engines)('finance-desk repeating run (%s)', (engine) => {
  it('runs what is due for one organisation through the same function (real clock: a schedule from today)', async () => {
    const { url, drop } = await freshDatabaseUrl(engine);
    try {
      const made = JSON.parse((await runCliInProcess(url, 'org', 'create', '--name', 'Cli Rent', '--json')).out) as {
        slug: string;
        keys: { agent: string };
      };
      expect((await runCliInProcess(url, 'repeating', 'run', '--org', made.slug)).out.trim()).toBe(`${made.slug}: nothing due`);
      const unknown = await runCliInProcess(url, 'repeating', 'run', '--org', 'no-such-org');
      expect(unknown.code).not.toBe(0);
    } finally {
      await drop();
    }
  });
});

import type { MeetingKind } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, DEFAULT_TIME_ZONE, localDate, localDayStarts, startOfLocalDay } from '../src/clock.js';
import { approvalExpiries } from '../src/calendar/approvals.js';
import { billsDue, invoicesDue, payRuns, promises } from '../src/calendar/documents.js';
import { encodeCursor } from '../src/calendar/meetings.js';
import { nextPayDates } from '../src/calendar/paydays.js';
import type { Window } from '../src/calendar/window.js';
import { basDueOn } from '../src/domain/tax/figures.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import type { Queryable } from '../src/storage/types.js';
import { engines, startTestServer, type TestServer, migratedSqliteForSuite } from './harness.js';
import { approvedBill, inDays, today } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { heldAndRequested, sentInvoice } from './signature-helpers.js';

/**
 * GET meetings.list: the desk's calendar through HTTP, on every engine. Dates
 * are relative to the organisation's today (test organisations keep Australia/Sydney).
 */
interface Item {
  date: string;
  kind: string;
  id: string;
  subjectId: string | null;
  title: string;
  amountCents: number | null;
  status: string;
  ledgerId: string | null;
}

const key = (i: Item) => `${i.date} ${i.kind} ${i.id}`;

/** The last BAS quarter that ended before `day`, and the one after it. */
function quarters(day: string) {
  const [y, m] = day.split('-').map(Number) as [number, number];
  const startMonth = Math.floor((m - 1) / 3) * 3 + 1 - 3;
  const sy = startMonth < 1 ? y - 1 : y;
  const sm = startMonth < 1 ? startMonth + 12 : startMonth;
  const start = `${sy}-${String(sm).padStart(2, '0')}-01`;
  const end = new Date(Date.UTC(sy, sm + 2, 0)).toISOString().slice(0, 10);
  const nextStart = addDays(end, 1);
  const [ny, nm] = nextStart.split('-').map(Number) as [number, number];
  const nextEnd = new Date(Date.UTC(ny, nm + 2, 0)).toISOString().slice(0, 10);
  return { last: { periodStart: start, periodEnd: end }, next: { periodStart: nextStart, periodEnd: nextEnd } };
}

describe.each(engines)('GET meetings.list (%s)', (engine) => {
  let t: TestServer;
  let o: CreatedOrg;
  const ids: Record<string, string> = {};

  async function ok(method: string, params: Record<string, unknown>) {
    const r = await t.post(o.keys.agent, method, params);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  }

  async function list(query: string, org = o): Promise<{ status: number; body: any }> {
    return t.get(org.keys.observer, `meetings.list${query ? `?${query}` : ''}`);
  }

  async function items(query: string): Promise<Item[]> {
    const r = await list(query);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.items as Item[];
  }

  beforeAll(async () => {
    t = await startTestServer(engine);
    o = await t.org();
    // invoice.due: part paid, due in 3 days; another due in 10 with two promises; one due in 40.
    const a = await ok('books.invoiceDraft', { payeeName: 'Harbour "Cafe"', description: 'Catering', totalCents: 110_000, dueDays: 3 });
    await ok('books.invoiceSend', { id: a.id });
    await ok('books.invoiceRecordPayment', { id: a.id, amountCents: 10_000 });
    const b = await ok('books.invoiceDraft', { payeeName: 'Beach Kiosk', description: 'Pastries', totalCents: 55_000, dueDays: 10 });
    await ok('books.invoiceSend', { id: b.id });
    await ok('books.invoicePromise', { id: b.id, promisedOn: inDays(5), amountCents: 20_000 });
    ids.promise = (await ok('books.invoicePromise', { id: b.id, promisedOn: inDays(6), amountCents: 30_000 })).promiseId;
    // Same date, same kind (ordered by id) and same date, another kind (ordered by kind).
    const d = await ok('books.invoiceDraft', { payeeName: 'Second Kiosk', description: 'Pies', totalCents: 7_000, dueDays: 10 });
    await ok('books.invoiceSend', { id: d.id });
    const e = await ok('books.invoiceDraft', { payeeName: 'Same Day', description: 'Cakes', totalCents: 8_000, dueDays: 6 });
    await ok('books.invoiceSend', { id: e.id });
    const c = await ok('books.invoiceDraft', { payeeName: 'Far Away', description: 'Later', totalCents: 1_000, dueDays: 40 });
    await ok('books.invoiceSend', { id: c.id });
    // A draft invoice has no due date on the calendar; neither does a paid one.
    await ok('books.invoiceDraft', { payeeName: 'Drafty', description: 'Not sent', totalCents: 1_000, dueDays: 2 });
    const paid = await ok('books.invoiceDraft', { payeeName: 'Paid Up', description: 'Settled', totalCents: 2_000, dueDays: 4 });
    await ok('books.invoiceSend', { id: paid.id });
    await ok('books.invoiceRecordPayment', { id: paid.id, amountCents: 2_000 });
    Object.assign(ids, { a: a.id, b: b.id, c: c.id, d: d.id, e: e.id, paid: paid.id });
    // bill.due: approved, due in 7 days; a captured one awaiting approval is not on the calendar.
    ids.bill = (await approvedBill(t, o, { payeeName: 'Acme Supplies', description: 'Timber', totalCents: 33_000, dueDays: 7 })).id;
    await ok('books.billCapture', { payeeName: 'Unapproved Pty', description: 'x', totalCents: 5_000, dueDays: 7 });
    // approval.expiry: a chase step 2 held and filed for a human.
    ids.chased = await sentInvoice(t, o);
    ids.approval = (await heldAndRequested(t, o, 'books.invoiceChaseStep', { id: ids.chased, step: 2 })).approvalId;
  }, 120_000);
  afterAll(async () => t.close());

  it('by default lists the next 14 days from the organisation-local today, each item on its date with its amount', async () => {
    const r = await list('');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      orgId: o.orgId,
      timeZone: DEFAULT_TIME_ZONE,
      today: today(),
      from: today(),
      to: inDays(13),
      nextCursor: null,
    });
    const got = r.body.items as Item[];
    const approval = await t.db.reader.get<{ expires_at: string; subject_id: string }>(
      'SELECT expires_at, subject_id FROM approvals WHERE org_id = ? AND id = ?',
      [o.orgId, ids.approval ?? ''],
    );
    expect(got.map((i) => [i.date, i.kind, i.id, i.amountCents, i.status])).toEqual(
      [
        [localDate(approval?.expires_at ?? '', DEFAULT_TIME_ZONE), 'approval.expiry', ids.approval, null, 'pending'],
        [inDays(3), 'invoice.due', ids.a, 100_000, 'part_paid'],
        [inDays(6), 'invoice.due', ids.e, 8_000, 'sent'],
        [inDays(6), 'promise', ids.promise, 30_000, 'promised'],
        [inDays(7), 'bill.due', ids.bill, 33_000, 'approved'],
        [inDays(10), 'invoice.due', ids.b, 55_000, 'sent'],
        [inDays(10), 'invoice.due', ids.d, 7_000, 'sent'],
      ].sort((x, y) => `${x[0]} ${x[1]} ${x[2]}`.localeCompare(`${y[0]} ${y[1]} ${y[2]}`)),
    );
    const byKind: Record<string, any> = Object.fromEntries(got.map((i) => [i.kind === 'invoice.due' ? i.id : i.kind, i]));
    // Customer text is quoted in the server's title; the approval names its class and subject.
    expect(byKind[ids.a ?? ''].title).toBe(`Invoice ${ids.a} to "Harbour \\"Cafe\\"" due: $1,000.00 outstanding of $1,100.00`);
    expect(byKind.promise).toMatchObject({ subjectId: ids.b, title: `"Beach Kiosk" promised to pay $300.00 on invoice ${ids.b}` });
    expect(byKind['bill.due'].title).toContain('"Acme Supplies"');
    expect(byKind['approval.expiry']).toMatchObject({ subjectId: approval?.subject_id, ledgerId: expect.stringMatching(/^[0-9a-f]{8}$/) });
    expect(byKind['approval.expiry'].title).toContain(`books.invoice_chase_step on ${ids.chased}`);
  });

  it('from/to widen or narrow the range; kind filters one kind', async () => {
    const wide = await items(`from=${today()}&to=${inDays(60)}`);
    expect(wide.filter((i) => i.kind === 'invoice.due').map((i) => [i.id, i.date])).toEqual([
      [ids.a, inDays(3)],
      [ids.e, inDays(6)],
      [ids.b, inDays(10)],
      [ids.d, inDays(10)],
      [ids.chased, inDays(14)],
      [ids.c, inDays(40)],
    ]);
    expect((await items(`from=${inDays(4)}&to=${inDays(6)}`)).map((i) => [i.kind, i.date])).toEqual([
      ['invoice.due', inDays(6)],
      ['promise', inDays(6)],
    ]);
    const bills = await items(`kind=bill.due&to=${inDays(30)}`);
    expect(bills.map((i) => i.id)).toEqual([ids.bill]);
    expect(await items(`from=${inDays(8)}&to=${inDays(8)}`)).toEqual([]);
    // The invoice paid in full, the draft and the unapproved bill appear nowhere.
    const all = JSON.stringify(wide);
    for (const absent of [ids.paid, 'Drafty', 'Unapproved']) expect(all).not.toContain(absent);
  });

  it('cursor paging visits every item exactly once, in (date, kind, id) order', async () => {
    const range = `from=${addDays(today(), -1)}&to=${inDays(60)}`;
    const whole = await items(`${range}&limit=200`);
    expect(whole.length).toBeGreaterThanOrEqual(9);
    const sorted = [...whole].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
    expect(whole.map(key)).toEqual(sorted.map(key));
    for (const limit of [1, 2, 3]) {
      const seen: Item[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 50; pages += 1) {
        const r = await list(`${range}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(r.status).toBe(200);
        expect(r.body.items.length).toBeLessThanOrEqual(limit);
        seen.push(...r.body.items);
        cursor = r.body.nextCursor;
        if (cursor === null) break;
      }
      expect(seen.map(key)).toEqual(whole.map(key));
    }
  });

  it('bad query values are BAD_REQUEST naming the field', async () => {
    const cases: [string, string][] = [
      [`from=${today()}&to=${addDays(today(), -1)}`, 'to: must be on or after from'],
      [`from=${today()}&to=${inDays(93)}`, 'to: must be at most 92 days after from'],
      [`to=${addDays(today(), -1)}`, 'to: must be on or after from'],
      ['from=2026-02-30', 'from: must be a real calendar date'],
      ['to=tomorrow', 'to: must be a date YYYY-MM-DD'],
      ['kind=meeting', 'kind: '],
      ['limit=0', 'limit: must be an integer from 1 to 200'],
      ['limit=201', 'limit: must be an integer from 1 to 200'],
      ['cursor=abc', 'cursor: must be the nextCursor of a previous page'],
      [`cursor=${Buffer.from('["2026-01-01","nope","x"]').toString('base64url')}`, 'cursor: must be the nextCursor'],
      ['cursor=a%2Fb', 'cursor: must be the nextCursor'],
      ['colour=red', 'colour'],
      ['from=0000-01-01', 'from: must be from 1970-01-01 to 9999-06-30'],
      ['from=9999-12-31', 'from: must be from 1970-01-01 to 9999-06-30'],
    ];
    for (const [q, message] of cases) {
      const r = await list(q);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('BAD_REQUEST');
      expect(r.body.error.message, q).toContain(message);
    }
    expect((await list(`from=${today()}&to=${inDays(92)}`)).status).toBe(200);
  });

  it("an approval sits on the local date of its expiry in the organisation's own time zone", async () => {
    const la = await t.org(undefined, { timeZone: 'America/Los_Angeles' });
    const chased = await sentInvoice(t, la);
    const { approvalId } = await heldAndRequested(t, la, 'books.invoiceChaseStep', { id: chased, step: 2 });
    const row = await t.db.reader.get<{ expires_at: string }>('SELECT expires_at FROM approvals WHERE org_id = ? AND id = ?', [
      la.orgId,
      approvalId,
    ]);
    const laToday = localDate(new Date().toISOString(), 'America/Los_Angeles');
    const r = await list('kind=approval.expiry', la);
    expect(r.body).toMatchObject({ timeZone: 'America/Los_Angeles', today: laToday, from: laToday });
    expect(r.body.items).toEqual([
      expect.objectContaining({ id: approvalId, date: localDate(row?.expires_at ?? '', 'America/Los_Angeles'), status: 'pending' }),
    ]);
  });

  it('another organisation sees none of these items; a cursor of ours shows it nothing of ours', async () => {
    const other = await t.org();
    const r = await list(`to=${inDays(60)}`, other);
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([]);
    const cursor = encodeCursor({ date: today(), kind: 'approval.expiry', id: ids.approval ?? '' });
    const paged = await list(`to=${inDays(60)}&cursor=${cursor}`, other);
    expect(paged.body.items).toEqual([]);
    expect((await t.get(null, 'meetings.list')).status).toBe(401);
  });
});

describe.each(engines)('GET meetings.list: BAS, super and pay days (%s)', (engine) => {
  let t: TestServer;
  let o: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  it('a BAS on its due date with its status; the next quarter not yet prepared; nothing projected without a BAS', async () => {
    o = await t.org();
    const { last, next } = quarters(today());
    const dueLast = basDueOn(last.periodStart, last.periodEnd);
    const dueNext = basDueOn(next.periodStart, next.periodEnd);
    const none = await t.get(o.keys.observer, `meetings.list?kind=bas.due&from=${addDays(dueNext, -5)}&to=${dueNext}`);
    expect(none.body.items).toEqual([]);
    const bas = await t.post(o.keys.agent, 'books.taxPrepare', last);
    expect(bas.status, JSON.stringify(bas.body)).toBe(200);
    await t.post(o.keys.agent, 'books.taxHold', { id: bas.body.result.id, reason: 'Check it' });
    const r = await t.get(o.keys.observer, `meetings.list?kind=bas.due&from=${addDays(dueLast, -3)}&to=${addDays(dueLast, 3)}`);
    expect(r.body.items).toEqual([
      expect.objectContaining({
        date: dueLast,
        kind: 'bas.due',
        id: bas.body.result.id,
        status: 'held',
        amountCents: bas.body.result.netCents,
      }),
    ]);
    expect(r.body.items[0].title).toContain('(held)');
    const upcoming = await t.get(o.keys.observer, `meetings.list?from=${addDays(dueNext, -5)}&to=${dueNext}`);
    expect(upcoming.body.items).toEqual([
      expect.objectContaining({ date: dueNext, kind: 'bas.due', subjectId: null, status: 'not_prepared', amountCents: null }),
    ]);
    expect(upcoming.body.items[0].title).toContain(`BAS for ${next.periodStart} to ${next.periodEnd}`);
  });

  it('a pay run on its payment date with its net pay, its super on the due date, the next pay days projected', async () => {
    o = await t.org();
    await activeEmployee(t, o, { name: 'Sam Joiner', annualSalaryCents: 7_800_000, payFrequency: 'fortnightly' });
    const paymentDate = inDays(2);
    const draft = await t.post(o.keys.agent, 'books.payrollDraft', {
      periodStart: addDays(today(), -13),
      periodEnd: today(),
      paymentDate,
      payFrequency: 'fortnightly',
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    const run = draft.body.result;
    const before = await t.get(o.keys.observer, `meetings.list?to=${inDays(40)}`);
    expect(before.body.items.map((i: Item) => [i.date, i.kind, i.status, i.amountCents])).toEqual([
      [paymentDate, 'payday', 'draft', run.totals.netCents],
      [addDays(paymentDate, 14), 'payday', 'projected', null],
      [addDays(paymentDate, 28), 'payday', 'projected', null],
    ]);
    expect(before.body.items[1].title).toContain('1 active employee');
    await signPayRun(t, o, run.id);
    const after = await t.get(o.keys.observer, `meetings.list?to=${inDays(40)}`);
    const superDue = after.body.items.find((i: Item) => i.kind === 'super.due');
    // Payday Super: 7 days after the payment date (super-due.ts).
    expect(superDue).toMatchObject({ date: addDays(paymentDate, 7), id: run.id, amountCents: run.totals.superCents, status: 'due' });
    expect(after.body.items.find((i: Item) => i.id === run.id && i.kind === 'payday').status).toBe('signed');
    // A recalled run pays nobody: its pay day and its super leave the calendar.
    const recall = await t.post(o.keys.agent, 'books.payrollRecall', { id: run.id, reason: 'Wrong hours' });
    expect(recall.status, JSON.stringify(recall.body)).toBe(200);
    const gone = await t.get(o.keys.observer, `meetings.list?to=${inDays(40)}`);
    expect(gone.body.items.filter((i: Item) => i.id === run.id)).toEqual([]);
  }, 60_000);
});

describe('meetings.list: where a local day begins', () => {
  it.each([
    // Sydney: daylight saving starts at 02:00 on 4 October 2026, so the 4th is 23 hours long.
    ['Australia/Sydney', '2026-10-03', '2026-10-05', ['2026-10-02T14:00:00.000Z', '2026-10-03T14:00:00.000Z', '2026-10-04T13:00:00.000Z']],
    // Santiago: clocks jump from 00:00 to 01:00 on 6 September 2026, so that day begins at 01:00.
    ['America/Santiago', '2026-09-05', '2026-09-07', ['2026-09-05T04:00:00.000Z', '2026-09-06T04:00:00.000Z', '2026-09-07T03:00:00.000Z']],
    ['Pacific/Kiritimati', '2026-07-01', '2026-07-01', ['2026-06-30T10:00:00.000Z']],
    ['Etc/GMT+12', '2026-07-01', '2026-07-01', ['2026-07-01T12:00:00.000Z']],
  ])('%s from %s to %s', (zone, first, last, expected) => {
    expect([...localDayStarts(first, last, zone).values()]).toEqual(expected);
    for (const [day, start] of localDayStarts(first, last, zone)) {
      expect(startOfLocalDay(day, zone)).toBe(start);
      expect(localDate(start, zone)).toBe(day);
      expect(localDate(new Date(Date.parse(start) - 1).toISOString(), zone) < day).toBe(true);
    }
  });
});

describe('meetings.list: projected pay dates', () => {
  it.each([
    ['weekly', '2026-07-03', '2026-07-01', '2026-07-31', ['2026-07-10', '2026-07-17', '2026-07-24', '2026-07-31']],
    ['fortnightly', '2025-01-03', '2026-07-01', '2026-07-31', ['2026-07-03', '2026-07-17', '2026-07-31']],
    ['monthly', '2026-01-31', '2026-02-01', '2026-05-31', ['2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31']],
    ['monthly', '2026-06-15', '2026-06-01', '2026-06-30', []],
  ])('%s after %s from %s to %s', (frequency, anchor, from, to, expected) => {
    expect(nextPayDates(anchor, frequency, from, to, 100)).toEqual(expected);
  });
});

/** The statement each SQL source issues, for each position of the cursor, reads an index. */
describe('meetings.list: SQLite plans', () => {
  const db = migratedSqliteForSuite();

  function plans(statements: { sql: string; params: readonly unknown[] }[]): string[][] {
    const raw = (db().reader as unknown as { raw: { prepare(s: string): { all(...p: unknown[]): { detail: string }[] } } }).raw;
    return statements.map((s) =>
      raw
        .prepare(`EXPLAIN QUERY PLAN ${s.sql}`)
        .all(...s.params)
        .map((r) => r.detail),
    );
  }

  const recorder = () => {
    const seen: { sql: string; params: readonly unknown[] }[] = [];
    const q: Queryable = {
      all: (sql, params = []) => (seen.push({ sql, params }), Promise.resolve([])),
      get: (sql, params = []) => (seen.push({ sql, params }), Promise.resolve(undefined)),
      run: () => Promise.resolve({ changes: 0 }),
    };
    return { q, seen };
  };

  const windows: Window[] = ([null, 'approval.expiry', 'invoice.due', 'super.due'] as const).map((kind) => ({
    orgId: 'org_x',
    from: '2026-07-01',
    to: '2026-09-30',
    today: '2026-07-01',
    timeZone: DEFAULT_TIME_ZONE,
    take: 51,
    cursor: kind === null ? null : { date: '2026-07-10', kind: kind as MeetingKind, id: 'x_1' },
  }));

  it.each([
    ['invoice.due', invoicesDue, 'SEARCH invoices USING INDEX invoices_due'],
    ['bill.due', billsDue, 'SEARCH bills USING INDEX bills_status_due'],
    ['promise', promises, 'SEARCH p USING INDEX invoice_promises_due'],
    ['payday', payRuns, 'SEARCH pay_runs USING INDEX pay_runs_payment'],
    [
      'approval.expiry',
      (q: Queryable, w: Window) => approvalExpiries(q, w, '2026-07-01T00:00:00.000Z'),
      'SEARCH approvals USING INDEX approvals_expiry',
    ],
  ])('%s reads its index and never scans a table', async (_kind, source, index) => {
    for (const w of windows) {
      const { q, seen } = recorder();
      await source(q, w);
      const [plan] = plans(seen.slice(0, 1));
      expect(
        plan?.some((d) => d.startsWith(index)),
        JSON.stringify(plan),
      ).toBe(true);
      expect(
        plan?.filter((d) => /^SCAN (?!a\b)/.test(d)),
        JSON.stringify(plan),
      ).toEqual([]);
    }
  });
});

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../src/human/users.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleGet, consoleSignIn, type Res, type Signed } from './console-helpers.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { report } from './reports-helpers.js';

/**
 * The owner's read-only view of the books in the console, through HTTP on every
 * engine: the pages show what the API's reads return (a P&L total compared with books.reports),
 * escape what agents typed and label it as theirs, refuse a bookkeeper and another organisation's
 * documents, check their filters and periods like the API, and change nothing.
 */
const AGENT_PAYEE = '<script>alert(1)</script> Harbour & Co';

describe.each(engines)("the owner's view of the books (%s)", (engine) => {
  let t: TestServer;
  let clock = '2026-09-10T01:00:00.000Z';
  let org: CreatedOrg;
  let other: CreatedOrg;
  let owner: Signed;
  let overdueId: string;
  let paidPartId: string;
  let draftId: string;
  let otherInvoiceId: string;
  let billId: string;

  async function ok(o: CreatedOrg, method: string, body: Record<string, unknown>) {
    const r = await t.post(o.keys.agent, method, body);
    expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.result;
  }

  async function sent(o: CreatedOrg, payeeName: string, totalCents: number, description = 'Catering') {
    const d = await ok(o, 'books.invoiceDraft', { payeeName, description, totalCents, dueDays: 14 });
    await ok(o, 'books.invoiceSend', { id: d.id });
    return d.id as string;
  }

  const get = (s: Signed | null, path: string): Promise<Res> => consoleGet(t, s, path);
  const eventCount = async (o: CreatedOrg) =>
    Number((await t.db.reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM events WHERE org_id = ?', [o.orgId]))?.n ?? 0);
  /** The main element of a page: what the view itself shows, without the header. */
  const main = (r: Res) => r.text.slice(r.text.indexOf('<main'), r.text.indexOf('</main>'));
  /** The table row of `m` that names `id`. */
  const rowOf = (m: string, id: string) => {
    const at = m.indexOf(id);
    expect(at, id).toBeGreaterThan(0);
    return m.slice(m.lastIndexOf('<tr', at), m.indexOf('</tr>', at));
  };

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => clock });
    org = await t.org('Harbour Books');
    other = await t.org('Other Books');
    // 10 September: two invoices sent (due 24 September), one part paid; a draft; a bill; bank lines.
    overdueId = await sent(org, AGENT_PAYEE, 110_000, 'October catering <b>bold</b>');
    paidPartId = await sent(org, 'Seaside Events', 55_000);
    await ok(org, 'books.invoiceRecordPayment', { id: paidPartId, amountCents: 20_000 });
    draftId = (await ok(org, 'books.invoiceDraft', { payeeName: 'Draft Pty Ltd', description: 'Later', totalCents: 9_900, dueDays: 30 }))
      .id;
    billId = (await approvedBill(t, org, { payeeName: 'Paper Supplies', description: 'Paper', totalCents: 33_000, dueDays: 14 })).id;
    await ok(org, 'books.feedLines', {
      lines: [
        { date: '2026-09-09', amountCents: 20_000, description: 'DEPOSIT <i>Seaside</i>' },
        { date: '2026-09-09', amountCents: -4_500, description: 'CARD FEES' },
      ],
    });
    otherInvoiceId = await sent(other, 'Elsewhere Ltd', 12_300);
    // A number carried in on this invoice (migration 30's column; the sequence is another item).
    await t.db.write((tx) => tx.run('UPDATE invoices SET number = ? WHERE org_id = ? AND id = ?', ['INV-9001', org.orgId, paidPartId]));
    // 20 October: the first two invoices are past due.
    clock = '2026-10-20T01:00:00.000Z';
    owner = await consoleSignIn(t, org.slug, org.owner.email, org.owner.password);
  });
  afterAll(async () => t?.close());

  it('the nav leads an owner to the overview: what is owed, the bank, the chain, recent activity', async () => {
    const inbox = await get(owner, '/console');
    expect(inbox.text).toContain('<a href="/console/books">Books</a>');
    const r = await get(owner, '/console/books');
    expect(r.status).toBe(200);
    expect(r.text).toContain('<a href="/console/books" aria-current="page">Books</a>');
    const m = main(r);
    expect(m).toContain('The books at a glance');
    // 110 000 + 55 000 − 20 000 owed by customers, as the control account says.
    expect(m).toContain('$1,450.00');
    expect(m).toContain('2 overdue invoices');
    expect(m).toContain('You owe suppliers</dt><dd>$330.00');
    expect(m).toContain('<span class="badge ok">verified</span>');
    const head = await t.db.reader.get<{ seq: number }>('SELECT seq FROM org_heads WHERE org_id = ?', [org.orgId]);
    expect(m).toContain(`seq ${Number(head?.seq)}`);
    expect(m).toContain('none signed yet');
    expect(m).toContain('Business bank account');
    // The feed's unreconciled sum beside the ledger balance: 20 000 − 4 500, 2 lines.
    expect(m).toMatch(/<td class="num">2<\/td>\s*<td class="num">\$155\.00<\/td>/);
    expect(m).toContain('Recent activity');
    expect(m).toContain('<code>books.feed.import</code>');
    expect(m).not.toContain('Elsewhere Ltd');
  });

  it('recent activity says what happened in plain words and labels and escapes what the agent typed', async () => {
    const r = await get(owner, '/console/books/activity');
    expect(r.status).toBe(200);
    const m = main(r);
    // The setup agent key acted: named by its label, never by its id outside the folded details.
    expect(m).toContain('Setup agent key drafted an invoice to Seaside Events for $550.00');
    expect(m).toContain('<span class="label">agent&#39;s description:</span> <q>October catering &lt;b&gt;bold&lt;/b&gt;</q>');
    expect(m).not.toContain('<b>bold</b>');
    expect(m).not.toContain('<script>alert(1)');
    // 33 000 cents, the bill's total; the owner decided its approval, so it reads "You".
    expect(m).toContain('You approved the request to pay the bill from Paper Supplies ($330.00)');
    // Newest first, paged back by seq.
    const seqs = [...m.matchAll(/<span class="mono">#(\d+)<\/span>/g)].map((x) => Number(x[1]));
    expect(seqs.length).toBeGreaterThan(5);
    expect([...seqs].sort((a, b) => b - a)).toEqual(seqs);
    const back = main(await get(owner, `/console/books/activity?before=${seqs[1]}`));
    const older = [...back.matchAll(/<span class="mono">#(\d+)<\/span>/g)].map((x) => Number(x[1]));
    expect(older[0]).toBe(seqs[2]);
    const bad = await get(owner, '/console/books/activity?before=-1');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('before: must be a positive whole number');
  });

  it('invoices: number or id, customer, issued, due, total, outstanding, status; overdue highlighted and escaped', async () => {
    const r = await get(owner, '/console/books/invoices');
    expect(r.status).toBe(200);
    const m = main(r);
    const numberOf = async (id: string) =>
      (await t.db.reader.get<{ number: string | null }>('SELECT number FROM invoices WHERE id = ?', [id]))?.number ?? id;
    const overdueRow = rowOf(m, `/console/books/invoices/${overdueId}`);
    expect(overdueRow).toContain('<tr class="overdue">');
    expect(overdueRow).toContain(`>${await numberOf(overdueId)}</a>`);
    expect(overdueRow).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Harbour &amp; Co');
    expect(overdueRow).toContain('<td class="date">2026-09-10</td>');
    expect(overdueRow).toContain('<td class="date">2026-09-24</td>');
    expect(overdueRow).toContain('$1,100.00');
    expect(overdueRow).toContain('<span class="badge broken">overdue</span>');
    const partRow = rowOf(m, `/console/books/invoices/${paidPartId}`);
    expect(partRow).toContain('>INV-9001</a>');
    expect(partRow).toContain('<td class="num">$550.00</td>');
    expect(partRow).toContain('<td class="num">$350.00</td>');
    expect(partRow).toContain('part paid');
    const draftRow = rowOf(m, `/console/books/invoices/${draftId}`);
    expect(draftRow).not.toContain('overdue');
    expect(m).not.toContain('Elsewhere Ltd');
    // The same rows and outstanding as books.invoices.
    const api = await t.post(org.keys.reader, 'books.invoices', {});
    for (const inv of api.body.result.invoices as { id: string; outstandingCents: number }[]) {
      expect(m).toContain(`/console/books/invoices/${inv.id}`);
    }
    // The status filter is the API's.
    const drafts = main(await get(owner, '/console/books/invoices?status=draft'));
    expect(drafts).toContain(draftId);
    expect(drafts).not.toContain(overdueId);
    expect(drafts).toContain('<option value="draft" selected>');
    const bad = await get(owner, '/console/books/invoices?status=lost');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('status: must be one of');
    const twice = await get(owner, '/console/books/invoices?status=draft&status=sent');
    expect(twice.status).toBe(400);
    expect(twice.text).toContain('status: give it once');
  });

  it("quotes: a read-only sibling of the invoices page, escaped, filtered by the API's status, linking the invoice an accepted one became", async () => {
    const before = await eventCount(org);
    const q = await ok(org, 'books.quoteDraft', { payeeName: AGENT_PAYEE, lines: [{ description: 'Canapés', amountCents: 33_000 }] });
    const accepted = await ok(org, 'books.quoteDecide', { id: q.id, decision: 'accepted' });
    const afterWrites = await eventCount(org);
    expect(afterWrites).toBe(before + 2);
    expect(main(await get(owner, '/console/books/invoices'))).toContain('<a href="/console/books/quotes">Quotes</a>');
    const r = await get(owner, '/console/books/quotes');
    expect(r.status).toBe(200);
    const row = rowOf(main(r), q.number);
    expect(row).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Harbour &amp; Co');
    expect(row).toContain('<td class="num">$330.00</td>');
    expect(row).toContain('accepted');
    expect(row).toContain(`/console/books/invoices/${accepted.invoiceId}`);
    expect(main(await get(owner, '/console/books/quotes?status=declined'))).toContain('No quotes with status declined.');
    const bad = await get(owner, '/console/books/quotes?status=lost');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('status: must be one of');
    // Reading changed nothing.
    expect(await eventCount(org)).toBe(afterWrites);
  });

  it("an invoice's page shows its lines and history; another organisation's invoice is 404", async () => {
    const r = await get(owner, `/console/books/invoices/${overdueId}`);
    expect(r.status).toBe(200);
    const m = main(r);
    expect(m).toContain('Outstanding</dt><dd>$1,100.00');
    expect(m).toContain('<span class="badge broken">overdue</span>');
    expect(m).toContain('<code>books.invoice.draft</code>');
    expect(m).toContain('<code>books.invoice.send</code>');
    expect(m).toContain('October catering &lt;b&gt;bold&lt;/b&gt;');
    const foreign = await get(owner, `/console/books/invoices/${otherInvoiceId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain('Elsewhere Ltd');
    expect((await get(owner, '/console/books/invoices/inv_nosuchthing')).status).toBe(404);
    // Another organisation's invoice as a page cursor is refused as the API refuses it.
    const cursor = await get(owner, `/console/books/invoices?cursor=${otherInvoiceId}`);
    expect(cursor.status).toBe(400);
    expect(cursor.text).toContain('cursor: no invoice');
  });

  it('bills: supplier, due, total, outstanding, status', async () => {
    const r = await get(owner, '/console/books/bills');
    expect(r.status).toBe(200);
    const m = main(r);
    const row = rowOf(m, billId);
    expect(row).toContain('<td>Paper Supplies</td>');
    expect(row).toContain('<td class="date">2026-09-24</td>');
    expect(row).toContain('<td class="num">$330.00</td>');
    expect(row).toContain('approved');
    expect(row).toContain('<tr class="overdue">');
    expect((await get(owner, '/console/books/bills?status=paid')).text).toContain('No bills with status paid');
  });

  it('bank: the lines with their status and the summary books.feedLinesList gives', async () => {
    const r = await get(owner, '/console/books/bank');
    expect(r.status).toBe(200);
    const m = main(r);
    const api = (await t.post(org.keys.reader, 'books.feedLinesList', { status: 'all' })).body.result;
    expect(m).toContain(`Unreconciled lines</dt><dd>${api.summary.unreconciledLines}</dd>`);
    expect(api.summary.unreconciledCents).toBe(15_500);
    expect(m).toContain('Unreconciled sum</dt><dd>$155.00');
    expect(m).toContain(`Ledger balance</dt><dd>$${(api.summary.ledgerBalanceCents / 100).toFixed(2)}`);
    expect(m).toContain('DEPOSIT &lt;i&gt;Seaside&lt;/i&gt;');
    expect(m).toContain('-$45.00');
    expect(m).toContain('<span class="badge status">unmatched</span>');
    expect((await get(owner, '/console/books/bank?account=9999')).status).toBe(404);
    const badStatus = await get(owner, '/console/books/bank?status=gone');
    expect(badStatus.status).toBe(400);
    expect(badStatus.text).toContain('status:');
  });

  it("reports: the P&L and balance sheet are books.reports' figures; the BAS labels are the GST summary's", async () => {
    const r = await get(owner, '/console/books/reports');
    expect(r.status).toBe(200);
    const m = main(r);
    // Default: this financial year (July start) to the organisation's today.
    expect(m).toContain('value="2026-07-01"');
    expect(m).toContain('value="2026-10-20"');
    const pl = await report(t, org, { type: 'profit_and_loss', from: '2026-07-01', to: '2026-10-20' });
    expect(pl.netProfitCents).not.toBe(0);
    const net = /<td class="num" id="pl-net">([^<]+)<\/td>/.exec(m)?.[1];
    const dollars = (c: number) =>
      `${c < 0 ? '-' : ''}$${Math.floor(Math.abs(c) / 100).toLocaleString('en-US')}.${String(Math.abs(c) % 100).padStart(2, '0')}`;
    expect(net).toBe(dollars(pl.netProfitCents));
    expect(/id="pl-revenue">([^<]+)</.exec(m)?.[1]).toBe(dollars(pl.revenue.totalCents));
    const bs = await report(t, org, { type: 'balance_sheet', asOf: '2026-10-20' });
    expect(/id="bs-assets">([^<]+)</.exec(m)?.[1]).toBe(dollars(bs.assets.totalCents));
    expect(m).toContain('balanced');
    const gst = await report(t, org, { type: 'gst_summary', from: '2026-07-01', to: '2026-10-20' });
    expect(m).toContain(`data-label="G1">$${gst.front.G1.toLocaleString('en-AU')}</td>`);
    expect(m).toContain(`data-label="1A">$${gst.front['1A'].toLocaleString('en-AU')}</td>`);
    expect(m).toContain(`data-label="1B">$${gst.front['1B'].toLocaleString('en-AU')}</td>`);
    expect(m).toContain('data-label="W1">');
    // A chosen period, and one before anything happened.
    const june = main(await get(owner, '/console/books/reports?from=2026-06-01&to=2026-06-30'));
    expect(/id="pl-net">([^<]+)</.exec(june)?.[1]).toBe('$0.00');
  });

  it('reports: the payroll table shows overtime, bonuses, allowances and salary sacrifice in plain words when some was paid', async () => {
    const o = await t.org('Payroll Books');
    const kai = await activeEmployee(t, o, { name: 'Kai Tane', annualSalaryCents: 7_280_000 });
    const d = await ok(o, 'books.payrollDraft', {
      periodStart: '2026-09-01',
      periodEnd: '2026-09-14',
      paymentDate: '2026-09-16',
      payFrequency: 'fortnightly',
      earnings: [
        { employeeId: kai, type: 'overtime', hours: 2, multiplier: 1.5 },
        { employeeId: kai, type: 'allowance', amountCents: 1_500, category: 'TD' },
        { employeeId: kai, type: 'bonus', amountCents: 20_000 },
        { employeeId: kai, type: 'salary_sacrifice', amountCents: 10_000 },
      ],
    });
    await signPayRun(t, o, d.id);
    const s = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const m = main(await get(s, '/console/books/reports?from=2026-07-01&to=2026-09-30'));
    const p = await report(t, o, { type: 'payroll_activity', from: '2026-07-01', to: '2026-09-30' });
    const section = m.slice(m.indexOf('id="payroll-title"'), m.indexOf('id="leave-title"'));
    // The columns in the report's order, the extra types in words; no column for a type nobody was paid (unused leave).
    expect([...section.matchAll(/<th scope="col"[^>]*>([^<]+)<\/th>/g)].map((x) => x[1])).toEqual([
      'Employee',
      'Runs',
      'Salary and wages',
      'Paid leave',
      'Overtime',
      'Bonuses and commissions',
      'Allowances',
      'Gross',
      'Salary sacrificed to super',
      'PAYG withheld',
      'Super',
      'Net',
      'Annual leave taken (h)',
      'Personal leave taken (h)',
    ]);
    const dollars = (c: number) => `$${Math.floor(c / 100).toLocaleString('en-US')}.${String(c % 100).padStart(2, '0')}`;
    const e = p.employees[0];
    // 72 800 00 ÷ 52 ÷ 38 × 2 × 1.5 = 11 052.63 → $110.53 overtime.
    expect(e.earnings.overtimeCents).toBe(11_053);
    const row = rowOf(section, 'Kai Tane');
    expect([...row.matchAll(/<td class="num">([^<]+)<\/td>/g)].map((x) => x[1])).toEqual([
      '1',
      dollars(e.earnings.salaryWagesCents),
      '$0.00',
      '$110.53',
      '$200.00',
      '$15.00',
      dollars(e.grossCents),
      '$100.00',
      dollars(e.paygWithheldCents),
      dollars(e.superCents),
      dollars(e.netCents),
      '0',
      '0',
    ]);
  });

  it('a bad period re-shows the picker with the message naming the field, 400', async () => {
    const backwards = await get(owner, '/console/books/reports?from=2026-10-01&to=2026-09-01');
    expect(backwards.status).toBe(400);
    expect(backwards.text).toContain('to: must be on or after from (2026-10-01)');
    expect(backwards.text).toContain('value="2026-09-01"');
    const notDate = await get(owner, '/console/books/reports?from=yesterday');
    expect(notDate.status).toBe(400);
    expect(notDate.text).toMatch(/from: [^<]*date/);
    expect(notDate.text).toContain('<p role="alert" class="notice error" id="period-error">');
    const hostile = await get(owner, `/console/books/reports?from=${encodeURIComponent('"><script>x</script>')}`);
    expect(hostile.status).toBe(400);
    expect(hostile.text).not.toContain('<script>x');
  });

  it('every page is read-only, CSP-clean, and reading it writes no event', async () => {
    const before = await eventCount(org);
    const pages = [
      '/console/books',
      '/console/books/invoices',
      `/console/books/invoices/${overdueId}`,
      '/console/books/bills',
      '/console/books/bank',
      '/console/books/reports',
      '/console/books/activity',
    ];
    for (const path of pages) {
      const r = await get(owner, path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
      const m = main(r);
      expect(m, path).not.toMatch(/<form[^>]*method="post"/i);
      expect(m, path).not.toMatch(/\son[a-z]+=/i);
      expect(r.text, path).not.toMatch(/<script>|style="/);
    }
    expect(await eventCount(org)).toBe(before);
  });

  it('an approver may look; a bookkeeper is refused and not offered the link; no session goes to sign-in', async () => {
    const approver = await addUser(t.db, { orgId: org.orgId, email: `approver-${engine}@example.com`, role: 'approver' });
    const as = await consoleSignIn(t, org.slug, approver.email, approver.password);
    expect((await get(as, '/console/books')).status).toBe(200);
    const clerk = await addUser(t.db, { orgId: org.orgId, email: `clerk-${engine}@example.com`, role: 'bookkeeper' });
    const cs = await consoleSignIn(t, org.slug, clerk.email, clerk.password);
    expect((await get(cs, '/console')).text).not.toContain('/console/books');
    for (const path of ['/console/books', '/console/books/invoices', '/console/books/reports', `/console/books/invoices/${overdueId}`]) {
      const r = await get(cs, path);
      expect(r.status, path).toBe(403);
      expect(r.text).toContain('the owner&#39;s view of the books is for owners and approvers');
      expect(r.text).not.toContain('Harbour &amp; Co');
    }
    const anon = await get(null, '/console/books');
    expect(anon.status).toBe(303);
    expect(anon.headers.get('location')).toBe('/console/login');
    const key = await fetch(`${t.url}/console/books`, { headers: { authorization: `Bearer ${org.keys.reader}` }, redirect: 'manual' });
    expect(key.status).toBe(401);
  });

  it("another organisation's owner sees only their own books", async () => {
    const os = await consoleSignIn(t, other.slug, other.owner.email, other.owner.password);
    const m = main(await get(os, '/console/books/invoices'));
    expect(m).toContain('Elsewhere Ltd');
    expect(m).not.toContain('Harbour &amp; Co');
    expect((await get(os, `/console/books/invoices/${overdueId}`)).status).toBe(404);
    const act = main(await get(os, '/console/books/activity'));
    expect(act).not.toContain('October catering');
  });

  it('random queries and ids on every owner page never answer 5xx, and never show another organisation', async () => {
    const junk = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom(
        '',
        '-1',
        '0',
        '1e309',
        '99999999999999999999',
        '2026-02-30',
        '2026-13-01',
        '<script>',
        '\u0000',
        '%00',
        '💸',
        'all',
        'draft',
        '1000',
        otherInvoiceId,
      ),
    );
    const request = fc.record({
      path: fc.oneof(
        fc.constantFrom(
          '/console/books',
          '/console/books/invoices',
          '/console/books/quotes',
          '/console/books/bills',
          '/console/books/bank',
          '/console/books/reports',
          '/console/books/activity',
          '/console/books/ledger',
        ),
        fc
          .oneof(fc.constantFrom(overdueId, otherInvoiceId, '..', '%2e%2e'), fc.string({ minLength: 1, maxLength: 12 }))
          .map((x) => `/console/books/invoices/${encodeURIComponent(x)}`),
      ),
      query: fc.array(
        fc.tuple(fc.constantFrom('status', 'cursor', 'account', 'accountCode', 'compare', 'from', 'to', 'before', 'limit'), junk),
        { maxLength: 3 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(request, async (q) => {
        const qs = new URLSearchParams(q.query).toString();
        const r = await get(owner, `${q.path}${qs ? `?${qs}` : ''}`);
        expect(r.status, `${JSON.stringify(q)} → ${r.status} ${r.text.slice(0, 200)}`).toBeLessThan(500);
        expect(r.text).not.toContain('Elsewhere Ltd');
      }),
      { numRuns: Number(process.env.FD_HOSTILE_RUNS ?? 150) },
    );
  }, 300_000);
});

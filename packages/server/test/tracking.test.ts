import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { journalLinesSha256, type JournalLineForm } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAuditPack } from '../src/ops/audit-pack.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleGet, consoleSignIn } from './console-helpers.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, today } from './payables-helpers.js';

/**
 * Tracking categories (books.trackingSet) on lines and in the reports, through HTTP on both
 * engines. The books of the main case, October 2026, Division with options Cafe and Catering:
 *
 *   invoice A  Cafe sales 11 000 (GST 1 000)            → Cr 4000 10 000 Cafe
 *   invoice B  Wedding catering 33 000 (GST 3 000)      → Cr 4000 30 000 Catering
 *              Delivery 5 500 (GST 500), no tracking    → Cr 4000  5 000 unassigned
 *   bill       Cafe produce 2 200 (GST 200)             → Dr 6000  2 000 Cafe
 *              Catering produce 4 400 (GST 400)         → Dr 6000  4 000 Catering
 *   journal    Rent 8 000 Cafe, 4 000 Catering, 1 000 unassigned (Cr 1000 13 000)
 *   bank split a payment of 3 300 on 1000: 2 200 to 6600 GST Cafe (net 2 000), 1 100 to 6600
 *              GST unassigned (net 1 000)
 *
 *              revenue   expenses (6000 + 6500 + 6600)        net profit
 *   Cafe        10 000   12 000 (2 000 + 8 000 + 2 000)          −2 000
 *   Catering    30 000    8 000 (4 000 + 4 000)                  22 000
 *   unassigned   5 000    2 000 (1 000 + 1 000)                   3 000
 *   whole       45 000   22 000                                  23 000  (= −2 000 + 22 000 + 3 000)
 */

const OCT = { type: 'profit_and_loss', from: '2026-10-01', to: '2026-10-31' };

describe.each(engines)('tracking categories (%s)', (engine) => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    t = await startTestServer(engine);
    dir = mkdtempSync(join(tmpdir(), 'fd-tracking-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const { post, ok, seq, lastEvent } = agentCalls(() => t);
  const refused = async (o: CreatedOrg, method: string, params: Record<string, unknown>, status: number, message: string | RegExp) => {
    const before = await seq(o);
    const r = await post(o, method, params);
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.error.message).toMatch(message);
    expect(await seq(o)).toBe(before);
  };
  const division = (o: CreatedOrg) =>
    ok(o, 'books.trackingSet', { category: 'Division', options: [{ name: 'Cafe' }, { name: 'Catering' }] });
  const report = (o: CreatedOrg, params: Record<string, unknown>) => ok(o, 'books.reports', params);
  const amounts = (section: { accounts: { code: string; amountCents: number }[] }) =>
    Object.fromEntries(section.accounts.map((a) => [a.code, a.amountCents]));

  /** The main case's books (see the header). */
  async function books(o: CreatedOrg) {
    await division(o);
    const a = await ok(o, 'books.invoiceDraft', {
      payeeName: 'Harbour Walk-ins',
      description: 'Cafe takings',
      totalCents: 11_000,
      dueDays: 7,
      issueDate: '2026-10-05',
      lines: [{ description: 'Cafe sales', amountCents: 11_000, tracking: { Division: 'Cafe' } }],
    });
    expect(a.lines[0].tracking).toEqual({ Division: 'Cafe' });
    const b = await ok(o, 'books.invoiceDraft', {
      payeeName: 'Harbour Events',
      description: 'Wedding',
      totalCents: 38_500,
      dueDays: 14,
      issueDate: '2026-10-10',
      // Names are matched ignoring case and accents, and answered as they were set up.
      lines: [
        { description: 'Wedding catering', amountCents: 33_000, tracking: { division: 'CATERING' } },
        { description: 'Delivery', amountCents: 5_500 },
      ],
    });
    expect(b.lines.map((l: { tracking?: unknown }) => l.tracking)).toEqual([{ Division: 'Catering' }, undefined]);
    await ok(o, 'books.invoiceSend', { id: a.id });
    await ok(o, 'books.invoiceSend', { id: b.id });
    const bill = await approvedBill(t, o, {
      payeeName: 'Fresh Produce Co',
      description: 'Produce for October',
      issueDate: '2026-10-12',
      lines: [
        { description: 'Cafe produce', amountCents: 2_200, tracking: { Division: 'Cafe' } },
        { description: 'Catering produce', amountCents: 4_400, tracking: { Division: 'Catering' } },
      ],
    });
    expect(bill.lines.map((l: { tracking?: unknown; gstCents: number }) => [l.gstCents, l.tracking])).toEqual([
      [200, { Division: 'Cafe' }],
      [400, { Division: 'Catering' }],
    ]);
    const journal = await ok(o, 'books.journalPost', {
      date: '2026-10-31',
      memo: 'October rent',
      lines: [
        { accountCode: '6500', debitCents: 8_000, tracking: { Division: 'Cafe' } },
        { accountCode: '6500', debitCents: 4_000, tracking: { Division: 'Catering' } },
        { accountCode: '6500', debitCents: 1_000 },
        { accountCode: '1000', creditCents: 13_000 },
      ],
    });
    expect(journal.lines.map((l: { tracking?: unknown }) => l.tracking)).toEqual([
      { Division: 'Cafe' },
      { Division: 'Catering' },
      undefined,
      undefined,
    ]);
    const fed = await ok(o, 'books.feedLines', {
      accountCode: '1000',
      lines: [{ date: '2026-10-20', amountCents: -3_300, description: 'OFFICEWORKS' }],
    });
    await ok(o, 'books.lineSplit', {
      lineId: fed.lineIds[0],
      parts: [
        { accountCode: '6600', taxCode: 'GST_ON_EXPENSES', amountCents: 2_200, tracking: { Division: 'Cafe' } },
        { accountCode: '6600', taxCode: 'GST_ON_EXPENSES', amountCents: 1_100 },
      ],
    });
    return { a, b, bill, journal };
  }

  it('sets up a category, tags invoices, a bill, a journal and a split, and filters the profit and loss to sum to the whole', async () => {
    const o = await t.org();
    await books(o);
    const whole = await report(o, OCT);
    expect(whole.tracking).toBeUndefined();
    expect(amounts(whole.revenue)).toEqual({ '4000': 45_000 });
    expect(amounts(whole.expenses)).toEqual({ '6000': 6_000, '6500': 13_000, '6600': 3_000 });
    expect(whole.netProfitCents).toBe(23_000);

    const cafe = await report(o, { ...OCT, tracking: { Division: 'Cafe' } });
    expect(cafe.tracking).toEqual({ Division: 'Cafe' });
    expect(amounts(cafe.revenue)).toEqual({ '4000': 10_000 });
    expect(amounts(cafe.expenses)).toEqual({ '6000': 2_000, '6500': 8_000, '6600': 2_000 });
    expect(cafe.netProfitCents).toBe(-2_000);

    const catering = await report(o, { ...OCT, tracking: { Division: 'Catering' } });
    expect(amounts(catering.revenue)).toEqual({ '4000': 30_000 });
    expect(amounts(catering.expenses)).toEqual({ '6000': 4_000, '6500': 4_000 });
    expect(catering.netProfitCents).toBe(22_000);

    const unassigned = await report(o, { ...OCT, tracking: { Division: null } });
    expect(unassigned.tracking).toEqual({ Division: null });
    expect(amounts(unassigned.revenue)).toEqual({ '4000': 5_000 });
    expect(amounts(unassigned.expenses)).toEqual({ '6500': 1_000, '6600': 1_000 });
    expect(unassigned.netProfitCents).toBe(3_000);

    // The property: each option plus unassigned is the whole, account by account.
    const parts = [cafe, catering, unassigned];
    expect(parts.reduce((s, r) => s + r.netProfitCents, 0)).toBe(whole.netProfitCents);
    for (const side of ['revenue', 'expenses'] as const) {
      const summed: Record<string, number> = {};
      for (const r of parts) for (const [code, cents] of Object.entries(amounts(r[side]))) summed[code] = (summed[code] ?? 0) + cents;
      expect(summed).toEqual(amounts(whole[side]));
      expect(parts.reduce((s, r) => s + r[side].totalCents, 0)).toBe(whole[side].totalCents);
    }
  });

  it('filters the trial balance, balance sheet, account transactions and budget actuals, and lists the categories', async () => {
    const o = await t.org();
    const { journal, b } = await books(o);
    // Cafe's lines to date: Cr 4000 10 000; Dr 6000 2 000, 6500 8 000, 6600 2 000 (no receivable,
    // GST or bank line carries an option), so debits 12 000 against credits 10 000.
    const tb = await report(o, { type: 'trial_balance', asOf: '2026-10-31', tracking: { Division: 'Cafe' } });
    expect(tb).toMatchObject({ tracking: { Division: 'Cafe' }, totals: { debitCents: 12_000, creditCents: 10_000 }, balanced: false });
    expect(tb.rows.map((r: { code: string }) => r.code)).toEqual(['4000', '6000', '6500', '6600']);
    const whole = await report(o, { type: 'trial_balance', asOf: '2026-10-31' });
    expect(whole.balanced).toBe(true);
    // The balance sheet of Catering: no asset or liability lines, its earnings 22 000.
    const bs = await report(o, { type: 'balance_sheet', asOf: '2026-10-31', tracking: { Division: 'Catering' } });
    expect(bs).toMatchObject({ tracking: { Division: 'Catering' }, currentYearEarningsCents: 22_000, balanced: false });
    expect(bs.assets.totalCents).toBe(0);
    // 6500 Rent for Cafe: the journal's one line, balance 8 000.
    const gl = await report(o, {
      type: 'account_transactions',
      accountCode: '6500',
      from: '2026-10-01',
      to: '2026-10-31',
      tracking: { Division: 'Cafe' },
    });
    expect(gl).toMatchObject({ openingBalanceCents: 0, closingBalanceCents: 8_000, totals: { debitCents: 8_000, creditCents: 0 } });
    expect(gl.lines).toEqual([
      expect.objectContaining({ journalId: journal.journalId, debitCents: 8_000, balanceCents: 8_000, tracking: { Division: 'Cafe' } }),
    ]);
    // Unfiltered, every line of 6500 shows its tracking (the third has none).
    const all = await report(o, { type: 'account_transactions', accountCode: '6500', from: '2026-10-01', to: '2026-10-31' });
    expect(all.lines.map((l: { tracking?: unknown }) => l.tracking)).toEqual([{ Division: 'Cafe' }, { Division: 'Catering' }, undefined]);
    // Budgets are not tracked; the actuals are Catering's: 4000 30 000; 6000 4 000, 6500 4 000.
    await ok(o, 'books.budgetSet', {
      financialYearStart: '2026-07-01',
      lines: [{ accountCode: '4000', monthlyCents: Array(12).fill(40_000) }],
    });
    const bva = await report(o, { type: 'budget_vs_actual', from: '2026-10-01', to: '2026-10-31', tracking: { Division: 'Catering' } });
    expect(bva.tracking).toEqual({ Division: 'Catering' });
    expect(bva.totals).toEqual({
      revenue: { budgetCents: 40_000, actualCents: 30_000, varianceCents: -10_000 },
      expenses: { budgetCents: 0, actualCents: 8_000, varianceCents: 8_000 },
      netProfit: { budgetCents: 40_000, actualCents: 22_000, varianceCents: -18_000 },
    });
    // books.journals shows the lines' tracking; books.accounts lists the categories.
    const js = await ok(o, 'books.journals', { sourceId: journal.journalId });
    expect(js.journals[0].lines[0].tracking).toEqual({ Division: 'Cafe' });
    // The owner's console shows a line's tracking beside its description.
    const owner = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const page = await consoleGet(t, owner, `/console/books/invoices/${b.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Wedding catering <span class="hint">Division: Catering</span>');
    const ledger = await consoleGet(t, owner, '/console/books/ledger?accountCode=6500&from=2026-10-01&to=2026-10-31');
    expect(ledger.text).toContain('<span class="hint">Division: Cafe</span>');
    const accounts = await ok(o, 'books.accounts', { type: 'revenue' });
    expect(accounts.trackingCategories).toEqual([
      {
        id: expect.stringMatching(/^trk_/),
        name: 'Division',
        options: [
          { id: expect.stringMatching(/^tro_/), name: 'Cafe', archived: false },
          { id: expect.stringMatching(/^tro_/), name: 'Catering', archived: false },
        ],
      },
    ]);
  });

  it("binds each line's tracking into its posting event, keeps untracked lines hashing as before, and the audit pack verifies", async () => {
    const o = await t.org();
    const { journal } = await books(o);
    const event = (await t.get(o.keys.observer, 'events?limit=500')).body.events.find(
      (e: { kind: string; entity_id: string }) => e.kind === 'books.journal.post' && e.entity_id === journal.journalId,
    );
    const binding = event.payload.journals[0];
    const rows = await t.db.reader.all<Record<string, unknown>>(
      `SELECT account_code, debit_cents, credit_cents, tax_code, tax_base_cents, gst_cents, doc_id, description, tracking1, tracking2
       FROM journal_lines WHERE org_id = ? AND journal_id = ? ORDER BY line_no`,
      [o.orgId, journal.journalId],
    );
    const forms: JournalLineForm[] = rows.map((r) => ({
      accountCode: String(r.account_code),
      debitCents: Number(r.debit_cents),
      creditCents: Number(r.credit_cents),
      taxCode: (r.tax_code as string | null) ?? null,
      taxBaseCents: Number(r.tax_base_cents),
      gstCents: Number(r.gst_cents),
      docId: (r.doc_id as string | null) ?? null,
      description: String(r.description),
      tracking1: (r.tracking1 as string | null) ?? null,
      tracking2: (r.tracking2 as string | null) ?? null,
    }));
    expect(forms.map((f) => f.tracking1 !== null)).toEqual([true, true, false, false]);
    expect(journalLinesSha256(forms)).toBe(binding.linesSha256);
    // Without its tracking the journal hashes otherwise: the option is bound.
    expect(journalLinesSha256(forms.map((f) => ({ ...f, tracking1: null })))).not.toBe(binding.linesSha256);
    // A line without tracking hashes as it did before tracking existed (no key, null or undefined).
    const untracked = forms.slice(2).map(({ tracking1: _a, tracking2: _b, ...f }) => f);
    expect(journalLinesSha256(untracked)).toBe(journalLinesSha256(untracked.map((f) => ({ ...f, tracking1: null, tracking2: undefined }))));
    // The audit pack carries the option ids, and its verifier ties every journal to its event.
    const out = join(dir, `pack-${engine}.tar.gz`);
    await writeAuditPack(t.db, {
      orgId: o.orgId,
      orgSlug: o.slug,
      from: '2000-01-01',
      to: '2026-12-31',
      out,
      vkey: null,
      now: new Date().toISOString(),
    });
    const into = mkdtempSync(join(dir, 'x-'));
    execFileSync('tar', ['-xzf', out, '-C', into]);
    const folder = join(into, readdirSync(into)[0] as string);
    const v = spawnSync(process.execPath, ['verify.mjs', '--json'], { cwd: folder, encoding: 'utf8', timeout: 60_000 });
    const verdict = JSON.parse(v.stdout) as { checks: { name: string; ok: boolean; detail: string }[] };
    expect(verdict.checks.find((c) => c.name === 'journals')).toMatchObject({ ok: true });
  });

  it('a void and a journal reversal carry the tracking, so the filtered figures net to nothing', async () => {
    const o = await t.org();
    await division(o);
    const inv = await ok(o, 'books.invoiceDraft', {
      payeeName: 'Corner Store',
      description: 'Catering platter',
      totalCents: 2_200,
      dueDays: 7,
      issueDate: '2026-10-03',
      lines: [{ description: 'Platter', amountCents: 2_200, tracking: { Division: 'Catering' } }],
    });
    await ok(o, 'books.invoiceSend', { id: inv.id });
    // A void posts on the day it is made: the period runs to today.
    const p = { ...OCT, to: today(), tracking: { Division: 'Catering' } };
    expect((await report(o, p)).netProfitCents).toBe(2_000);
    await ok(o, 'books.invoiceVoid', { id: inv.id, reason: 'Sent in error' });
    expect((await report(o, p)).netProfitCents).toBe(0);
    const j = await ok(o, 'books.journalPost', {
      date: '2026-10-30',
      memo: 'Misposted',
      lines: [
        { accountCode: '6600', debitCents: 500, tracking: { Division: 'Catering' } },
        { accountCode: '1000', creditCents: 500 },
      ],
    });
    expect((await report(o, p)).netProfitCents).toBe(-500);
    await ok(o, 'books.journalReverse', { journalId: j.journalId, date: '2026-10-31', reason: 'Misposted' });
    expect((await report(o, p)).netProfitCents).toBe(0);
  });

  it('renames and archives idempotently by state; an archived option stays reportable and refuses new lines', async () => {
    const o = await t.org();
    const first = await division(o);
    expect(first.noop).toBeUndefined();
    expect(first.category.options.map((x: { name: string }) => x.name)).toEqual(['Cafe', 'Catering']);
    const created = await lastEvent(o);
    expect(created).toMatchObject({
      kind: 'books.tracking.set',
      entity_id: first.category.id,
      payload: { categoryId: first.category.id, slot: 1, name: 'Division', created: true },
    });
    expect(created.payload.options).toEqual([
      { id: first.category.options[0].id, name: 'Cafe', archived: false, created: true },
      { id: first.category.options[1].id, name: 'Catering', archived: false, created: true },
    ]);
    // The same call again (in any case): a no-op answering the event that made it.
    const before = await seq(o);
    const again = await ok(o, 'books.trackingSet', { category: 'DIVISION', options: [{ name: 'cafe' }, { name: 'Catering' }] });
    expect(again).toEqual({ ...first, noop: true });
    expect(await seq(o)).toBe(before);

    const renamed = await ok(o, 'books.trackingSet', {
      category: 'Division',
      newName: 'Business line',
      options: [{ name: 'Cafe', newName: 'Café' }, { name: 'Events' }],
    });
    expect(renamed.category).toMatchObject({ id: first.category.id, name: 'Business line' });
    expect(renamed.category.options.map((x: { name: string }) => x.name)).toEqual(['Café', 'Catering', 'Events']);
    expect((await lastEvent(o)).payload).toMatchObject({
      name: 'Business line',
      previousName: 'Division',
      created: false,
      options: [
        { id: first.category.options[0].id, name: 'Café', previousName: 'Cafe', archived: false, created: false },
        { name: 'Events', archived: false, created: true },
      ],
    });
    // The rename again: found by its new names, a no-op.
    const mid = await seq(o);
    const renamedAgain = await ok(o, 'books.trackingSet', {
      category: 'Division',
      newName: 'Business line',
      options: [{ name: 'Cafe', newName: 'Café' }, { name: 'Events' }],
    });
    expect(renamedAgain).toEqual({ ...renamed, noop: true });
    expect(await seq(o)).toBe(mid);

    // A line on Events, then Events archived: kept in the filter, refused on new lines.
    await ok(o, 'books.journalPost', {
      date: '2026-10-15',
      memo: 'Stall hire',
      lines: [
        { accountCode: '6000', debitCents: 3_000, tracking: { 'Business line': 'Events' } },
        { accountCode: '1000', creditCents: 3_000 },
      ],
    });
    const archived = await ok(o, 'books.trackingSet', { category: 'Business line', options: [{ name: 'Events', archived: true }] });
    expect(archived.category.options[2]).toMatchObject({ name: 'Events', archived: true });
    expect(await ok(o, 'books.trackingSet', { category: 'Business line', options: [{ name: 'Events', archived: true }] })).toMatchObject({
      noop: true,
    });
    expect((await report(o, { ...OCT, tracking: { 'Business line': 'Events' } })).netProfitCents).toBe(-3_000);
    await refused(
      o,
      'books.journalPost',
      {
        date: '2026-10-16',
        memo: 'More hire',
        lines: [
          { accountCode: '6000', debitCents: 1_000 },
          { accountCode: '6000', debitCents: 1_000, tracking: { 'Business line': 'Events' } },
          { accountCode: '1000', creditCents: 2_000 },
        ],
      },
      400,
      'lines[1].tracking.Business line: option "Events" is archived; new lines take only active options',
    );
    // Restored, it takes lines again.
    expect(
      (await ok(o, 'books.trackingSet', { category: 'Business line', options: [{ name: 'Events', archived: false }] })).category.options[2]
        .archived,
    ).toBe(false);

    // A second category takes slot 2; a third is CONFLICT.
    const region = await ok(o, 'books.trackingSet', { category: 'Region', options: [{ name: 'North' }] });
    expect((await lastEvent(o)).payload).toMatchObject({ categoryId: region.category.id, slot: 2 });
    await refused(
      o,
      'books.trackingSet',
      { category: 'Channel', options: [{ name: 'Online' }] },
      409,
      /already \("Business line", "Region"\)/,
    );
    // Two categories on one line, filtered by both.
    await ok(o, 'books.journalPost', {
      date: '2026-10-17',
      memo: 'Northern catering van',
      lines: [
        { accountCode: '6700', debitCents: 700, tracking: { 'Business line': 'Catering', Region: 'North' } },
        { accountCode: '1000', creditCents: 700 },
      ],
    });
    const both = await report(o, { ...OCT, tracking: { 'Business line': 'Catering', Region: 'North' } });
    expect(both).toMatchObject({ netProfitCents: -700, tracking: { 'Business line': 'Catering', Region: 'North' } });
    expect((await report(o, { ...OCT, tracking: { Region: null } })).netProfitCents).toBe(-3_000);
  });

  it('refuses bad input naming the field, changing nothing', async () => {
    const o = await t.org();
    await division(o);
    const invoice = (tracking: unknown) => ({
      payeeName: 'Someone',
      description: 'x',
      totalCents: 2_000,
      dueDays: 7,
      lines: [
        { description: 'a', amountCents: 1_000 },
        { description: 'b', amountCents: 1_000, tracking },
      ],
    });
    await refused(
      o,
      'books.invoiceDraft',
      invoice({ Region: 'North' }),
      400,
      'lines[1].tracking: no tracking category named "Region" (categories: "Division")',
    );
    await refused(
      o,
      'books.invoiceDraft',
      invoice({ Division: 'Bakery' }),
      400,
      'lines[1].tracking.Division: no option "Bakery" in "Division" (options: "Cafe", "Catering")',
    );
    await refused(
      o,
      'books.invoiceDraft',
      invoice({ Division: 'Cafe', division: 'Catering' }),
      400,
      'lines[1].tracking: names category "Division" twice',
    );
    await refused(o, 'books.invoiceDraft', invoice({}), 400, 'lines[1].tracking: must name 1 to 2 categories');
    await refused(o, 'books.invoiceDraft', invoice({ '': 'Cafe' }), 400, 'lines[1].tracking.: category names are 1 to 100 characters');
    await refused(
      o,
      'books.billCapture',
      { payeeName: 'S', description: 'x', dueDays: 7, lines: [{ description: 'a', amountCents: 100, tracking: { Division: 'Nope' } }] },
      400,
      'lines[0].tracking.Division: no option "Nope"',
    );
    const fed = await ok(o, 'books.feedLines', {
      accountCode: '1000',
      lines: [{ date: '2026-10-20', amountCents: -2_000, description: 'TWO PARTS' }],
    });
    await refused(
      o,
      'books.lineSplit',
      {
        lineId: fed.lineIds[0],
        parts: [
          { accountCode: '6600', amountCents: 1_000 },
          { accountCode: '6600', amountCents: 1_000, tracking: { Division: 'Nope' } },
        ],
      },
      400,
      'parts[1].tracking.Division: no option "Nope"',
    );
    await refused(
      o,
      'books.reports',
      { type: 'gst_summary', from: '2026-10-01', to: '2026-10-31', tracking: { Division: 'Cafe' } },
      400,
      'tracking: is only used by profit_and_loss, trial_balance, balance_sheet, account_transactions, budget_vs_actual',
    );
    await refused(o, 'books.reports', { ...OCT, tracking: { Region: 'North' } }, 400, 'tracking: no tracking category named "Region"');
    await refused(o, 'books.reports', { ...OCT, tracking: { Division: 'Bakery' } }, 400, 'tracking.Division: no option "Bakery"');
    await refused(o, 'books.trackingSet', { category: 'Division' }, 400, 'options: give options or newName');
    await refused(
      o,
      'books.trackingSet',
      { category: 'Division', options: [{ name: 'Cafe', newName: 'Catering' }] },
      400,
      'options[0].newName: "Division" already has an option "Catering"',
    );
    await refused(
      o,
      'books.trackingSet',
      { category: 'Division', options: [{ name: 'Bakery', newName: 'Patisserie' }] },
      400,
      'options[0].name: no option "Bakery" to rename',
    );
    await refused(
      o,
      'books.trackingSet',
      { category: 'Division', options: [{ name: 'Pop-up' }, { name: 'POP-UP' }] },
      400,
      'options[1].name: names the same option as options[0]',
    );
    await refused(
      o,
      'books.trackingSet',
      { category: 'Region', newName: 'Area' },
      400,
      'category: no tracking category named "Region" or "Area" to rename',
    );
    await refused(
      o,
      'books.trackingSet',
      { category: 'Division', options: Array.from({ length: 99 }, (_, i) => ({ name: `Option ${i}` })) },
      400,
      'options[98].name: a category has at most 100 options',
    );
    // Another organisation's names mean nothing here.
    const other = await t.org();
    await refused(
      other,
      'books.journalPost',
      {
        date: '2026-10-01',
        memo: 'x',
        lines: [
          { accountCode: '6000', debitCents: 100, tracking: { Division: 'Cafe' } },
          { accountCode: '1000', creditCents: 100 },
        ],
      },
      400,
      'lines[0].tracking: the organisation has no tracking categories',
    );
  });
});

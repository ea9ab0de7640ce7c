import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../src/human/users.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleForm, consoleGet, consoleSignIn, orgEvents, type Res, type Signed } from './console-helpers.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { postEntry, report } from './reports-helpers.js';

/**
 * The chart of accounts page and the reports' comparison and general ledger in the console,
 * through HTTP on every engine: the page lists the chart by class with the API's balances; an
 * owner adds, changes and archives accounts through the chart methods' own domain writes (one
 * event each, the owner the actor, a repeat changing nothing); a non-owner is refused; a bad
 * field is named beside it and nothing changes. The reports compare with the previous period or
 * year (figures by hand below) and each account opens its general ledger, paged.
 */

describe.each(engines)('the chart of accounts and the reports in the console (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let owner: Signed;
  const { ok } = agentCalls(() => t);

  const get = (s: Signed | null, path: string): Promise<Res> => consoleGet(t, s, path);
  const form = (s: Signed, path: string, fields: Record<string, string>) => consoleForm(t, s, path, { _csrf: s.csrf, ...fields });
  const main = (r: Res) => r.text.slice(r.text.indexOf('<main'), r.text.indexOf('</main>'));
  const rowOf = (m: string, needle: string) => {
    const at = m.indexOf(needle);
    expect(at, needle).toBeGreaterThan(0);
    return m.slice(m.lastIndexOf('<tr', at), m.indexOf('</tr>', at));
  };
  const eventCount = async (o: CreatedOrg) => (await orgEvents(t, o.orgId)).length;
  const apiAccount = async (o: CreatedOrg, code: string) =>
    ((await ok(o, 'books.accounts', {})).accounts as { code: string }[]).find((a) => a.code === code) as any;

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => '2026-09-15T01:00:00.000Z' });
    org = await t.org('Chart Books');
    // Postings on chosen dates (figures of the comparison tests):
    //   2025-08-20 sale 500.00 (Dr 1000 / Cr 4000)       last year's August
    //   2026-07-10 sale 300.00, 2026-07-20 rent 100.00    July
    //   2026-08-05 sale 800.00, 2026-08-12 rent 100.00, 2026-08-25 bank fees 15.00   August
    const sale = (cents: number) => [
      { account: '1000', debitCents: cents, description: 'Takings' },
      { account: '4000', creditCents: cents, description: 'Takings' },
    ];
    const spend = (account: string, cents: number, what: string) => [
      { account, debitCents: cents, description: what },
      { account: '1000', creditCents: cents, description: what },
    ];
    await postEntry(t, org, '2025-08-20', 'August takings', sale(50_000));
    await postEntry(t, org, '2026-07-10', 'July takings', sale(30_000));
    await postEntry(t, org, '2026-07-20', 'July rent', spend('6500', 10_000, 'Rent July'));
    await postEntry(t, org, '2026-08-05', 'August takings', sale(80_000));
    await postEntry(t, org, '2026-08-12', 'August rent', spend('6500', 10_000, 'Rent August'));
    await postEntry(t, org, '2026-08-25', 'Card fees', spend('6300', 1_500, 'Monthly fee <b>card</b>'));
    owner = await consoleSignIn(t, org.slug, org.owner.email, org.owner.password);
  });
  afterAll(async () => t?.close());

  it('the nav leads to the chart: every account by class with its tax code, flags and the API balance', async () => {
    const inbox = await get(owner, '/console');
    expect(inbox.text).toContain('<a href="/console/accounts">Chart of accounts</a>');
    const r = await get(owner, '/console/accounts');
    expect(r.status).toBe(200);
    expect(r.text).toContain('<a href="/console/accounts" aria-current="page">Chart of accounts</a>');
    const m = main(r);
    for (const h of ['Assets', 'Liabilities', 'Equity', 'Revenue', 'Expenses']) expect(m).toContain(`>${h}</h2>`);
    // 1000 as at today: 500 + 300 − 100 + 800 − 100 − 15 = 1,385.00; a system account.
    const bank = rowOf(m, '/console/accounts/1000"');
    expect(bank).toContain('<td>Business bank account</td>');
    expect(bank).toContain('<span class="badge">system</span>');
    expect(bank).toContain('<td class="num">$1,385.00</td>');
    expect((await apiAccount(org, '1000')).balanceCents).toBe(138_500);
    // Sales: 500 + 300 + 800 = 1,600.00 credit, positive in its normal direction.
    expect(rowOf(m, '/console/accounts/4000"')).toContain('<td class="num">$1,600.00</td>');
    const rent = rowOf(m, '/console/accounts/6500"');
    expect(rent).toContain('<td>expense</td>');
    expect(rent).not.toContain('badge">system');
    // Every account of books.accounts is on the page.
    for (const a of (await ok(org, 'books.accounts', {})).accounts as { code: string }[]) {
      expect(m).toContain(`/console/accounts/${a.code}"`);
    }
    expect(m).toContain('<form method="post" action="/console/accounts"');
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(r.text).not.toMatch(/<script>|style="|\son[a-z]+=/);
  });

  it('an owner adds an account: one event with the owner as actor, in books.accounts; the same again changes nothing', async () => {
    const before = await eventCount(org);
    const fields = { code: '6950', name: 'Software subscriptions', type: 'expense', taxCode: 'GST' };
    const r = await form(owner, '/console/accounts', fields);
    expect(r.status, r.text.slice(0, 300)).toBe(303);
    expect(r.headers.get('location')).toBe('/console/accounts?added=6950');
    const events = await orgEvents(t, org.orgId);
    expect(events.length).toBe(before + 1);
    expect(events.at(-1)).toMatchObject({
      kind: 'books.account.create',
      actor: org.owner.userId,
      entity_id: '6950',
      payload: { code: '6950', name: 'Software subscriptions', type: 'expense', taxCode: 'GST', reconcilable: false },
    });
    expect(await apiAccount(org, '6950')).toMatchObject({ code: '6950', name: 'Software subscriptions', type: 'expense', balanceCents: 0 });
    const page = main(await get(owner, '/console/accounts?added=6950'));
    expect(page).toContain('Account 6950 added and recorded in the ledger.');
    const row = rowOf(page, '/console/accounts/6950"');
    expect(row).toContain('<td>GST</td>');
    expect(row).toContain('<td>no</td>');
    // A second submit of the same form (a double click) is the method's no-op.
    const again = await form(owner, '/console/accounts', fields);
    expect(again.headers.get('location')).toBe('/console/accounts?unchanged=6950');
    expect(await eventCount(org)).toBe(before + 1);
  });

  it('an owner renames, retypes and changes the tax code before postings, one event each; a system account is rename-only', async () => {
    await form(owner, '/console/accounts', { code: '1850', name: 'Deposits paid', type: 'asset', reconcilable: 'yes' });
    const edit = main(await get(owner, '/console/accounts/1850'));
    expect(edit).toContain('<select id="type" name="type"');
    expect(edit).toContain('<input type="checkbox" name="reconcilable" value="yes" checked>');
    const before = await eventCount(org);
    const r = await form(owner, '/console/accounts/1850', { name: 'Bonds paid', type: 'asset', taxCode: '', reconcilable: 'yes' });
    expect(r.status, r.text.slice(0, 300)).toBe(303);
    expect(r.headers.get('location')).toBe('/console/accounts?updated=1850');
    const events = await orgEvents(t, org.orgId);
    expect(events.length).toBe(before + 1);
    expect(events.at(-1)).toMatchObject({
      kind: 'books.account.update',
      actor: org.owner.userId,
      payload: { code: '1850', changed: ['name'], name: 'Bonds paid', previousName: 'Deposits paid' },
    });
    expect((await apiAccount(org, '1850')).name).toBe('Bonds paid');
    // Retype and give a tax code, unticking reconcilable: one event naming the three.
    await form(owner, '/console/accounts/1850', { name: 'Bonds paid', type: 'expense', taxCode: 'GST_FREE' });
    expect((await orgEvents(t, org.orgId)).at(-1)?.payload).toMatchObject({ changed: ['type', 'taxCode', 'reconcilable'] });
    expect(await apiAccount(org, '1850')).toMatchObject({ type: 'expense' });
    // The same values again: nothing recorded.
    const count = await eventCount(org);
    const same = await form(owner, '/console/accounts/1850', { name: 'Bonds paid', type: 'expense', taxCode: 'GST_FREE' });
    expect(same.headers.get('location')).toBe('/console/accounts?unchanged=1850');
    expect(await eventCount(org)).toBe(count);

    // A system account: no type choice offered; a crafted one is refused and nothing changes.
    const bankPage = main(await get(owner, '/console/accounts/1000'));
    expect(bankPage).not.toContain('<select id="type"');
    expect(bankPage).toContain('a system account keeps its type');
    expect(bankPage).toContain('A system account cannot be archived.');
    const retype = await form(owner, '/console/accounts/1000', { name: 'Business bank account', type: 'liability', taxCode: '' });
    expect(retype.status).toBe(409);
    expect(main(retype)).toContain('is a system account');
    expect(await eventCount(org)).toBe(count);
    expect((await apiAccount(org, '1000')).type).toBe('asset');
    // Renaming it is allowed.
    const rename = await form(owner, '/console/accounts/1000', { name: 'Main cheque account', taxCode: '' });
    expect(rename.headers.get('location')).toBe('/console/accounts?updated=1000');
    expect((await apiAccount(org, '1000')).name).toBe('Main cheque account');
    expect(await eventCount(org)).toBe(count + 1);
    // An account with postings keeps its type.
    expect(main(await get(owner, '/console/accounts/6500'))).toContain('it has postings, so its type is fixed');
    const posted = await form(owner, '/console/accounts/6500', { name: 'Rent', type: 'asset', taxCode: '' });
    expect(posted.status).toBe(409);
    expect(main(posted)).toContain('<p class="notice error" id="type-error">account 6500 (Rent) has postings');
    expect(await eventCount(org)).toBe(count + 1);
  });

  it('an owner archives an account: one event, archived in books.accounts; with a balance it is refused beside the button', async () => {
    await form(owner, '/console/accounts', { code: '6960', name: 'Old subscriptions', type: 'expense' });
    const before = await eventCount(org);
    const r = await form(owner, '/console/accounts/6960/archive', {});
    expect(r.status, r.text.slice(0, 300)).toBe(303);
    expect(r.headers.get('location')).toBe('/console/accounts?archived=6960');
    const events = await orgEvents(t, org.orgId);
    expect(events.length).toBe(before + 1);
    expect(events.at(-1)).toMatchObject({ kind: 'books.account.archive', actor: org.owner.userId, entity_id: '6960' });
    expect((await apiAccount(org, '6960')).archived).toBe(true);
    expect(rowOf(main(await get(owner, '/console/accounts')), '/console/accounts/6960"')).toContain('archived</span>');
    const archivedPage = main(await get(owner, '/console/accounts/6960'));
    expect(archivedPage).toContain('This account is archived');
    expect(archivedPage).not.toContain('<form');
    // Again: the method's no-op.
    expect((await form(owner, '/console/accounts/6960/archive', {})).headers.get('location')).toBe('/console/accounts?unchanged=6960');
    // 6300 Bank fees carries 15.00 (and is a system account); 6500 Rent carries 200.00.
    const rent = await form(owner, '/console/accounts/6500/archive', {});
    expect(rent.status).toBe(409);
    expect(main(rent)).toContain(
      '<p role="alert" class="notice error" id="archive-error">account 6500 (Rent) has a balance of 20000 cents',
    );
    expect(await eventCount(org)).toBe(before + 1);
    expect((await apiAccount(org, '6500')).archived).toBeUndefined();
  });

  it('a bad code or type is named beside its field with what was typed; nothing changes', async () => {
    const before = await eventCount(org);
    const bad = await form(owner, '/console/accounts', { code: '12', name: 'Petty <cash>', type: 'bogus', taxCode: 'GST' });
    expect(bad.status).toBe(400);
    const m = main(bad);
    expect(m).toContain('<p class="notice error" id="code-error">must be an account code of 4 digits</p>');
    expect(m).toContain(
      'id="code" name="code" inputmode="numeric" maxlength="4" required value="12" aria-invalid="true" aria-describedby="code-error"',
    );
    expect(m).toMatch(/<p class="notice error" id="type-error">must be one of asset, liability, equity, revenue, expense<\/p>/);
    expect(m).toContain('value="Petty &lt;cash&gt;"');
    expect(m).toContain('<option value="GST" selected>');
    expect(m).not.toContain('Petty <cash>');
    // A code the chart has: CONFLICT on the code field.
    const taken = await form(owner, '/console/accounts', { code: '6500', name: 'Premises', type: 'expense' });
    expect(taken.status).toBe(409);
    expect(main(taken)).toContain('<p class="notice error" id="code-error">account 6500 (Rent) already exists');
    // An empty name on an existing account.
    const empty = await form(owner, '/console/accounts/6950', { name: ' ', type: 'expense', taxCode: 'GST' });
    expect(empty.status).toBe(400);
    expect(main(empty)).toContain('id="name-error"');
    expect(await eventCount(org)).toBe(before);
    expect(await apiAccount(org, '12')).toBeUndefined();
    // Without the form's CSRF token: refused before anything is read.
    const forged = await consoleForm(t, owner, '/console/accounts', { code: '6970', name: 'Forged', type: 'expense' });
    expect(forged.status).toBe(403);
    expect(await eventCount(org)).toBe(before);
    // Unknown or malformed codes are 404 pages.
    expect((await get(owner, '/console/accounts/9999')).status).toBe(404);
    expect((await get(owner, '/console/accounts/abc')).status).toBe(404);
  });

  it('a non-owner reads the chart but cannot change it', async () => {
    const clerk = await addUser(t.db, { orgId: org.orgId, email: `chart-clerk-${engine}@example.com`, role: 'bookkeeper' });
    const cs = await consoleSignIn(t, org.slug, clerk.email, clerk.password);
    const approver = await addUser(t.db, { orgId: org.orgId, email: `chart-approver-${engine}@example.com`, role: 'approver' });
    const as = await consoleSignIn(t, org.slug, approver.email, approver.password);
    const before = await eventCount(org);
    for (const s of [cs, as]) {
      const page = await get(s, '/console/accounts');
      expect(page.status).toBe(200);
      const m = main(page);
      expect(m).toContain('Only an owner can change the chart.');
      expect(m).not.toContain('<form');
      expect(m).not.toContain('/console/accounts/6500');
      const add = await form(s, '/console/accounts', { code: '6980', name: 'Sneaky', type: 'expense' });
      expect(add.status).toBe(403);
      expect(add.text).toContain('only owners change the chart of accounts');
      expect((await form(s, '/console/accounts/6950', { name: 'Renamed', type: 'expense' })).status).toBe(403);
      expect((await form(s, '/console/accounts/6950/archive', {})).status).toBe(403);
      expect((await get(s, '/console/accounts/6950')).status).toBe(403);
    }
    expect(await eventCount(org)).toBe(before);
    expect(await apiAccount(org, '6980')).toBeUndefined();
    expect((await apiAccount(org, '6950')).name).toBe('Software subscriptions');
    const anon = await get(null, '/console/accounts');
    expect(anon.status).toBe(303);
  });

  it('reports compared with the previous period: comparison and difference columns with the figures by hand', async () => {
    const r = await get(owner, '/console/books/reports?from=2026-08-01&to=2026-08-31&compare=previous_period');
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    const m = main(r);
    expect(m).toContain('<option value="previous_period" selected>Previous period</option>');
    // P&L, August against July (31 days just before 1 August).
    expect(m).toContain('Profit and loss, 2026-08-01 to 2026-08-31, compared with 2026-07-01 to 2026-07-31');
    const cells = (row: string) => [...row.matchAll(/<td class="num"[^>]*>([^<]*)<\/td>/g)].map((x) => x[1]);
    // Sales 800 against 300: +500.
    expect(cells(rowOf(m, '>Sales</a>'))).toEqual(['$800.00', '$300.00', '$500.00']);
    // Bank fees 15 against none; rent 100 against 100.
    expect(cells(rowOf(m, '>Bank fees</a>'))).toEqual(['$15.00', '$0.00', '$15.00']);
    expect(cells(rowOf(m, '>Rent</a>'))).toEqual(['$100.00', '$100.00', '$0.00']);
    // Expenses 115 against 100; net profit 800 − 115 = 685 against 300 − 100 = 200: +485.
    expect(cells(rowOf(m, 'id="pl-expenses"'))).toEqual(['$115.00', '$100.00', '$15.00']);
    expect(cells(rowOf(m, 'id="pl-net"'))).toEqual(['$685.00', '$200.00', '$485.00']);
    // Balance sheet as at 31 August against 31 July (a month's last day against the month before's).
    expect(m).toContain('Balance sheet as at 2026-08-31, compared with 2026-07-31');
    // Bank: 1,385.00 against 500 + 300 − 100 = 700.00.
    expect(cells(rowOf(m, 'id="bs-assets"'))).toEqual(['$1,385.00', '$700.00', '$685.00']);
    expect(cells(rowOf(m, 'id="bs-equity"'))).toEqual(['$1,385.00', '$700.00', '$685.00']);
    // The same figures as books.reports with compare.
    const pl = await report(t, org, { type: 'profit_and_loss', from: '2026-08-01', to: '2026-08-31', compare: 'previous_period' });
    expect(pl.comparison).toMatchObject({ from: '2026-07-01', to: '2026-07-31', netProfitCents: 20_000, differenceCents: 48_500 });
  });

  it('reports compared with the same period last year; no comparison leaves two columns', async () => {
    const m = main(await get(owner, '/console/books/reports?from=2026-08-01&to=2026-08-31&compare=previous_year'));
    const cells = (row: string) => [...row.matchAll(/<td class="num"[^>]*>([^<]*)<\/td>/g)].map((x) => x[1]);
    // August 2025: sales 500, no expenses. Net 685 against 500: +185.
    expect(cells(rowOf(m, '>Sales</a>'))).toEqual(['$800.00', '$500.00', '$300.00']);
    expect(cells(rowOf(m, 'id="pl-net"'))).toEqual(['$685.00', '$500.00', '$185.00']);
    // Bank as at 2025-08-31: 500.00.
    expect(cells(rowOf(m, 'id="bs-assets"'))).toEqual(['$1,385.00', '$500.00', '$885.00']);
    const none = main(await get(owner, '/console/books/reports?from=2026-08-01&to=2026-08-31&compare=none'));
    expect(cells(rowOf(none, 'id="pl-net"'))).toEqual(['$685.00']);
    expect(none).not.toContain('Difference');
    expect(none).toContain('<option value="" selected>None</option>');
    const bad = await get(owner, '/console/books/reports?from=2026-08-01&to=2026-08-31&compare=last_decade');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('compare: must be one of previous_period, previous_year');
    expect(bad.text).toContain('value="2026-08-01"');
  });

  it("the reports page shows the income year's depreciation, books beside tax, and leaves it out where there are no assets", async () => {
    expect(main(await get(owner, '/console/books/reports?from=2025-07-01&to=2026-06-30'))).not.toContain('id="dep-title"');
    const o = await t.org('Depreciating Books');
    await ok(o, 'books.journalPost', {
      date: '2025-09-01',
      memo: 'Coffee machine bought by the owner',
      lines: [
        {
          accountCode: '1500',
          debitCents: 1_500_000,
          asset: { name: 'Coffee machine', effectiveLifeYears: 5, method: 'prime_cost', taxTreatment: 'instant_write_off' },
        },
        { accountCode: '3000', creditCents: 1_500_000 },
      ],
    });
    // Books: 1 September 2025 to 30 June 2026 is 303 days; 1,500,000 × 303 ÷ 1,825 = 249,041.10 → $2,490.41,
    // leaving $12,509.59. Tax: $15,000 is below 2025-26's $20,000 threshold, so written off at once.
    expect((await ok(o, 'books.assetDepreciationRun', { periodEnd: '2026-06-30' })).totalCents).toBe(249_041);
    const s = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    // Any period ending in 2025-26 shows that income year.
    const m = main(await get(s, '/console/books/reports?from=2026-06-01&to=2026-06-30'));
    expect(m).toContain('Depreciation, income year 2025-26');
    expect(m).toContain('this year: $20,000.00');
    const row = rowOf(m, '<th scope="row">Coffee machine</th>');
    expect([...row.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((x) => x[1])).toEqual([
      '$15,000.00',
      '$2,490.41',
      '$12,509.59',
      'instant write-off',
      '$15,000.00',
      '$0.00',
    ]);
    expect(m).toContain('<td class="num" id="dep-book-total">$2,490.41</td>');
    expect(m).toContain('<td class="num" id="dep-tax-total">$15,000.00</td>');
  });

  it('the reports page shows the cash flow and budget against actual for the period, as books.reports returns them', async () => {
    // Budgets for the year from July: sales 600.00 a month, rent 100.00 a month.
    await ok(org, 'books.budgetSet', {
      financialYearStart: '2026-07-01',
      lines: [
        { accountCode: '4000', monthlyCents: Array(12).fill(60_000) },
        { accountCode: '6500', monthlyCents: Array(12).fill(10_000) },
      ],
    });
    const m = main(await get(owner, '/console/books/reports?from=2026-08-01&to=2026-08-31'));
    const cells = (row: string) => [...row.matchAll(/<td class="num"[^>]*>([^<]*)<\/td>/g)].map((x) => x[1]);
    // Cash: 700.00 at the start; 800 − 100 − 15 = 685.00 in from operating; 1,385.00 at the end.
    expect(m).toContain('<td class="num" id="cf-operating">$685.00</td>');
    expect(m).toContain('<td class="num" id="cf-investing">$0.00</td>');
    expect(m).toContain('<td class="num" id="cf-financing">$0.00</td>');
    expect(m).toContain('<td class="num" id="cf-net">$685.00</td>');
    expect(m).toContain('<td class="num" id="cf-opening">$700.00</td>');
    expect(m).toContain('<td class="num" id="cf-closing">$1,385.00</td>');
    expect(m).toContain(': reconciled.');
    const cf = await report(t, org, { type: 'cash_flow', from: '2026-08-01', to: '2026-08-31' });
    for (const l of [...cf.operating.lines, ...cf.investing.lines, ...cf.financing.lines] as { line: string; amountCents: number }[]) {
      const dollars = `${l.amountCents < 0 ? '-' : ''}$${(Math.abs(l.amountCents) / 100).toFixed(2)}`;
      expect(cells(rowOf(m, `data-line="${l.line}"`))).toEqual([dollars.replace(/\B(?=(\d{3})+\.)/g, ',')]);
    }
    // August against its budget: sales 600 / 800 / +200, rent 100 / 100 / 0, bank fees 0 / 15 / +15.
    expect(cells(rowOf(m, 'data-account="4000"'))).toEqual(['$600.00', '$800.00', '$200.00']);
    expect(cells(rowOf(m, 'data-account="6500"'))).toEqual(['$100.00', '$100.00', '$0.00']);
    expect(cells(rowOf(m, 'data-account="6300"'))).toEqual(['$0.00', '$15.00', '$15.00']);
    expect(cells(rowOf(m, 'id="budget-revenue-budget"'))).toEqual(['$600.00', '$800.00', '$200.00']);
    expect(cells(rowOf(m, 'id="budget-expenses-budget"'))).toEqual(['$100.00', '$115.00', '$15.00']);
    // Net profit: budget 600 − 100 = 500, actual 685, +185.
    expect(cells(rowOf(m, 'id="budget-net-budget"'))).toEqual(['$500.00', '$685.00', '$185.00']);
    // Not whole months: the page stands and the budget section says why.
    const part = await get(owner, '/console/books/reports?from=2026-08-02&to=2026-08-31');
    expect(part.status).toBe(200);
    expect(main(part)).toContain('from: must be the first day of a month for budget_vs_actual');
  });

  it("each account name on the statements opens its general ledger for the period, with the API's lines and balances", async () => {
    const m = main(await get(owner, '/console/books/reports?from=2026-08-01&to=2026-08-31'));
    expect(m).toContain('<a href="/console/books/ledger?accountCode=4000&amp;from=2026-08-01&amp;to=2026-08-31">Sales</a>');
    expect(m).toContain('<a href="/console/books/ledger?accountCode=1000&amp;from=2026-08-01&amp;to=2026-08-31">Main cheque account</a>');
    const r = await get(owner, '/console/books/ledger?accountCode=1000&from=2026-08-01&to=2026-08-31');
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    const g = main(r);
    // Opening as at 31 July 700.00; +800, −100, −15 in August; closing 1,385.00.
    expect(g).toContain('<dd id="ledger-opening">$700.00</dd>');
    expect(g).toContain('<dd id="ledger-debits">$800.00</dd>');
    expect(g).toContain('<dd id="ledger-credits">$115.00</dd>');
    expect(g).toContain('<dd id="ledger-closing">$1,385.00</dd>');
    const rows = [...g.matchAll(/<tr>\s*<td class="date">([^<]+)<\/td>[\s\S]*?<\/tr>/g)].map((x) => ({
      date: x[1],
      nums: [...x[0].matchAll(/<td class="num">([^<]*)<\/td>/g)].map((y) => y[1]),
    }));
    expect(rows).toEqual([
      { date: '2026-08-05', nums: ['$800.00', '', '$1,500.00'] },
      { date: '2026-08-12', nums: ['', '$100.00', '$1,400.00'] },
      { date: '2026-08-25', nums: ['', '$15.00', '$1,385.00'] },
    ]);
    // What was typed is escaped.
    expect(g).toContain('Monthly fee &lt;b&gt;card&lt;/b&gt;');
    const api = await report(t, org, { type: 'account_transactions', accountCode: '1000', from: '2026-08-01', to: '2026-08-31' });
    expect(api.closingBalanceCents).toBe(138_500);
    // Bad or unknown accounts are refused as books.reports refuses them.
    const missing = await get(owner, '/console/books/ledger?from=2026-08-01&to=2026-08-31');
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('accountCode: is required for account_transactions');
    expect((await get(owner, '/console/books/ledger?accountCode=x1')).status).toBe(400);
    const unknown = await get(owner, '/console/books/ledger?accountCode=9999');
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    expect(unknown.status).toBeLessThan(500);
    // A bookkeeper does not get the owner's view.
    const clerk = await addUser(t.db, { orgId: org.orgId, email: `ledger-clerk-${engine}@example.com`, role: 'bookkeeper' });
    const cs = await consoleSignIn(t, org.slug, clerk.email, clerk.password);
    expect((await get(cs, '/console/books/ledger?accountCode=1000')).status).toBe(403);
  });

  it('the general ledger pages by cursor, 50 lines a page, the running balance carried across', async () => {
    const o = await t.org('Ledger Pages');
    // 52 sales of 1.00 each in August: 50 on the first page, 2 on the next.
    for (let i = 0; i < 52; i += 1) {
      const day = `2026-08-${String(1 + (i % 28)).padStart(2, '0')}`;
      await postEntry(t, o, day, `Sale ${i + 1}`, [
        { account: '1000', debitCents: 100 },
        { account: '4000', creditCents: 100 },
      ]);
    }
    const s = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const first = main(await get(s, '/console/books/ledger?accountCode=4000&from=2026-08-01&to=2026-08-31'));
    const lines = (m: string) => [...m.matchAll(/<td class="date">/g)].length;
    expect(lines(first)).toBe(50);
    const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first)?.[1]?.replace(/&amp;/g, '&');
    expect(next).toMatch(/^\/console\/books\/ledger\?accountCode=4000&from=2026-08-01&to=2026-08-31&cursor=/);
    const second = main(await get(s, next ?? ''));
    expect(lines(second)).toBe(2);
    expect(second).not.toContain('rel="next"');
    // The last line's running balance: 52 × 1.00.
    const balances = [...second.matchAll(/<td class="num">(\$[^<]+)<\/td>\s*<\/tr>/g)].map((x) => x[1]);
    expect(balances.at(-1)).toBe('$52.00');
    expect(second).toContain('<dd id="ledger-closing">$52.00</dd>');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { agentCalls, engines, freshDatabaseUrl, runCliInProcess, startTestServer, type TestServer } from './harness.js';

/**
 * The organisation's own chart: books.accountCreate, accountUpdate, accountArchive. Created
 * accounts take journals, appear in books.accounts and the reports by their type; system
 * accounts are protected; archiving needs a zero balance and no open documents. Every case
 * through HTTP, on both engines.
 */

const today = () => new Date().toISOString().slice(0, 10);

describe.each(engines)('chart of accounts (%s)', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  const { post, ok, seq, lastEvent } = agentCalls(() => t);
  const refused = async (o: CreatedOrg, method: string, params: Record<string, unknown>, status: number, code: string, message: RegExp) => {
    const before = await seq(o);
    const r = await post(o, method, params);
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(r.body.error.message).toMatch(message);
    expect(await seq(o)).toBe(before);
  };
  const accounts = async (o: CreatedOrg) => (await ok(o, 'books.accounts', {})).accounts as any[];
  const journal = (o: CreatedOrg, debit: string, credit: string, cents: number) =>
    post(o, 'books.journalPost', {
      date: today(),
      memo: 'Chart test',
      lines: [
        { accountCode: debit, debitCents: cents },
        { accountCode: credit, creditCents: cents },
      ],
    });

  it('creates an account, posts a journal to it and shows it in books.accounts, the trial balance and the P&L by type', async () => {
    const o = await t.org();
    const created = await ok(o, 'books.accountCreate', { code: '4500', name: 'Consulting income', type: 'revenue', taxCode: 'GST' });
    expect(created).toMatchObject({
      code: '4500',
      name: 'Consulting income',
      type: 'revenue',
      taxCode: 'GST',
      reconcilable: false,
      system: false,
      archived: false,
    });
    expect(await lastEvent(o)).toMatchObject({
      kind: 'books.account.create',
      entity_id: '4500',
      payload: { code: '4500', name: 'Consulting income', type: 'revenue', taxCode: 'GST', reconcilable: false },
    });
    // The same create again is a no-op, no event.
    const before = await seq(o);
    expect(await ok(o, 'books.accountCreate', { code: '4500', name: 'Consulting income', type: 'revenue', taxCode: 'GST' })).toMatchObject({
      code: '4500',
      noop: true,
    });
    expect(await seq(o)).toBe(before);
    await ok(o, 'books.accountCreate', { code: '6950', name: 'Software subscriptions', type: 'expense' });

    const j = await journal(o, '1000', '4500', 50_000);
    expect(j.status, JSON.stringify(j.body)).toBe(200);
    expect((await journal(o, '6950', '1000', 12_000)).status).toBe(200);

    const listed = await accounts(o);
    expect(listed.find((a) => a.code === '4500')).toMatchObject({ type: 'revenue', balanceCents: 50_000 });
    expect(listed.find((a) => a.code === '4500').archived).toBeUndefined();
    const tb = await ok(o, 'books.reports', { type: 'trial_balance' });
    expect(tb.rows).toEqual(
      expect.arrayContaining([
        { code: '4500', name: 'Consulting income', type: 'revenue', debitCents: 0, creditCents: 50_000 },
        { code: '6950', name: 'Software subscriptions', type: 'expense', debitCents: 12_000, creditCents: 0 },
      ]),
    );
    const pl = await ok(o, 'books.reports', { type: 'profit_and_loss', from: today(), to: today() });
    expect(pl.revenue.accounts).toEqual(expect.arrayContaining([expect.objectContaining({ code: '4500', amountCents: 50_000 })]));
    expect(pl.expenses.accounts).toEqual(expect.arrayContaining([expect.objectContaining({ code: '6950', amountCents: 12_000 })]));
    expect(pl.netProfitCents).toBe(38_000);

    // Renamed: one event; the type cannot change now that it has postings.
    expect(await ok(o, 'books.accountUpdate', { code: '4500', name: 'Advisory income' })).toMatchObject({ name: 'Advisory income' });
    expect((await lastEvent(o)).payload).toEqual({
      code: '4500',
      changed: ['name'],
      name: 'Advisory income',
      previousName: 'Consulting income',
    });
    await refused(o, 'books.accountUpdate', { code: '4500', type: 'expense' }, 409, 'CONFLICT', /4500 .*has postings/);
    // An account with no postings can still be retyped.
    await ok(o, 'books.accountCreate', { code: '1600', name: 'Deposits', type: 'expense' });
    expect(await ok(o, 'books.accountUpdate', { code: '1600', type: 'asset', reconcilable: true })).toMatchObject({
      type: 'asset',
      reconcilable: true,
    });
  });

  it('protects system accounts', async () => {
    const o = await t.org();
    await refused(o, 'books.accountCreate', { code: '1100', name: 'Debtors', type: 'asset' }, 409, 'CONFLICT', /1100 .*system account/);
    await refused(
      o,
      'books.accountCreate',
      { code: '6500', name: 'Rent again', type: 'expense' },
      409,
      'CONFLICT',
      /code: account 6500 \(Rent\) already exists/,
    );
    await refused(o, 'books.accountUpdate', { code: '2100', type: 'asset' }, 409, 'CONFLICT', /2100 \(GST collected\) is a system account/);
    await refused(o, 'books.accountArchive', { code: '3100' }, 409, 'CONFLICT', /3100 \(Retained earnings\) is a system account/);
    await refused(o, 'books.accountArchive', { code: '1000' }, 409, 'CONFLICT', /system account/);
    // Renaming a system account is allowed: journals keep its code.
    expect(await ok(o, 'books.accountUpdate', { code: '1000', name: 'Everyday account' })).toMatchObject({
      name: 'Everyday account',
      system: true,
    });
  });

  it('archives only an account with a zero balance and no open documents; an archived account refuses postings', async () => {
    const o = await t.org();
    await ok(o, 'books.accountCreate', { code: '6960', name: 'Subscriptions', type: 'expense' });
    expect((await journal(o, '6960', '1000', 5_000)).status).toBe(200);
    await refused(o, 'books.accountArchive', { code: '6960' }, 409, 'CONFLICT', /6960 .*balance of 5000 cents/);
    expect((await journal(o, '1000', '6960', 5_000)).status).toBe(200);

    await ok(o, 'books.accountCreate', { code: '4600', name: 'Workshops', type: 'revenue' });
    const draft = await ok(o, 'books.invoiceDraft', {
      payeeName: 'Learner Pty Ltd',
      description: 'Workshops',
      dueDays: 14,
      totalCents: 11_000,
      lines: [{ description: 'Workshop', amountCents: 11_000, accountCode: '4600' }],
    });
    await refused(o, 'books.accountArchive', { code: '4600' }, 409, 'CONFLICT', new RegExp(`open documents \\(${draft.id}\\)`));

    const archived = await ok(o, 'books.accountArchive', { code: '6960' });
    expect(archived).toMatchObject({ code: '6960', archived: true });
    expect(await lastEvent(o)).toMatchObject({ kind: 'books.account.archive', payload: { code: '6960', name: 'Subscriptions' } });
    const before = await seq(o);
    expect(await ok(o, 'books.accountArchive', { code: '6960' })).toMatchObject({ archived: true, noop: true });
    expect(await seq(o)).toBe(before);
    expect((await accounts(o)).find((a) => a.code === '6960')).toMatchObject({ archived: true, balanceCents: 0 });
    const j = await journal(o, '6960', '1000', 1_000);
    expect(j.status).toBe(400);
    expect(j.body.error.message).toMatch(/lines\[0\]\.accountCode: account 6960 \(Subscriptions\) is archived/);
    await refused(o, 'books.accountUpdate', { code: '6960', name: 'Subs' }, 409, 'CONFLICT', /archived/);
  });

  it('refuses bad input naming the field, and a reader key; another organisation does not see the account', async () => {
    const o = await t.org();
    await refused(
      o,
      'books.accountCreate',
      { code: '45', name: 'X', type: 'revenue' },
      400,
      'BAD_REQUEST',
      /code: must be an account code of 4 digits/,
    );
    await refused(
      o,
      'books.accountCreate',
      { code: '4700', name: 'X', type: 'income' },
      400,
      'BAD_REQUEST',
      /type: must be one of asset, liability/,
    );
    await refused(
      o,
      'books.accountCreate',
      { code: '4700', name: 'X', type: 'revenue', taxCode: 'VAT' },
      400,
      'BAD_REQUEST',
      /taxCode: must be one of/,
    );
    await refused(o, 'books.accountUpdate', { code: '4700' }, 400, 'BAD_REQUEST', /code: give at least one of/);
    await refused(o, 'books.accountUpdate', { code: '4700', name: 'Y' }, 404, 'NOT_FOUND', /account 4700 not found/);

    const before = await seq(o);
    const r = await t.post(o.keys.reader, 'books.accountCreate', { code: '4700', name: 'X', type: 'revenue' });
    expect(r.body.error.code).toBe('FORBIDDEN_SCOPE');
    expect(await seq(o)).toBe(before);

    await ok(o, 'books.accountCreate', { code: '4800', name: 'Private income', type: 'revenue' });
    const other = await t.org();
    expect((await accounts(other)).some((a) => a.code === '4800')).toBe(false);
    await refused(other, 'books.accountArchive', { code: '4800' }, 404, 'NOT_FOUND', /account 4800 not found/);
  });

  it("a bank line coded to an account without a taxCode takes the account's default tax code (GST for the BAS)", async () => {
    const o = await t.org();
    await ok(o, 'books.accountCreate', { code: '6970', name: 'Cloud hosting', type: 'expense', taxCode: 'GST_ON_EXPENSES' });
    const fed = await ok(o, 'books.feedLines', {
      accountCode: '1000',
      lines: [{ date: today(), amountCents: -11_000, description: 'Hosting' }],
    });
    const lineId = fed.lineIds[0] as string;
    const recoded = await ok(o, 'books.lineRecode', { lineId, accountCode: '6970' });
    expect(recoded.status).toBe('recoded');
    const lines = (await ok(o, 'books.journals', { accountCode: '6970' })).journals[0].lines as any[];
    expect(lines.find((l) => l.accountCode === '6970')).toMatchObject({ debitCents: 10_000, taxCode: 'GST_ON_EXPENSES', gstCents: 1_000 });
    expect(lines.find((l) => l.accountCode === '1200')).toMatchObject({ debitCents: 1_000 });
    // Cleared, the default falls back to BAS_EXCLUDED (no credit claimed without a code).
    expect(await ok(o, 'books.accountUpdate', { code: '6970', taxCode: null })).toMatchObject({ taxCode: null });
  });
});

describe('finance-desk account (CLI)', () => {
  it('creates, renames and archives an account, one event each; bad input names the field', async () => {
    const { url, drop } = await freshDatabaseUrl('sqlite');
    try {
      const org = JSON.parse((await runCliInProcess(url, 'org', 'create', '--name', 'Chart Pty Ltd', '--json')).out) as { slug: string };
      const grants = [
        'account',
        'create',
        '--org',
        org.slug,
        '--code',
        '4550',
        '--name',
        'Grants',
        '--type',
        'revenue',
        '--tax-code',
        'GST_FREE',
      ];
      const created = await runCliInProcess(url, ...grants, '--json');
      expect(created.code, created.err).toBe(0);
      expect(JSON.parse(created.out)).toMatchObject({
        code: '4550',
        name: 'Grants',
        type: 'revenue',
        taxCode: 'GST_FREE',
        archived: false,
      });
      const again = await runCliInProcess(url, ...grants);
      expect(again.out).toContain('no change: 4550 Grants');
      const renamed = await runCliInProcess(
        url,
        'account',
        'update',
        '--org',
        org.slug,
        '--code',
        '4550',
        '--name',
        'Government grants',
        '--tax-code',
        '',
      );
      expect(renamed.code, renamed.err).toBe(0);
      expect(renamed.out).toContain('4550 Government grants (revenue)');
      const archived = await runCliInProcess(url, 'account', 'archive', '--org', org.slug, '--code', '4550');
      expect(archived.out).toContain('archived');
      const bad = await runCliInProcess(url, 'account', 'create', '--org', org.slug, '--code', '12', '--name', 'X', '--type', 'revenue');
      expect(bad.code).not.toBe(0);
      expect(bad.err).toContain('code: must be an account code of 4 digits');
      const system = await runCliInProcess(url, 'account', 'archive', '--org', org.slug, '--code', '2200');
      expect(system.code).not.toBe(0);
      expect(system.err).toContain('is a system account');
    } finally {
      await drop();
    }
  });
});

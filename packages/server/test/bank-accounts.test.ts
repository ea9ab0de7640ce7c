import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIME_ZONE, localDate } from '../src/clock.js';
import { accountBalanceCents } from '../src/domain/gl/post.js';
import { addUser } from '../src/human/users.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { openDatabase } from '../src/storage/open.js';
import { migrations } from '../src/schema.js';
import { consoleForm, consoleGet, consoleJson, consoleSignIn, orgEvents, type Signed } from './console-helpers.js';
import { checkOrgEvents, engines, freshDatabaseUrl, runCliInProcess, startTestServer, type TestServer } from './harness.js';

/**
 * Bank, credit-card and loan accounts as records, through HTTP on both engines:
 * an owner adds them in the console (form with CSRF, and JSON), one event each; keys read them
 * with balances (books.bankAccounts); a credit-card CSV goes into the card's account, purchases
 * are recoded, invoice payments land in a chosen bank account; and the CLI adds and lists them.
 */
const today = () => localDate(new Date().toISOString(), DEFAULT_TIME_ZONE);
const dmy = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;

describe.each(engines)('bank accounts (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let owner: Signed;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org('Kettle Joinery');
    owner = await consoleSignIn(t, org.slug, org.owner.email, org.owner.password);
  });
  afterAll(async () => t.close());

  const post = (method: string, params: unknown, o: CreatedOrg = org) => t.post(o.keys.agent, method, params);
  const ok = (r: { status: number; body: any }) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const accounts = async (o: CreatedOrg = org) => ok(await t.post(o.keys.reader, 'books.bankAccounts', {})).accounts as any[];

  it('lists 1000 as the default bank account of a new organisation', async () => {
    const o = await t.org();
    expect(await accounts(o)).toEqual([
      {
        id: null,
        kind: 'bank',
        name: 'Business bank account',
        accountCode: '1000',
        bsb: null,
        accountNumber: null,
        isDefault: true,
        bankCode: null,
        apcaUserId: null,
        userName: null,
        remitterName: null,
        accountTitle: null,
        directEntry: null,
        ledgerBalanceCents: 0,
        unreconciledLines: 0,
        unreconciledCents: 0,
        createdAt: expect.any(String),
      },
    ]);
  });

  it('an owner adds accounts with the console form (CSRF checked): the chart account, one event each, the page lists them', async () => {
    const o = await t.org();
    const s = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const page = await consoleGet(t, s, '/console/bank-accounts');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Business bank account');
    expect(page.text).toContain('action="/console/bank-accounts"');
    const noCsrf = await consoleForm(t, s, '/console/bank-accounts', { kind: 'credit_card', name: 'Visa' });
    expect(noCsrf.status).toBe(403);
    const added = await consoleForm(t, s, '/console/bank-accounts', {
      _csrf: s.csrf,
      kind: 'credit_card',
      name: 'Business Visa',
      bsb: '',
      accountNumber: '',
      accountCode: '',
    });
    expect(added.status, added.text).toBe(303);
    expect(added.headers.get('location')).toBe('/console/bank-accounts?added=2610');
    const saver = await consoleForm(t, s, '/console/bank-accounts', {
      _csrf: s.csrf,
      kind: 'bank',
      name: 'Tax saver',
      bsb: '062-000',
      accountNumber: '12345678',
      accountCode: '',
    });
    expect(saver.headers.get('location')).toBe('/console/bank-accounts?added=1010');
    const loan = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', { kind: 'loan', name: 'Van loan', accountCode: '2750' });
    expect(loan.status, loan.text).toBe(200);
    expect(loan.body.result.account).toMatchObject({
      kind: 'loan',
      accountCode: '2750',
      name: 'Van loan',
      id: expect.stringMatching(/^bac_/),
    });
    const listed = await accounts(o);
    expect(listed.map((a) => [a.accountCode, a.kind, a.name])).toEqual([
      ['1000', 'bank', 'Business bank account'],
      ['1010', 'bank', 'Tax saver'],
      ['2610', 'credit_card', 'Business Visa'],
      ['2750', 'loan', 'Van loan'],
    ]);
    expect(listed[1]).toMatchObject({ bsb: '062-000', accountNumber: '12345678', isDefault: false });
    const chart = await t.db.reader.all<{ code: string; type: string; name: string }>(
      "SELECT code, type, name FROM accounts WHERE org_id = ? AND code IN ('1010', '2610', '2750') ORDER BY code",
      [o.orgId],
    );
    expect(chart).toEqual([
      { code: '1010', type: 'asset', name: 'Tax saver' },
      { code: '2610', type: 'liability', name: 'Business Visa' },
      { code: '2750', type: 'liability', name: 'Van loan' },
    ]);
    const events = (await orgEvents(t, o.orgId)).filter((e) => e.kind === 'books.bank_account.create');
    expect(events.map((e) => [e.actor, e.payload.accountCode, e.payload.kind, e.payload.accountNumberEnding])).toEqual([
      [o.owner.userId, '2610', 'credit_card', null],
      [o.owner.userId, '1010', 'bank', '678'],
      [o.owner.userId, '2750', 'loan', null],
    ]);
    // The full account number stays on the record, never in the chain.
    expect(events.some((e) => e.raw.includes('12345678'))).toBe(false);
    const after = await consoleGet(t, s, '/console/bank-accounts');
    expect(after.text).toContain('Business Visa');
    expect(after.text).toContain('062-000 12345678');
  });
  it('refuses bad input naming the field, a taken code or name, and anyone but an owner; nothing is written', async () => {
    const o = await t.org();
    const s = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const bad = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', {
      kind: 'credit_card',
      name: 'Visa',
      bsb: '62000',
      accountCode: '1010',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('bsb: must be a BSB of the form NNN-NNN');
    expect(bad.body.error.message).toContain('accountNumber: give both bsb and accountNumber, or neither');
    expect(bad.body.error.message).toContain('accountCode: must be a code from 2610 to 2699 for a credit_card account');
    const form = await consoleForm(t, s, '/console/bank-accounts', { _csrf: s.csrf, kind: 'savings', name: 'x' });
    expect(form.status).toBe(400);
    expect(form.text).toContain('kind: must be one of bank, credit_card, loan');
    expect(
      (await consoleJson(t, s, 'POST', '/console/api/bank-accounts', { kind: 'bank', name: 'Cheque', accountCode: '1010' })).status,
    ).toBe(200);
    const again = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', { kind: 'bank', name: 'Cheque' });
    expect(again.body.result).toMatchObject({ noop: true, account: { accountCode: '1010' } });
    const taken = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', { kind: 'bank', name: 'Other', accountCode: '1010' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.message).toContain('accountCode: account 1010 (Cheque) already exists');
    const renamed = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', { kind: 'loan', name: 'Cheque' });
    expect(renamed.status).toBe(409);
    const clerk = await addUser(t.db, {
      orgId: o.orgId,
      email: `clerk-${o.slug}@example.com`,
      role: 'bookkeeper',
      password: 'correct horse battery',
    });
    const cs = await consoleSignIn(t, o.slug, clerk.email, 'correct horse battery');
    const refused = await consoleJson(t, cs, 'POST', '/console/api/bank-accounts', { kind: 'bank', name: 'Mine' });
    expect(refused.status).toBe(403);
    const page = await consoleGet(t, cs, '/console/bank-accounts');
    expect(page.text).toContain('Only an owner can add accounts.');
    expect(page.text).not.toContain('action="/console/bank-accounts"');
    expect((await orgEvents(t, o.orgId)).filter((e) => e.kind === 'books.bank_account.create')).toHaveLength(1);
  });

  it('a credit-card CSV goes into the card account: purchases are money out, recoded with GST; the repayment waits; balances per account', async () => {
    const card = (await consoleJson(t, owner, 'POST', '/console/api/bank-accounts', { kind: 'credit_card', name: 'Amex' })).body.result
      .account;
    expect(card.accountCode).toBe('2610');
    const d = dmy(today());
    const csv = [
      `${d},"-55.00","OFFICEWORKS 0412","-55.00"`,
      `${d},"-132.00","QANTAS AIRWAYS","-187.00"`,
      `${d},"+500.00","PAYMENT RECEIVED THANK YOU","+313.00"`,
    ].join('\n');
    const imported = ok(await post('books.feedLines', { accountCode: '2610', file: { format: 'csv', bank: 'cba', content: csv } }));
    expect(imported).toMatchObject({ accountCode: '2610', imported: 3 });
    const [office, flight] = imported.lineIds;
    // Not a bank account: refused naming the field.
    const wrong = await post('books.feedLines', { accountCode: '6000', lines: [{ date: today(), amountCents: -100, description: 'x' }] });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toContain('accountCode: account 6000 (General expenses) is not a bank account');
    ok(await post('books.lineRecode', { lineId: office, accountCode: '6600', taxCode: 'GST_ON_EXPENSES' }));
    const r = ok(await post('books.lineRecode', { lineId: flight, accountCode: '6700', taxCode: 'GST_ON_EXPENSES' }));
    expect(r).toMatchObject({ gstCents: 1200, line: { accountCode: '2610' } });
    // The card (a liability) is credited by purchases: what is owed shows as a negative balance.
    expect(await accountBalanceCents(t.db.reader, org.orgId, '2610')).toBe(-18_700);
    expect(await accountBalanceCents(t.db.reader, org.orgId, '1200')).toBe(500 + 1200);
    const listed = (await accounts()).find((a) => a.accountCode === '2610');
    expect(listed).toMatchObject({ ledgerBalanceCents: -18_700, unreconciledLines: 1, unreconciledCents: 50_000 });
    const page = ok(await post('books.feedLinesList', { accountCode: '2610' }));
    expect(page.summary).toEqual({ accountCode: '2610', ledgerBalanceCents: -18_700, unreconciledLines: 1, unreconciledCents: 50_000 });
  });

  it('invoiceRecordPayment takes the bank account that received it (accountCode, default 1000; a non-bank account is refused)', async () => {
    const saver = (await consoleJson(t, owner, 'POST', '/console/api/bank-accounts', { kind: 'bank', name: 'Online saver' })).body.result
      .account;
    const draft = ok(
      await post('books.invoiceDraft', { payeeName: 'Hills Cafe', description: 'Shelving', totalCents: 22_000, dueDays: 14 }),
    );
    ok(await post('books.invoiceSend', { id: draft.id }));
    const before = await accountBalanceCents(t.db.reader, org.orgId, '1000');
    const bad = await post('books.invoiceRecordPayment', { id: draft.id, amountCents: 2_000, accountCode: '4000' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('accountCode: account 4000 (Sales) is not a bank account');
    ok(await post('books.invoiceRecordPayment', { id: draft.id, amountCents: 2_000, accountCode: saver.accountCode }));
    ok(await post('books.invoiceRecordPayment', { id: draft.id, amountCents: 1_000 }));
    expect(await accountBalanceCents(t.db.reader, org.orgId, saver.accountCode)).toBe(2_000);
    expect(await accountBalanceCents(t.db.reader, org.orgId, '1000')).toBe(before + 1_000);
    const events = (await orgEvents(t, org.orgId)).filter((e) => e.kind === 'books.invoice.payment' && e.entity_id === draft.id);
    expect(events.map((e) => e.payload.accountCode)).toEqual([saver.accountCode, undefined]);
  });
});

describe.each(engines)('CLI bank-account (%s)', (engine) => {
  let url: string;
  let drop: () => Promise<void>;
  let slug: string;
  let orgId: string;
  const cli = (...args: string[]) => runCliInProcess(url, ...args);

  beforeAll(async () => {
    ({ url, drop } = await freshDatabaseUrl(engine));
    const created = JSON.parse((await cli('org', 'create', '--name', 'Harbour Cafe', '--json')).out);
    slug = created.slug;
    orgId = created.orgId;
  });
  afterAll(async () => drop());

  it('add creates the account and its chart account as one event (actor ""); list shows them; bad flags are refused naming the field', async () => {
    const added = await cli('bank-account', 'add', '--org', slug, '--kind', 'credit_card', '--name', 'Business Mastercard', '--json');
    expect(added.code, added.err).toBe(0);
    expect(JSON.parse(added.out)).toMatchObject({ kind: 'credit_card', accountCode: '2610', name: 'Business Mastercard' });
    const bank = await cli(
      'bank-account',
      'add',
      '--org',
      slug,
      '--kind',
      'bank',
      '--name',
      'Tax account',
      '--bsb',
      '062-000',
      '--number',
      '98765432',
      '--json',
    );
    expect(JSON.parse(bank.out)).toMatchObject({ accountCode: '1010', bsb: '062-000', accountNumber: '98765432' });
    const bad = await cli('bank-account', 'add', '--org', slug, '--kind', 'bank', '--name', 'X', '--bsb', '062000');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('bsb: must be a BSB of the form NNN-NNN');
    const listed = await cli('bank-account', 'list', '--org', slug, '--json');
    expect(JSON.parse(listed.out).accounts.map((a: any) => a.accountCode)).toEqual(['1000', '1010', '2610']);
    expect((await cli('bank-account', 'list', '--org', slug)).out).toContain('2610  credit_card  Business Mastercard');
    const db = openDatabase(url, { migrations, sqliteSynchronous: 'NORMAL' });
    try {
      const events = await db.reader.all<{ actor: string; payload: string }>(
        "SELECT actor, payload FROM events WHERE org_id = ? AND kind = 'books.bank_account.create' ORDER BY seq",
        [orgId],
      );
      expect(events.map((e) => [e.actor, JSON.parse(e.payload).accountCode])).toEqual([
        ['', '2610'],
        ['', '1010'],
      ]);
      await checkOrgEvents(db, orgId);
    } finally {
      await db.close();
    }
  });

  it("add takes direct-entry flags; update changes them (one event each, '' clears) until the account can fund a bank file", async () => {
    const added = await cli(
      'bank-account',
      'add',
      '--org',
      slug,
      '--kind',
      'bank',
      '--name',
      'Payments',
      '--bsb',
      '034-702',
      '--number',
      '458921',
      '--bank-code',
      'WBC',
      '--apca-user-id',
      '512734',
      '--user-name',
      'Harbour Cafe',
      '--json',
    );
    expect(added.code, added.err).toBe(0);
    const account = JSON.parse(added.out);
    expect(account).toMatchObject({
      bankCode: 'WBC',
      apcaUserId: '512734',
      userName: 'Harbour Cafe',
      remitterName: null,
      directEntry: null,
    });
    const done = await cli(
      'bank-account',
      'update',
      '--org',
      slug,
      '--id',
      account.id,
      '--remitter-name',
      'Harbour Cafe',
      '--account-title',
      'Payments',
      '--json',
    );
    expect(done.code, done.err).toBe(0);
    expect(JSON.parse(done.out)).toMatchObject({
      changed: ['remitterName', 'accountTitle'],
      account: {
        directEntry: {
          bankCode: 'WBC',
          apcaUserId: '512734',
          userName: 'Harbour Cafe',
          remitterName: 'Harbour Cafe',
          accountTitle: 'Payments',
        },
      },
    });
    const cleared = await cli('bank-account', 'update', '--org', slug, '--id', account.id, '--account-title', '', '--json');
    expect(JSON.parse(cleared.out).account).toMatchObject({ accountTitle: null, directEntry: { accountTitle: 'Harbour Cafe' } });
    const none = await cli('bank-account', 'update', '--org', slug, '--id', account.id);
    expect(none.code).toBe(2);
    expect(none.err).toContain('give at least one of');
    const bad = await cli('bank-account', 'update', '--org', slug, '--id', account.id, '--apca-user-id', '12');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('apcaUserId: must be the 6-digit Direct Entry user id');
    expect((await cli('bank-account', 'update', '--org', slug, '--id', 'bac_nope', '--bank-code', 'WBC')).err).toContain(
      'bank account bac_nope not found',
    );
    const db = openDatabase(url, { migrations, sqliteSynchronous: 'NORMAL' });
    try {
      const events = await db.reader.all<{ actor: string; payload: string }>(
        "SELECT actor, payload FROM events WHERE org_id = ? AND kind = 'books.bank_account.update' ORDER BY seq",
        [orgId],
      );
      expect(events.map((e) => [e.actor, JSON.parse(e.payload).changed])).toEqual([
        ['', ['remitterName', 'accountTitle']],
        ['', ['accountTitle']],
      ]);
      await checkOrgEvents(db, orgId);
    } finally {
      await db.close();
    }
  });
});

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../src/human/users.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { parseAba } from './aba-parse.js';
import { consoleForm, consoleGet, consoleJson, consoleSignIn, orgEvents, type Signed } from './console-helpers.js';
import { checkOrgEvents, engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, bank, FUNDING, inDays, journalLines } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

/**
 * Funding accounts: a bank account record carries the direct-entry details a bank (ABA) file
 * needs, set and changed by an owner; payment runs and pay runs are paid from it by
 * fundingAccountId; the bank side of the journal is the record's chart account; the human's card
 * shows every field the file carries; a record changed after the hold cannot ride on the approval.
 * Through HTTP on both engines.
 */
const DETAILS = {
  bankCode: 'CBA',
  apcaUserId: '301500',
  userName: 'Kettle Joinery',
  remitterName: 'Kettle Join',
  accountTitle: 'Kettle operating',
};
const OPERATING = { kind: 'bank', name: 'Operating', bsb: '062-000', accountNumber: '12345678', ...DETAILS };

describe.each(engines)('funding accounts (%s)', (engine) => {
  let t: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-funding-'));
    t = await startTestServer(engine, { paymentsOutboxDir: dir });
  });
  afterAll(async () => t.close());

  const owner = (o: CreatedOrg) => consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
  const createAccount = async (s: Signed, input: Record<string, unknown>) => {
    const r = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', input);
    expect(r.status, r.text).toBe(200);
    return r.body.result.account;
  };
  const accounts = async (o: CreatedOrg) => {
    const r = await t.post(o.keys.reader, 'books.bankAccounts', {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result.accounts as any[];
  };
  const twoBills = async (o: CreatedOrg) => [
    await approvedBill(t, o, {
      payeeName: 'Coastal Timber',
      description: 'Timber',
      totalCents: 12_345,
      ...bank('062-703', '11223344', 'Coastal Timber'),
    }),
    await approvedBill(t, o, {
      payeeName: 'Northside Hardware',
      description: 'Screws',
      totalCents: 5_000,
      ...bank('083-047', '587412369', 'Northside Hardware'),
    }),
  ];
  const cardFields = (f: {
    bsb: string;
    accountNumber: string;
    title: string;
    bankCode: string;
    apcaUserId: string;
    userName: string;
    remitterName: string;
    selfBalancing: boolean;
  }) => [
    `funding account BSB ${f.bsb} account number ${f.accountNumber}`,
    `account title "${f.title}"`,
    `bank code ${f.bankCode}`,
    `APCA user id ${f.apcaUserId}`,
    `user name "${f.userName}"`,
    `remitter name "${f.remitterName}"`,
    `self-balancing ${f.selfBalancing ? 'yes' : 'no'}`,
  ];

  it('an owner sets direct-entry details on create; books.bankAccounts shows them and directEntry only when complete; 1000 can be given a record', async () => {
    const o = await t.org();
    const s = await owner(o);
    const op = await createAccount(s, OPERATING);
    expect(op).toMatchObject({ accountCode: '1010', ...DETAILS, directEntry: { ...DETAILS } });
    const partial = await createAccount(s, { kind: 'bank', name: 'Savings', bsb: '062-000', accountNumber: '7654321', bankCode: 'CBA' });
    expect(partial).toMatchObject({ bankCode: 'CBA', apcaUserId: null, directEntry: null });
    const card = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', {
      kind: 'credit_card',
      name: 'Visa',
      bankCode: 'CBA',
      apcaUserId: '12',
    });
    expect(card.status).toBe(400);
    expect(card.body.error.message).toContain('bankCode: is only for a bank account');
    expect(card.body.error.message).toContain('apcaUserId: must be the 6-digit Direct Entry user id');
    // 1000 gets a record: its chart account stays (one row, its name), the list shows it once, by its record.
    const main = await createAccount(s, {
      kind: 'bank',
      name: 'Main cheque',
      accountCode: '1000',
      bsb: '034-702',
      accountNumber: '458921',
      ...DETAILS,
      accountTitle: undefined,
    });
    expect(main).toMatchObject({
      id: expect.stringMatching(/^bac_/),
      accountCode: '1000',
      isDefault: true,
      accountTitle: null,
      directEntry: { ...DETAILS, accountTitle: DETAILS.userName },
    });
    const twice = await consoleJson(t, s, 'POST', '/console/api/bank-accounts', { kind: 'bank', name: 'Other main', accountCode: '1000' });
    expect(twice.status).toBe(409);
    const listed = await accounts(o);
    expect(listed.map((a) => [a.accountCode, a.id === null ? null : 'bac', a.isDefault, a.directEntry === null])).toEqual([
      ['1000', 'bac', true, false],
      ['1010', 'bac', false, false],
      ['1011', 'bac', false, true],
    ]);
    const chart = await t.db.reader.all<{ name: string }>("SELECT name FROM accounts WHERE org_id = ? AND code = '1000'", [o.orgId]);
    expect(chart).toEqual([{ name: 'Business bank account' }]);
    // A fresh organisation's 1000 has no details.
    expect((await accounts(await t.org()))[0]).toMatchObject({ id: null, bankCode: null, directEntry: null });
    const created = (await orgEvents(t, o.orgId)).filter((e) => e.kind === 'books.bank_account.create');
    expect(created.map((e) => [e.payload.accountCode, e.payload.directEntry?.apcaUserId ?? null])).toEqual([
      ['1010', '301500'],
      ['1011', null],
      ['1000', '301500'],
    ]);
    await checkOrgEvents(t.db, o.orgId);
  });

  it('an owner changes the details (console JSON and form): one event naming the fields; the same again is a no-op; bad input and non-owners refused', async () => {
    const o = await t.org();
    const s = await owner(o);
    const op = await createAccount(s, OPERATING);
    const changed = await consoleJson(t, s, 'POST', `/console/api/bank-accounts/${op.id}`, {
      remitterName: 'Kettle Pay',
      accountTitle: null,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.result).toMatchObject({
      changed: ['remitterName', 'accountTitle'],
      account: { remitterName: 'Kettle Pay', accountTitle: null },
    });
    const same = await consoleJson(t, s, 'POST', `/console/api/bank-accounts/${op.id}`, { remitterName: 'Kettle Pay' });
    expect(same.body.result).toMatchObject({ noop: true, changed: [], ledgerId: null });
    const unpaired = await consoleJson(t, s, 'POST', `/console/api/bank-accounts/${op.id}`, { bsb: null });
    expect(unpaired.status).toBe(400);
    expect(unpaired.body.error.message).toContain('bsb: give both bsb and accountNumber, or neither');
    const bad = await consoleJson(t, s, 'POST', `/console/api/bank-accounts/${op.id}`, { bankCode: 'cba' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('bankCode: must be the 3-letter APCA abbreviation');
    expect((await consoleJson(t, s, 'POST', '/console/api/bank-accounts/bac_nope', { bankCode: 'CBA' })).status).toBe(404);
    const other = await t.org();
    const os = await owner(other);
    expect((await consoleJson(t, os, 'POST', `/console/api/bank-accounts/${op.id}`, { bankCode: 'WBC' })).status).toBe(404);
    const clerk = await addUser(t.db, {
      orgId: o.orgId,
      email: `clerk-${o.slug}@example.com`,
      role: 'bookkeeper',
      password: 'correct horse battery',
    });
    const cs = await consoleSignIn(t, o.slug, clerk.email, 'correct horse battery');
    expect((await consoleJson(t, cs, 'POST', `/console/api/bank-accounts/${op.id}`, { bankCode: 'WBC' })).status).toBe(403);
    expect((await consoleGet(t, cs, `/console/bank-accounts/${op.id}`)).status).toBe(403);
    // The form: the page shows the values; an emptied field is cleared.
    const page = await consoleGet(t, s, `/console/bank-accounts/${op.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('value="Kettle Pay"');
    const form = await consoleForm(t, s, `/console/bank-accounts/${op.id}`, {
      _csrf: s.csrf,
      bsb: '062-000',
      accountNumber: '12345678',
      bankCode: 'CBA',
      apcaUserId: '301501',
      userName: 'Kettle Joinery',
      remitterName: 'Kettle Pay',
      accountTitle: '',
    });
    expect(form.status, form.text).toBe(303);
    expect(form.headers.get('location')).toBe('/console/bank-accounts?updated=1010');
    expect((await accounts(o))[1]).toMatchObject({ apcaUserId: '301501', directEntry: { apcaUserId: '301501' } });
    const noCsrf = await consoleForm(t, s, `/console/bank-accounts/${op.id}`, { bankCode: 'WBC' });
    expect(noCsrf.status).toBe(403);
    const updates = (await orgEvents(t, o.orgId)).filter((e) => e.kind === 'books.bank_account.update');
    expect(updates.map((e) => [e.actor, e.payload.changed, e.payload.accountNumberEnding])).toEqual([
      [o.owner.userId, ['remitterName', 'accountTitle'], '678'],
      [o.owner.userId, ['apcaUserId'], '678'],
    ]);
    expect(updates.some((e) => e.raw.includes('12345678'))).toBe(false);
    await checkOrgEvents(t.db, o.orgId);
  });

  it('billScheduleRun with fundingAccountId: the card shows every funding field; the ABA file carries the record; the journal credits its chart account', async () => {
    const o = await t.org();
    const s = await owner(o);
    const op = await createAccount(s, OPERATING);
    const bills = await twoBills(o);
    const paymentDate = inDays(1);
    const params = { billIds: bills.map((b) => b.id), paymentDate, fundingAccountId: op.id, selfBalancing: true };
    const { hold, approvalId } = await heldAndRequested(t, o, 'books.billScheduleRun', params);
    const summary: string = hold.approval.subject.summary;
    for (const part of [
      ...cardFields({
        bsb: '062-000',
        accountNumber: '12345678',
        title: 'KETTLE OPERATING',
        bankCode: 'CBA',
        apcaUserId: '301500',
        userName: 'KETTLE JOINERY',
        remitterName: 'KETTLE JOIN',
        selfBalancing: true,
      }),
      `bank account record ${op.id} (chart account 1010)`,
      '"Coastal Timber" $123.45 to BSB 062-703 account 11223344',
      '"Northside Hardware" $50.00 to BSB 083-047 account 587412369',
    ]) {
      expect(summary).toContain(part);
    }
    await decide(t, o, approvalId, true);
    const done = await t.post(o.keys.agent, 'books.billScheduleRun', { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const r = done.body.result;
    expect(r).toMatchObject({ status: 'executed', totalCents: 17_345 });
    const lines = await journalLines(t, o.orgId, r.journalId);
    expect(lines.filter((l) => l.credit_cents > 0)).toEqual([expect.objectContaining({ account_code: '1010', credit_cents: 17_345 })]);
    expect(lines.some((l) => l.account_code === '1000')).toBe(false);
    expect((await accounts(o)).find((a) => a.accountCode === '1010')?.ledgerBalanceCents).toBe(-17_345);
    await t.server.outbox.kick();
    const aba = parseAba(readFileSync(join(dir, r.fileName), 'latin1'));
    expect(aba.descriptive).toMatchObject({ financialInstitution: 'CBA', userName: 'KETTLE JOINERY'.padEnd(26), userIdNumber: '301500' });
    for (const d of aba.details) {
      expect([d.traceBsb, d.traceAccountNumber, d.remitterName]).toEqual(['062-000', ' 12345678', 'KETTLE JOIN'.padEnd(16)]);
    }
    const balancing = aba.details.at(-1);
    expect(balancing).toMatchObject({ transactionCode: '13', bsb: '062-000', accountTitle: 'KETTLE OPERATING'.padEnd(32) });
    const event = (await orgEvents(t, o.orgId)).find((e) => e.kind === 'books.bill_run.execute');
    expect(event?.payload).toMatchObject({ fundingAccountId: op.id, fundingAccount: '062-000 ...678' });
    // The same call again: the run, a no-op.
    const again = await t.post(o.keys.agent, 'books.billScheduleRun', params);
    expect(again.body.result).toMatchObject({ runId: r.runId, noop: true });
  });

  it("billScheduleRun refuses both, neither, incomplete details, a card account, another organisation's and an unknown record", async () => {
    const o = await t.org();
    const s = await owner(o);
    const op = await createAccount(s, OPERATING);
    const partial = await createAccount(s, { kind: 'bank', name: 'Savings', bsb: '062-000', accountNumber: '7654321', bankCode: 'CBA' });
    const visa = await createAccount(s, { kind: 'credit_card', name: 'Visa' });
    const other = await t.org();
    const theirs = await createAccount(await owner(other), OPERATING);
    const bills = await twoBills(o);
    const base = { billIds: bills.map((b) => b.id), paymentDate: inDays(1) };
    const call = (extra: Record<string, unknown>) => t.post(o.keys.agent, 'books.billScheduleRun', { ...base, ...extra });
    const both = await call({ fundingAccountId: op.id, funding: FUNDING });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toContain('fundingAccountId: give exactly one of fundingAccountId and funding');
    const neither = await call({});
    expect(neither.status).toBe(400);
    expect(neither.body.error.message).toContain('fundingAccountId: give exactly one of fundingAccountId and funding');
    const incomplete = await call({ fundingAccountId: partial.id });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.error.message).toContain(
      `fundingAccountId: bank account ${partial.id} (Savings) cannot fund a bank file; it lacks apcaUserId, userName, remitterName`,
    );
    const card = await call({ fundingAccountId: visa.id });
    expect(card.status).toBe(400);
    expect(card.body.error.message).toContain('only a bank account can fund a bank file');
    expect((await call({ fundingAccountId: theirs.id })).status).toBe(404);
    const unknown = await call({ fundingAccountId: 'bac_unknown' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain('bank account bac_unknown not found');
    // Nothing was held or written.
    expect((await orgEvents(t, o.orgId)).filter((e) => e.kind === 'books.signature.hold')).toEqual([]);
  });

  it('a record changed after the hold: the approval no longer matches (CONFLICT); a new hold shows the new details', async () => {
    const o = await t.org();
    const s = await owner(o);
    const op = await createAccount(s, OPERATING);
    const bills = await twoBills(o);
    const params = { billIds: bills.map((b) => b.id), paymentDate: inDays(1), fundingAccountId: op.id };
    const { hold, approvalId } = await heldAndRequested(t, o, 'books.billScheduleRun', params);
    await decide(t, o, approvalId, true);
    const changed = await consoleJson(t, s, 'POST', `/console/api/bank-accounts/${op.id}`, { apcaUserId: '999999' });
    expect(changed.status).toBe(200);
    const refused = await t.post(o.keys.agent, 'books.billScheduleRun', { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain(`is bound to subject ${hold.subjectId}`);
    expect((await t.post(o.keys.reader, 'books.bills', { status: 'approved' })).body.result.bills).toHaveLength(2);
    const again = await t.post(o.keys.agent, 'books.billScheduleRun', params);
    expect(again.body.result.status).toBe('approval_required');
    expect(again.body.result.subjectId).not.toBe(hold.subjectId);
    expect(again.body.result.approval.subject.summary).toContain('APCA user id 999999');
  });

  it('payrollDraft with fundingAccountId and sign: the card shows every funding field, the ABA file carries the record, the journal credits its account; a changed record blocks the sign', async () => {
    const o = await t.org();
    const s = await owner(o);
    const op = await createAccount(s, { ...OPERATING, accountTitle: undefined });
    const ids = [
      await activeEmployee(t, o, {
        name: 'Aroha Ngata',
        annualSalaryCents: 7_280_000,
        bsb: '062-703',
        accountNumber: '11223344',
        accountName: 'Aroha Ngata',
      }),
    ];
    const pay = inDays(7);
    const run = { periodStart: inDays(-6), periodEnd: pay, paymentDate: pay, payFrequency: 'fortnightly', employeeIds: ids };
    const both = await t.post(o.keys.agent, 'books.payrollDraft', { ...run, fundingAccountId: op.id, funding: FUNDING });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toContain('fundingAccountId: give at most one of fundingAccountId and funding');
    expect((await t.post(o.keys.agent, 'books.payrollDraft', { ...run, fundingAccountId: 'bac_unknown' })).status).toBe(404);
    const draft = await t.post(o.keys.agent, 'books.payrollDraft', { ...run, fundingAccountId: op.id });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    const d = draft.body.result;
    expect(d).toMatchObject({ fundingAccount: '062-000 *****678', fundingAccountId: op.id });
    const { hold, result } = await signPayRun(t, o, d.id);
    const summary: string = hold.approval.subject.summary;
    for (const part of [
      ...cardFields({
        bsb: '062-000',
        accountNumber: '12345678',
        title: 'KETTLE JOINERY',
        bankCode: 'CBA',
        apcaUserId: '301500',
        userName: 'KETTLE JOINERY',
        remitterName: 'KETTLE JOIN',
        selfBalancing: false,
      }),
      `bank account record ${op.id} (chart account 1010)`,
      'to BSB 062-703 account 11223344',
    ]) {
      expect(summary).toContain(part);
    }
    expect(result).toMatchObject({ status: 'signed', fileName: `${d.id}.aba`, fundingAccountId: op.id });
    const lines = await journalLines(t, o.orgId, result.journalId);
    expect(lines.at(-1)).toMatchObject({ account_code: '1010', credit_cents: d.totals.netCents });
    await t.server.outbox.kick();
    const aba = parseAba(readFileSync(join(dir, result.fileName), 'latin1'));
    expect(aba.descriptive).toMatchObject({ financialInstitution: 'CBA', userIdNumber: '301500', userName: 'KETTLE JOINERY'.padEnd(26) });
    expect(aba.details.map((x) => [x.bsb, x.traceBsb, x.traceAccountNumber, x.remitterName])).toEqual([
      ['062-703', '062-000', ' 12345678', 'KETTLE JOIN'.padEnd(16)],
    ]);

    // A draft whose record changes before it is signed: CONFLICT naming fundingAccountId, nothing posted.
    const next = { ...run, periodStart: inDays(8), periodEnd: inDays(21), paymentDate: inDays(21) };
    const d2 = (await t.post(o.keys.agent, 'books.payrollDraft', { ...next, fundingAccountId: op.id })).body.result;
    const held = await heldAndRequested(t, o, 'books.payrollSign', { id: d2.id });
    await decide(t, o, held.approvalId, true);
    expect((await consoleJson(t, s, 'POST', `/console/api/bank-accounts/${op.id}`, { remitterName: 'Kettle Wages' })).status).toBe(200);
    const refused = await t.post(
      o.keys.agent,
      'books.payrollSign',
      { id: d2.id, approvalId: held.approvalId },
      { 'x-idempotency-key': freshKey() },
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain(
      `fundingAccountId: the direct-entry details of bank account ${op.id} changed after pay run ${d2.id} was drafted`,
    );
    const row = await t.db.reader.get<{ status: string }>('SELECT status FROM pay_runs WHERE org_id = ? AND id = ?', [o.orgId, d2.id]);
    expect(row?.status).toBe('draft');
    await checkOrgEvents(t.db, o.orgId);
  });
});

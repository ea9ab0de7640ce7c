import { canonicalJson, corrections, events, FIXED_ASSET_ACCOUNT, sha256Hex, type HeldReason } from '@finance-desk/protocol';
import type { z } from 'zod';
import { daysBetween } from '../../clock.js';
import { conflict, DomainError, invariant } from '../../errors.js';
import { newId } from '../../ids.js';
import type { ResultOf, Uow } from '../../write-path.js';
import { finishContact, resolveDocumentContact } from '../contacts/contacts.js';
import { accountExists, newJournalId, postJournal, type PostingLine } from '../gl/post.js';
import { checkPostable } from '../gl/periods.js';
import { BILL_INSERT, heldReasonFor, payeeKey } from '../payables/bills.js';
import { PAYABLES_ACCOUNT } from '../payables/ledger-api.js';
import { RECEIVABLES_ACCOUNT } from '../receivables/ledger-api.js';
import { searchKey } from '../search-key.js';
import { checkCarriedPayroll, hashablePayroll, recordCarriedPayroll } from '../payroll/conversion.js';
import { checkOpeningAssets, openingAssetLines, planOpeningAssets, registerOpeningAssets } from '../assets/opening.js';
import { billWords, indexDocumentWords, invoiceWords } from '../reconciliation/document-words.js';

/**
 * books.openingBalances: the business's conversion from its old
 * system, recorded once. One journal dated the conversion date carries every balance: the
 * accounts given, and the control accounts as the sum of the documents carried in, one line per
 * document (docId), so aged reports, payments, matches and payment runs work per document from
 * day one. No revenue, expense or GST is posted again (the old system reported them). Decisions
 * (docs/decisions.md, the opening-balances records and "Opening balances only before trading;
 * carried-in bills face the bill-approval rule"): once per organisation (the
 * same params again is a no-op; other params CONFLICT); refused when any journal is dated on or
 * before the conversion date, and once the organisation trades here at all (a document, journal or
 * bank line): a conversion is not a way to bring bills in around billCapture's hold; documents
 * are dated on or before it; invoice numbers in the organisation's prefix move the sequence past
 * them; each carried-in bill is held exactly when billCapture would hold it.
 */
type Params = z.infer<typeof corrections.openingBalances.params>;
type Result = ResultOf<typeof corrections.openingBalances>;

const bad = (field: string, message: string) => new DomainError('BAD_REQUEST', `${field}: ${message}`, { field });

/** Accounts whose balance is not given: control accounts (from documents) and the asset register's. */
const NOT_GIVEN: Readonly<Record<string, string>> = {
  [RECEIVABLES_ACCOUNT]: 'is Accounts receivable: its opening balance is the invoices carried in (invoices)',
  [PAYABLES_ACCOUNT]: 'is Accounts payable: its opening balance is the bills carried in (bills)',
  '2500': 'is Expense claims payable: reimburse claims owed at conversion in the old system, or carry them in as bills',
  // One rule: the asset register is 1500 − 1510, so their balances are the assets carried in, never a line.
  [FIXED_ASSET_ACCOUNT]: 'holds registered fixed assets: its opening balance is the assets carried in at cost (assets)',
  '1510':
    "is accumulated depreciation of registered fixed assets: its opening balance is the assets' accumulatedDepreciationCents (assets)",
};

async function check(p: Params, uow: Uow): Promise<void> {
  if (p.conversionDate > uow.today) throw bad('conversionDate', `${p.conversionDate} is in the future (today is ${uow.today})`);
  checkPostable(uow, p.conversionDate, 'conversionDate');
  const seen = new Set<string>();
  for (const [i, a] of p.accounts.entries()) {
    const field = `accounts[${i}].accountCode`;
    const why = NOT_GIVEN[a.accountCode];
    if (why) throw bad(field, `${a.accountCode} ${why}`);
    if (seen.has(a.accountCode)) throw bad(field, `${a.accountCode} is given twice; give each account's balance once`);
    seen.add(a.accountCode);
    if (!(await accountExists(uow.tx, uow.orgId, a.accountCode))) throw bad(field, `account ${a.accountCode} does not exist`);
  }
  const docs = [
    ...(p.invoices ?? []).map((d, i) => ({ d, path: `invoices[${i}]` })),
    ...(p.bills ?? []).map((d, i) => ({ d, path: `bills[${i}]` })),
  ];
  for (const { d, path } of docs) {
    if (d.issueDate > p.conversionDate) throw bad(`${path}.issueDate`, `${d.issueDate} is after conversionDate ${p.conversionDate}`);
  }
  const numbers = new Map<string, number>();
  for (const [i, inv] of (p.invoices ?? []).entries()) {
    const prior = numbers.get(inv.number);
    if (prior !== undefined)
      throw bad(`invoices[${i}].number`, `${inv.number} is also invoices[${prior}].number; invoice numbers are unique`);
    numbers.set(inv.number, i);
  }
  checkOpeningAssets(p.assets ?? [], p.conversionDate);
  const assetCost = (p.assets ?? []).reduce((s, a) => s + a.costCents, 0);
  const assetDepreciation = (p.assets ?? []).reduce((s, a) => s + a.accumulatedDepreciationCents, 0);
  const dr =
    p.accounts.reduce((s, a) => s + (a.debitCents ?? 0), 0) + (p.invoices ?? []).reduce((s, d) => s + d.outstandingCents, 0) + assetCost;
  const cr =
    p.accounts.reduce((s, a) => s + (a.creditCents ?? 0), 0) +
    (p.bills ?? []).reduce((s, d) => s + d.outstandingCents, 0) +
    assetDepreciation;
  if (dr !== cr) {
    const assets = p.assets?.length ? ", the assets' cost on 1500" : '';
    const depreciation = p.assets?.length ? ", the assets' accumulated depreciation on 1510" : '';
    throw bad(
      'accounts',
      `debits (${dr}, with the invoices' outstanding on 1100${assets}) must equal credits (${cr}, with the bills' outstanding on 2000${depreciation}); ` +
        `the difference is ${Math.abs(dr - cr)} cents (the old system's balance sheet balances: check equity 3000)`,
    );
  }
  if (dr === 0) throw bad('accounts', 'there is no balance to record: give accounts, invoices, bills or assets');
  if (p.payroll) await checkCarriedPayroll(uow, p.payroll, p.conversionDate);
}

async function clashes(p: Params, uow: Uow): Promise<void> {
  const earlier = await uow.tx.get<{ n: number; first: string | null }>(
    'SELECT COUNT(*) AS n, MIN(date) AS first FROM journals WHERE org_id = ? AND date <= ?',
    [uow.orgId, p.conversionDate],
  );
  if (Number(earlier?.n ?? 0) > 0) {
    throw conflict(
      `${Number(earlier?.n)} journal(s) are dated on or before conversionDate ${p.conversionDate} (the first on ${earlier?.first ?? ''}); ` +
        'opening balances are the books as at the conversion date: choose a later conversion date, or reverse those journals',
    );
  }
  // Only a business that does not trade here yet converts: otherwise bills would come in approved
  // around the bill-approval rule and balances would be posted behind documents already on the
  // books. (No invoice exists either, so a carried-in number cannot clash with one.)
  const trades = await uow.tx.get<Record<(typeof TRADING)[number][0], unknown>>(
    `SELECT ${TRADING.map(([table]) => `EXISTS (SELECT 1 FROM ${table} WHERE org_id = ?) AS ${table}`).join(', ')}`,
    TRADING.map(() => uow.orgId),
  );
  const found = TRADING.filter(([table]) => Boolean(Number(trades?.[table] ?? 0))).map(([, words]) => words);
  if (found.length > 0) {
    throw conflict(
      `the organisation already trades here (it has ${found.join(', ')}); opening balances convert the books of a business ` +
        'before it trades here. Bring what the old system still owes in as ordinary documents (books.invoiceDraft, ' +
        'books.billCapture, which holds bills under the bill-approval rule) and other balances with a manual journal (books.journalPost)',
    );
  }
}

/** What makes an organisation one that trades here: its documents, journals and bank lines. */
const TRADING = [
  ['invoices', 'invoices'],
  ['bills', 'bills'],
  ['expense_claims', 'expense claims'],
  ['pay_runs', 'pay runs'],
  ['bas_returns', 'BAS returns'],
  ['journals', 'journals'],
  ['bank_feed_lines', 'bank feed lines'],
] as const;

export async function openingBalances(p: Params, uow: Uow): Promise<Result> {
  // Leave hours are decimals, which canonical JSON does not write: hashed as hundredths.
  const hash = sha256Hex(canonicalJson(p.payroll ? { ...p, payroll: hashablePayroll(p.payroll) } : p));
  const prior = await uow.tx.get<{ params_hash: string; result: string; conversion_date: string }>(
    `SELECT params_hash, result, conversion_date FROM opening_balances WHERE org_id = ?${uow.caps.forUpdate}`,
    [uow.orgId],
  );
  if (prior) {
    if (prior.params_hash === hash) {
      const stored = JSON.parse(prior.result) as Omit<Result, 'bills'> & { bills?: Result['bills'] };
      // Conversions recorded before carried-in bills were checked brought every bill in approved.
      const bills = stored.bills ?? stored.billIds.map((id) => ({ id, status: 'approved' as const, heldReason: null }));
      return { ...stored, bills, noop: true as const };
    }
    throw conflict(
      `opening balances were recorded as at ${prior.conversion_date}; they are recorded once. ` +
        `Correct a balance with a manual journal (books.journalPost) dated after it`,
    );
  }
  await check(p, uow);
  await clashes(p, uow);
  const invoices = (p.invoices ?? []).map((d) => ({ d, id: newId('inv') }));
  const bills = (p.bills ?? []).map((d) => ({ d, id: newId('bill') }));
  const assets = planOpeningAssets(p.assets ?? []);
  const receivablesCents = invoices.reduce((s, x) => s + x.d.outstandingCents, 0);
  const payablesCents = bills.reduce((s, x) => s + x.d.outstandingCents, 0);
  const debitCents =
    p.accounts.reduce((s, a) => s + (a.debitCents ?? 0), 0) + receivablesCents + assets.reduce((s, x) => s + x.a.costCents, 0);
  const journalId = newJournalId();
  // Contacts are found or created before the event, as invoiceDraft and billCapture do.
  const customers = [];
  for (const [i, x] of invoices.entries()) {
    customers.push(
      await resolveDocumentContact(
        uow,
        { payeeName: x.d.payeeName, contactId: x.d.contactId, email: x.d.payeeEmail ?? null },
        'customer',
      ).catch((e: unknown) => {
        throw e instanceof DomainError && e.message.startsWith('payeeName:') ? bad(`invoices[${i}].payeeName`, e.message.slice(11)) : e;
      }),
    );
  }
  const suppliers = [];
  for (const [i, x] of bills.entries()) {
    suppliers.push(
      await resolveDocumentContact(uow, { payeeName: x.d.payeeName, contactId: x.d.contactId }, 'supplier').catch((e: unknown) => {
        throw e instanceof DomainError && e.message.startsWith('payeeName:') ? bad(`bills[${i}].payeeName`, e.message.slice(11)) : e;
      }),
    );
  }
  // The bill-approval rule (hold a new payee, a total above the floor, changed bank details) as
  // billCapture applies it, against the bills approved here before this call (none are
  // approved by it), on what is left to pay: the old system's approval is not a human's here.
  const held: (HeldReason | null)[] = [];
  for (const [i, x] of bills.entries()) {
    const party = suppliers[i];
    invariant(party, 'each bill has its contact');
    const bank =
      x.d.payeeBsb && x.d.payeeAccountNumber ? { bsb: x.d.payeeBsb, accountNumber: x.d.payeeAccountNumber, accountName: null } : null;
    held.push(await heldReasonFor(uow, payeeKey(party.payeeName), x.d.outstandingCents, bank));
  }
  const lines: PostingLine[] = [
    ...p.accounts.map((a) => ({
      account: a.accountCode,
      debitCents: a.debitCents ?? 0,
      creditCents: a.creditCents ?? 0,
      description: `Opening balance ${a.accountCode}`,
    })),
    ...invoices.map((x) => ({
      account: RECEIVABLES_ACCOUNT,
      debitCents: x.d.outstandingCents,
      docId: x.id,
      description: `Opening balance: invoice ${x.d.number}`,
    })),
    ...bills.map((x) => ({
      account: PAYABLES_ACCOUNT,
      creditCents: x.d.outstandingCents,
      docId: x.id,
      description: `Opening balance: bill ${x.d.reference}`,
    })),
    ...openingAssetLines(assets),
  ];
  await postJournal(uow, {
    id: journalId,
    date: p.conversionDate,
    dateField: 'conversionDate',
    memo: `Opening balances at ${p.conversionDate} (conversion)`,
    source: { kind: 'opening_balances', id: uow.orgId },
    lines,
  });
  const event = await uow.emit(events.openingBalancesRecord, {
    entityId: uow.orgId,
    payload: {
      conversionDate: p.conversionDate,
      journalId,
      debitCents,
      accountCount: p.accounts.length,
      invoiceCount: invoices.length,
      receivablesCents,
      billCount: bills.length,
      payablesCents,
      heldBillCount: held.filter((r) => r !== null).length,
      ...(p.payroll ? { payrollEmployeeCount: p.payroll.employees.length } : {}),
      ...(assets.length > 0 ? { assetIds: assets.map((x) => x.id) } : {}),
    },
  });
  await registerOpeningAssets(uow, assets, { date: p.conversionDate, journalId, ledgerId: event.ledgerId });
  // Employees' year to date and leave balances from the old software (payroll/conversion.ts).
  const payrollYear = p.payroll ? await recordCarriedPayroll(uow, p.payroll, p.conversionDate, event.ledgerId) : null;
  for (const [i, x] of invoices.entries()) {
    const party = customers[i];
    invariant(party, 'each invoice has its contact');
    await finishContact(uow, party, 'customer', event.ledgerId);
    const d = x.d;
    const gst = d.gstCents ?? 0;
    await uow.tx.run(
      `INSERT INTO invoices (org_id, id, status, payee_name, contact_id, payee_search, description, total_cents, gst_cents, due_days,
         created_at, issued_on, due_on, payee_email, chase_step, journal_id, number, reference, ledger_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        uow.orgId,
        x.id,
        d.outstandingCents < d.totalCents ? 'part_paid' : 'sent',
        party.payeeName,
        party.contactId,
        searchKey(party.payeeName),
        d.description,
        d.totalCents,
        gst,
        Math.max(0, daysBetween(d.issueDate, d.dueDate)),
        uow.now,
        d.issueDate,
        d.dueDate,
        d.payeeEmail ?? null,
        0,
        journalId,
        d.number,
        d.reference ?? null,
        event.ledgerId,
      ],
    );
    await uow.tx.run(
      `INSERT INTO invoice_lines (org_id, invoice_id, line_no, description, amount_cents, tax_code, account_code, gst_cents)
       VALUES (?, ?, 1, ?, ?, ?, '4000', ?)`,
      [uow.orgId, x.id, d.description, d.totalCents, gst > 0 ? 'GST' : 'BAS_EXCLUDED', gst],
    );
    // Carried-in invoices are posted by the conversion journal: their words, as invoiceSend stores them.
    await indexDocumentWords(
      uow.tx,
      uow.orgId,
      invoiceWords({ id: x.id, payee_name: party.payeeName, number: d.number, reference: d.reference ?? null, due_on: d.dueDate }),
    );
  }
  for (const [i, x] of bills.entries()) {
    const party = suppliers[i];
    invariant(party, 'each bill has its contact');
    await finishContact(uow, party, 'supplier', event.ledgerId);
    const d = x.d;
    const gst = d.gstCents ?? 0;
    // Captured on its issue date (noon UTC: that date in every Australian time zone), so aged
    // payables show the original date. Posted by the conversion journal either way; a held bill
    // waits for billApprove, which then posts nothing again (journal_id is set). approved_at stays
    // NULL: the old system approved it, not a human here, so its bank details are not "last
    // approved" for the bill-approval rule until a human approves it here.
    const heldReason = held[i] ?? null;
    await uow.tx.run(BILL_INSERT, [
      uow.orgId,
      x.id,
      heldReason ? 'held' : 'approved',
      party.payeeName,
      payeeKey(party.payeeName),
      party.contactId,
      d.description,
      d.totalCents,
      gst,
      Math.max(0, daysBetween(d.issueDate, d.dueDate)),
      d.issueDate,
      d.dueDate,
      d.reference,
      heldReason,
      null,
      null,
      d.payeeBsb ?? null,
      d.payeeAccountNumber ?? null,
      d.payeeAccountName?.toUpperCase() ?? null,
      d.payeeReference?.toUpperCase() ?? null,
      journalId,
      `${d.issueDate}T12:00:00.000Z`,
      event.ledgerId,
    ]);
    await uow.tx.run(
      `INSERT INTO bill_lines (org_id, bill_id, line_no, description, amount_cents, tax_code, account_code) VALUES (?, ?, 1, ?, ?, ?, '6000')`,
      [uow.orgId, x.id, d.description, d.totalCents, gst > 0 ? 'GST_ON_EXPENSES' : 'BAS_EXCLUDED'],
    );
    // Posted by the conversion journal, held or not (approval then posts nothing): its words now.
    await indexDocumentWords(
      uow.tx,
      uow.orgId,
      billWords({
        id: x.id,
        payee_name: party.payeeName,
        payee_reference: d.payeeReference?.toUpperCase() ?? null,
        description: d.description,
        reference: d.reference ?? null,
        due_on: d.dueDate,
      }),
    );
  }
  await advanceSequence(
    uow,
    invoices.map((x) => x.d.number),
  );
  await uow.tx.run('UPDATE organisations SET conversion_date = ? WHERE id = ?', [p.conversionDate, uow.orgId]);
  const result = {
    conversionDate: p.conversionDate,
    journalId,
    debitCents,
    receivablesCents,
    payablesCents,
    accountCount: p.accounts.length,
    invoiceIds: invoices.map((x) => x.id),
    billIds: bills.map((x) => x.id),
    bills: bills.map((x, i) => {
      const heldReason = held[i] ?? null;
      return { id: x.id, status: heldReason ? ('held' as const) : ('approved' as const), heldReason };
    }),
    ...(p.payroll && payrollYear !== null
      ? { payroll: { employeeIds: p.payroll.employees.map((e) => e.employeeId), financialYear: payrollYear } }
      : {}),
    ...(assets.length > 0 ? { assetIds: assets.map((x) => x.id) } : {}),
    ledgerId: event.ledgerId,
  };
  await uow.tx.run(
    'INSERT INTO opening_balances (org_id, conversion_date, params_hash, journal_id, result, created_at, ledger_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [uow.orgId, p.conversionDate, hash, journalId, JSON.stringify(result), uow.now, event.ledgerId],
  );
  return result;
}

/** Numbers written in the organisation's prefix (`INV-0042`) move invoice_next past them. */
async function advanceSequence(uow: Uow, numbers: readonly string[]): Promise<void> {
  const org = await uow.tx.get<{ invoice_prefix: string; invoice_next: number }>(
    'SELECT invoice_prefix, invoice_next FROM organisations WHERE id = ?',
    [uow.orgId],
  );
  invariant(org, 'the organisation exists');
  let next = Number(org.invoice_next);
  for (const n of numbers) {
    if (!n.startsWith(org.invoice_prefix)) continue;
    const digits = n.slice(org.invoice_prefix.length);
    if (!/^\d{1,12}$/.test(digits)) continue;
    next = Math.max(next, Number(digits) + 1);
  }
  if (next !== Number(org.invoice_next)) {
    await uow.tx.run('UPDATE organisations SET invoice_next = ? WHERE id = ?', [next, uow.orgId]);
  }
}

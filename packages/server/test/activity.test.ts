import { ACTION_CLASS, HELD_REASONS, eventKinds } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVITY_GROUPS } from '../src/human/activity.js';
import { WORDED_KINDS, dayWords, eventWords, periodWords, type Names } from '../src/human/activity-words.js';
import { actorNames } from '../src/governance/actor-name.js';
import { setPolicy } from '../src/governance/policy-admin.js';
import { decideApproval } from '../src/governance/approvals.js';
import { addUser } from '../src/human/users.js';
import { issueOrgKey, type CreatedOrg } from '../src/org/orgs.js';
import { consoleGet, consoleJson, consoleSignIn, type Res, type Signed } from './console-helpers.js';
import { engines, openTestDatabase, startTestServer, type TestServer } from './harness.js';
import { activeEmployee } from './payroll-helpers.js';
import { freshKey } from './signature-helpers.js';

/**
 * The owner's activity in plain words and names everywhere an actor is shown: every event kind
 * of the catalogue has its own sentence; after a realistic month (a labelled key, a paired agent,
 * a named approver, a held bill decided, invoices, the bank, payroll) every console page the
 * owner sees and every approval email names people, agents and keys, and shows no internal rule
 * name, raw key id or event-kind definition; the activity page filters by kind of work and by
 * who acted, refusing a bad filter with a 400 naming the field.
 */

const NAMES: Names = {
  actors: new Map(),
  accounts: new Map(),
  things: new Map(),
  amounts: new Map(),
  approvals: new Map(),
  viewerId: 'usr_viewer',
  thisYear: '2026',
  timeZone: 'Australia/Sydney',
};

/** What no owner-facing text may carry (outside the folded technical details). */
function problems(text: string): string[] {
  const out: string[] = [];
  if (/PB-[A-Z]\d/.test(text)) out.push('an internal rule name (PB-…)');
  const d = /\bD\d+\b/.exec(text);
  if (d) out.push(`a decision number (${d[0]})`);
  for (const r of HELD_REASONS) if (text.includes(r)) out.push(`the rule id ${r}`);
  const key = /key_[0-9a-z]{26}/.exec(text);
  if (key) out.push(`a raw key id (${key[0]})`);
  for (const k of eventKinds) {
    // The catalogue's definition of a kind (its first 40 characters, as the page would escape them).
    const head = k.summary.slice(0, 40).replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/"/g, '&quot;');
    if (text.includes(head) || text.includes(k.summary.slice(0, 40))) out.push(`the definition of ${k.kind}`);
  }
  return out;
}

/**
 * A page in the server's own words: its main element, without the folded technical details and
 * without what somebody typed (quoted in <q>, labelled as theirs: it may say anything).
 */
const readable = (r: Res): string =>
  r.text
    .slice(r.text.indexOf('<main'), r.text.indexOf('</main>'))
    .replace(/<details[\s\S]*?<\/details>/g, '')
    .replace(/<q>[\s\S]*?<\/q>/g, '<q></q>');
/** What a reader sees of `readable`: its text, without tags (an option's value is an id, not shown). */
const visible = (r: Res): string => readable(r).replace(/<[^>]*>/g, ' ');

describe('activity sentences (no engine)', () => {
  it('every kind of the event catalogue has its own sentence and a kind of work to filter by', () => {
    const grouped = new Set(ACTIVITY_GROUPS.flatMap((g) => g.kinds));
    for (const k of eventKinds) {
      expect(WORDED_KINDS.has(k.kind), `${k.kind} has no sentence`).toBe(true);
      expect(grouped.has(k.kind), `${k.kind} is in no kind of work`).toBe(true);
    }
  });

  it('a payload missing every field (an old event) still reads as a sentence: no undefined, null, NaN, no throw', () => {
    for (const k of eventKinds) {
      for (const payload of [{}, { totalCents: 'x', payee: 7, lines: 'no', changed: [1], totals: null }]) {
        const w = eventWords({ kind: k.kind, entityId: 'x', actor: 'agt_x', payload }, NAMES);
        expect(w.sentence, k.kind).not.toMatch(/undefined|null|NaN|\[object/);
        expect(w.sentence.length, k.kind).toBeGreaterThan(10);
        expect(problems(w.sentence), k.kind).toEqual([]);
      }
    }
  });

  it('dates leave out this year; a period of whole months reads as months', () => {
    expect(dayWords('2026-12-12', '2026')).toBe('12 Dec');
    expect(dayWords('2025-12-12', '2026')).toBe('12 Dec 2025');
    expect(periodWords('2026-07-01', '2026-09-30', '2026')).toBe('Jul–Sep');
    expect(periodWords('2026-02-01', '2026-02-28', '2026')).toBe('Feb');
    expect(periodWords('2025-07-01', '2025-09-30', '2026')).toBe('Jul–Sep 2025');
    expect(periodWords('2026-09-01', '2026-09-14', '2026')).toBe('1 Sep – 14 Sep');
    // An expiry at 20:00 UTC on 10 Sep is 6 am on 11 Sep in Sydney (UTC+10): the organisation's date.
    const asked = eventWords(
      { kind: 'approval.requested', entityId: 'apr_1', actor: 'agt_1', payload: { expiresAt: '2026-09-10T20:00:00.000Z' } },
      NAMES,
    );
    expect(asked.sentence).toContain('open until 11 Sep');
  });

  it('words amounts in a foreign document’s currency and its Australian-dollar figures in dollars', () => {
    const names: Names = { ...NAMES, actors: new Map([['agt_1', 'Agent Harbour']]) };
    const paid = eventWords(
      {
        kind: 'books.invoice.payment',
        entityId: 'inv_1',
        actor: 'agt_1',
        payload: {
          amountCents: 100_000,
          outstandingCents: 0,
          currency: 'NZD',
          exchangeRate: '0.925000',
          audAmountCents: 92_500,
          payee: 'Kiwi Ltd',
        },
      },
      names,
    );
    expect(paid.sentence).toContain('recorded a payment of NZD 1,000.00');
    const bill = eventWords(
      {
        kind: 'books.bill.payment',
        entityId: 'bill_1',
        actor: 'agt_1',
        payload: {
          amountCents: 50_000,
          outstandingCents: 0,
          currency: 'USD',
          audAmountCents: 76_000,
          audGainCents: -1_500,
          payee: 'Cloud Inc',
        },
      },
      names,
    );
    // USD 500.00 paid at AUD 760.00, AUD 15.00 more than the bill carried: a loss.
    expect(bill.sentence).toBe(
      'Agent Harbour recorded a payment of USD 500.00 on a bill from Cloud Inc, $760.00 in Australian dollars; $15.00 lost on the exchange rate; paid in full',
    );
  });

  it('words a held bill, a payment run and a lodged BAS with their figures; typed text stays beside, labelled', () => {
    const names: Names = {
      ...NAMES,
      actors: new Map([
        ['key_a', 'Harbour agent'],
        ['', 'Finance Desk'],
      ]),
      things: new Map([['bac_1', 'Business account 1000']]),
    };
    const capture = eventWords(
      {
        kind: 'books.bill.capture',
        entityId: 'bill_1',
        actor: 'key_a',
        payload: { payee: 'Acme Supplies', totalCents: 33_000, dueOn: '2026-12-12', heldReason: 'NEW_PAYEE', description: 'Ink <b>' },
      },
      names,
    );
    expect(capture.sentence).toBe('Harbour agent captured a bill from Acme Supplies for $330.00, due 12 Dec — held: new payee');
    expect(capture.said).toEqual([{ label: "agent's description", text: 'Ink <b>' }]);
    const bank = eventWords(
      { kind: 'books.bill.capture', entityId: 'bill_2', actor: 'key_a', payload: { payee: 'Acme', heldReason: 'BANK_DETAILS_CHANGED' } },
      names,
    );
    expect(bank.sentence).toContain('held: new bank details');
    // 3 bills: 150 000 + 200 000 + 71 000 = 421 000 cents.
    const run = eventWords(
      {
        kind: 'books.bill_run.execute',
        entityId: 'run_1',
        actor: 'usr_viewer',
        payload: { billCount: 3, totalCents: 421_000, fundingAccountId: 'bac_1', paymentDate: '2026-10-01', fileName: 'run.aba' },
      },
      names,
    );
    expect(run.sentence).toBe('You paid 3 bills, $4,210.00, from Business account 1000, on 1 Oct (bank file run.aba)');
    const lodged = eventWords(
      {
        kind: 'books.tax.lodged',
        entityId: 'bas_1',
        actor: '',
        payload: { periodStart: '2026-07-01', periodEnd: '2026-09-30', fileName: 'receipt.xml', sha256: '3f9a'.padEnd(64, '0') },
      },
      names,
    );
    expect(lodged.sentence).toBe('The BAS for Jul–Sep was lodged, receipt receipt.xml (3f9a00…)');
  });
});

describe.each(engines)('activity in plain words and names everywhere (%s)', (engine) => {
  let t: TestServer;
  // 10 September 2026, 11 am in Sydney (the organisation's zone).
  const clock = '2026-09-10T01:00:00.000Z';
  let org: CreatedOrg;
  let owner: Signed;
  let harbour: string;
  let harbourKeyId: string;
  let pairedKey: string;
  let sam: { userId: string; email: string };
  let billApprovalId: string;
  let invoiceId: string;

  async function ok(key: string, method: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    const r = await t.post(key, method, body, headers);
    expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.result;
  }
  const get = (path: string, s: Signed = owner): Promise<Res> => consoleGet(t, s, path);

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => clock });
    org = await t.org('Harbour Books');
    owner = await consoleSignIn(t, org.slug, org.owner.email, org.owner.password);
    // A named approver who may approve bills, and a key issued with a label, not paired.
    const added = await addUser(t.db, { orgId: org.orgId, email: 'sam@harbour.example', role: 'approver', name: 'Sam Lee' });
    sam = { userId: added.userId, email: added.email };
    await setPolicy(t.db, {
      orgId: org.orgId,
      user: { id: org.owner.userId, role: 'owner' },
      patch: { decisionRights: { [ACTION_CLASS.billApprove]: [org.owner.userId, sam.userId] } },
    });
    const issued = await issueOrgKey(t.db, org.slug, 'agent', null, '  Harbour agent ');
    harbour = issued.key;
    harbourKeyId = issued.keyId;
    // A paired agent: the owner makes a code, the agent exchanges it for its key.
    const code = await consoleJson(t, owner, 'POST', '/console/api/pairing-codes', { agentName: 'ledger-bot', tier: 'agent' });
    expect(code.status, code.text).toBe(200);
    const paired = await t.post(null, 'org/pair', { code: code.body.result.code });
    expect(paired.status).toBe(200);
    pairedKey = paired.body.result.key;

    // Harbour agent captures a bill from a new payee, due in 93 days (10 Sep + 93 = 12 Dec): held.
    const bill = await ok(harbour, 'books.billCapture', {
      payeeName: 'Acme Supplies',
      description: 'Ink <b>and</b> paper',
      totalCents: 33_000,
      dueDays: 93,
    });
    const held = await t.post(harbour, 'books.billApprove', { id: bill.id });
    expect(held.status).toBe(423);
    const payloadHash = /payloadHash ([0-9a-f]{64})/.exec(held.body.error.message)?.[1];
    const req = await ok(harbour, 'approval.request', {
      actionClass: ACTION_CLASS.billApprove,
      payloadHash,
      subject: { kind: 'books.signature', subjectId: bill.id },
    });
    billApprovalId = req.approvalId;
    await decideApproval(t.db, {
      orgId: org.orgId,
      approvalId: billApprovalId,
      user: { id: sam.userId, role: 'approver' },
      approve: true,
      reason: 'Known supplier, ABOVE_FLOOR is fine',
    });
    await ok(harbour, 'books.billApprove', { id: bill.id, approvalId: billApprovalId }, { 'x-idempotency-key': freshKey() });

    // The paired agent invoices; the setup key records a part payment and imports the bank.
    const draft = await ok(pairedKey, 'books.invoiceDraft', {
      payeeName: 'Seaside Events',
      description: 'Catering',
      totalCents: 55_000,
      dueDays: 14,
    });
    invoiceId = draft.id;
    await ok(pairedKey, 'books.invoiceSend', { id: invoiceId });
    await ok(org.keys.agent, 'books.invoiceRecordPayment', { id: invoiceId, amountCents: 20_000 });
    await ok(org.keys.agent, 'books.feedLines', {
      lines: [
        { date: '2026-09-09', amountCents: 20_000, description: 'DEPOSIT Seaside' },
        { date: '2026-09-09', amountCents: -4_500, description: 'CARD FEES' },
      ],
    });
    // Payroll: an employee onboarded (the contract approved by the owner).
    await activeEmployee(t, org, { name: 'Kai Tane', annualSalaryCents: 7_280_000 });
    // A pending approval for the inbox: a second held bill, asked for by the paired agent.
    const second = await ok(pairedKey, 'books.billCapture', {
      payeeName: 'Bay Printing',
      description: 'Flyers',
      totalCents: 12_100,
      dueDays: 10,
    });
    const held2 = await t.post(pairedKey, 'books.billApprove', { id: second.id });
    const hash2 = /payloadHash ([0-9a-f]{64})/.exec(held2.body.error.message)?.[1];
    await ok(pairedKey, 'approval.request', {
      actionClass: ACTION_CLASS.billApprove,
      payloadHash: hash2,
      subject: { kind: 'books.signature', subjectId: second.id },
    });
  });
  afterAll(async () => t?.close());

  it('the activity says what happened, with the figures, the names and "You" for the signed-in person', async () => {
    const r = await get('/console/books/activity');
    expect(r.status).toBe(200);
    const m = readable(r);
    expect(m).toContain('Harbour agent captured a bill from Acme Supplies for $330.00, due 12 Dec — held: new payee');
    expect(m).toContain('Harbour agent asked for a person&#39;s approval to pay the bill from Acme Supplies ($330.00)');
    expect(m).toContain('Sam Lee approved the request to pay the bill from Acme Supplies ($330.00)');
    // What Sam typed is theirs, quoted, and may say anything (even a rule id, shown only inside the quote).
    const full = r.text;
    expect(m).not.toContain('Known supplier');
    expect(full).toContain('<span class="label">Sam Lee&#39;s reason:</span> <q>Known supplier, ABOVE_FLOOR is fine</q>');
    expect(full).toContain('<span class="label">agent&#39;s description:</span> <q>Ink &lt;b&gt;and&lt;/b&gt; paper</q>');
    expect(m).toContain('Agent ledger-bot drafted an invoice to Seaside Events for $550.00');
    // 55 000 − 20 000 = 35 000 cents still owed.
    expect(m).toMatch(
      /Setup agent key recorded a payment of \$200\.00 on invoice INV-\d+ to Seaside Events, received 10 Sep; \$350\.00 still owed/,
    );
    // 20 000 in, 4 500 out.
    expect(m).toContain('Setup agent key imported 2 bank lines into Business bank account 1000 dated 9 Sep: $200.00 in, $45.00 out');
    expect(m).toContain('You approved the request to issue Kai Tane&#39;s employment contract');
    expect(m).toContain('You made a pairing code for a new agent named ledger-bot');
    // The kind and ids stay available, folded.
    expect(full).toContain('<code>books.bill.capture</code>');
    expect(full).toContain(`by <code>${harbourKeyId}</code>`);
  });

  it('every console page the owner sees, and every approval email, names actors and shows no rule names, key ids or kind definitions', async () => {
    const pages = [
      '/console',
      '/console/history',
      `/console/approvals/${billApprovalId}`,
      '/console/policy',
      '/console/org',
      '/console/agents',
      '/console/accounts',
      '/console/files',
      '/console/books',
      '/console/books/activity',
      ...ACTIVITY_GROUPS.map((g) => `/console/books/activity?kind=${g.key}`),
      `/console/books/activity?who=${sam.userId}`,
      '/console/books/invoices',
      `/console/books/invoices/${invoiceId}`,
      '/console/books/bills',
      '/console/books/bank',
      '/console/books/reports',
      '/console/books/ledger?accountCode=1000',
    ];
    for (const path of pages) {
      const r = await get(path);
      expect(r.status, path).toBe(200);
      expect(problems(visible(r)), path).toEqual([]);
    }
    // The decided bill's card and the history name Sam and the labelled key.
    const card = readable(await get(`/console/approvals/${billApprovalId}`));
    expect(card).toContain('Harbour agent');
    expect(card).toContain('Sam Lee');
    const history = readable(await get('/console/history'));
    expect(history).toContain('Sam Lee');
    // The policy names Sam among who may approve bills, with the email Sam signs in with.
    expect(readable(await get('/console/policy'))).toContain('Sam Lee (sam@harbour.example, approver)');
    expect(readable(await get('/console'))).toContain('agent ledger-bot');
    // The approval emails: queued for each decider (the owner and Sam), naming who asked.
    const rows = await t.db.reader.all<{ body: string }>("SELECT body FROM outbox WHERE org_id = ? AND channel = 'email'", [org.orgId]);
    const mails = rows.map((row) => JSON.parse(row.body) as { text: string; subject: string });
    const aboutBill = mails.filter((mail) => mail.text.includes(billApprovalId));
    expect(aboutBill.length).toBe(2);
    for (const mail of mails) expect(problems(`${mail.subject}\n${mail.text}`), mail.subject).toEqual([]);
    expect(aboutBill[0]?.text).toContain('Harbour agent asks for a human decision');
  });

  it('filters by kind of work and by who acted; a bad filter is a 400 naming the field', async () => {
    const bills = readable(await get('/console/books/activity?kind=bills'));
    const sentences = [...bills.matchAll(/<p class="event-summary">([^<]*)<\/p>/g)].map((x) => x[1] ?? '');
    expect(sentences.length).toBeGreaterThan(2);
    for (const s of sentences) expect(s).toMatch(/bill/);
    expect(bills).toContain('<option value="bills" selected>Bills and expenses</option>');
    const bySam = readable(await get(`/console/books/activity?who=${sam.userId}`));
    const samSaid = [...bySam.matchAll(/<p class="event-summary">([^<]*)<\/p>/g)].map((x) => x[1] ?? '');
    expect(samSaid).toEqual(['Sam Lee approved the request to pay the bill from Acme Supplies ($330.00)']);
    expect(bySam).toContain(`<option value="${sam.userId}" selected>Sam Lee</option>`);
    // The system (the operator's CLI) is one of the choices: it created the organisation.
    const system = readable(await get('/console/books/activity?who=system'));
    expect(system).toContain('Finance Desk set up the organisation Harbour Books');
    const kind = await get('/console/books/activity?kind=%3Cscript%3E');
    expect(kind.status).toBe(400);
    expect(kind.text).toContain('kind: must be one of sales, bills, bank, payroll, tax, ledger, approvals, agents, setup');
    expect(kind.text).not.toContain('<script>');
    const who = await get('/console/books/activity?who=nobody');
    expect(who.status).toBe(400);
    expect(who.text).toContain('who: must be one of the people, agents or keys listed');
    const twice = await get('/console/books/activity?kind=bills&kind=tax');
    expect(twice.status).toBe(400);
    expect(twice.text).toContain('kind: give it once');
  });

  it('one function names every actor: a person by name else email, an agent, a key by label, the system', async () => {
    const bare = await addUser(t.db, { orgId: org.orgId, email: 'bare@harbour.example', role: 'bookkeeper' });
    const unlabelled = await issueOrgKey(t.db, org.slug, 'reader', null);
    const names = await actorNames(t.db.reader, org.orgId, [sam.userId, bare.userId, harbourKeyId, unlabelled.keyId, '', org.keyIds.agent]);
    expect(names.get(sam.userId)).toBe('Sam Lee');
    expect(names.get(bare.userId)).toBe('bare@harbour.example');
    expect(names.get(harbourKeyId)).toBe('Harbour agent');
    expect(names.get(unlabelled.keyId)).toBe(`unlabelled reader key ${unlabelled.keyId}`);
    expect(names.get('')).toBe('Finance Desk');
    expect(names.get(org.keyIds.agent)).toBe('Setup agent key');
    // The label and the name are in the ledger, with the key and the person.
    const events = await t.db.reader.all<{ kind: string; payload: string }>(
      "SELECT kind, payload FROM events WHERE org_id = ? AND kind IN ('key.issued', 'user.added') ORDER BY seq",
      [org.orgId],
    );
    expect(events.map((e) => JSON.parse(e.payload))).toEqual([
      { userId: sam.userId, email: 'sam@harbour.example', role: 'approver', name: 'Sam Lee' },
      { keyId: harbourKeyId, tier: 'agent', agentId: null, label: 'Harbour agent' },
      { userId: bare.userId, email: 'bare@harbour.example', role: 'bookkeeper' },
      { keyId: unlabelled.keyId, tier: 'reader', agentId: null },
    ]);
    await expect(issueOrgKey(t.db, org.slug, 'agent', null, '')).rejects.toThrow('label: must be 1 to 64 characters');
    await expect(addUser(t.db, { orgId: org.orgId, email: 'x@harbour.example', role: 'approver', name: 'a\nb' })).rejects.toThrow(
      'name: must be one line of text',
    );
  });
});

describe.each(engines)('migration 58: the keys an organisation was created with are labelled (%s)', (engine) => {
  it('labels the keys org.created names, and no other key', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate({ throughId: 54 });
      const key = (n: number) => `key_${String(n).padStart(26, '0')}`;
      await db.write(async (tx) => {
        await tx.run("INSERT INTO organisations (id, slug, name, created_at) VALUES ('org_a', 'a', 'A', '2026-01-01T00:00:00.000Z')");
        for (const [id, tier] of [
          [key(1), 'observer'],
          [key(2), 'agent'],
          [key(3), 'agent'],
        ] as const) {
          await tx.run(
            "INSERT INTO credentials (id, org_id, tier, agent_id, secret_hash, created_at) VALUES (?, 'org_a', ?, NULL, 'h', '2026-01-01T00:00:00.000Z')",
            [id, tier],
          );
        }
        // Seq 1 names keys 1 and 2; key 3 was issued later.
        await tx.run(
          `INSERT INTO events (org_id, seq, family, kind, entity_id, actor, at, payload, prev_hash, row_hash)
           VALUES ('org_a', 1, 'org', 'org.created', 'org_a', '', '2026-01-01T00:00:00.000Z', ?, '', 'x')`,
          [JSON.stringify({ keyIds: [key(1), key(2)] })],
        );
      });
      await db.migrate();
      const rows = await db.reader.all<{ id: string; label: string | null }>(
        "SELECT id, label FROM credentials WHERE org_id = 'org_a' ORDER BY id",
      );
      expect(rows).toEqual([
        { id: key(1), label: 'Setup observer key' },
        { id: key(2), label: 'Setup agent key' },
        { id: key(3), label: null },
      ]);
    } finally {
      await db.close();
      await drop();
    }
  });
});

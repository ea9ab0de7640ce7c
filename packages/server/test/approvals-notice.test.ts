/**
 * Through HTTP on both engines: approvals people notice (an email to each decider
 * when an approval becomes pending, linking to its card; cards that lead with who, how much, to
 * whom, from which account and when) and payment and lodgement files downloadable (console for
 * deciders, books.files / books.file for books.read keys), byte for byte with their SHA-256.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACTION_CLASS } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../src/clock.js';
import { setPublicUrl } from '../src/governance/approval-mail.js';
import { decideApproval } from '../src/governance/approvals.js';
import { setPolicy } from '../src/governance/policy-admin.js';
import { addUser } from '../src/human/users.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleGet, consoleSignIn, type Signed } from './console-helpers.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, FUNDING } from './payables-helpers.js';
import { freshKey } from './signature-helpers.js';

const PUBLIC = 'https://books.example.test';

interface Eml {
  readonly file: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

function readEmls(dir: string): Eml[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .map((file) => {
      const raw = readFileSync(join(dir, file), 'utf8');
      const [head = '', ...body] = raw.split('\r\n\r\n');
      const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(head)?.[1]?.trim() ?? '';
      return { file, to: header('To'), subject: header('Subject'), text: body.join('\r\n\r\n').replace(/\r\n/g, '\n') };
    });
}

/** The delivered emails about one approval, once the outbox has delivered `count` of them. */
async function emailsAbout(dir: string, approvalId: string, count: number): Promise<Eml[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = readEmls(dir).filter((e) => e.text.includes(approvalId));
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each(engines)('approvals people notice; payment and lodgement files (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let other: CreatedOrg;
  let approver: { email: string; password: string; userId: string };
  let bookkeeper: { email: string; password: string };
  const outboxDir = mkdtempSync(join(tmpdir(), 'fd-approval-mail-'));
  const paymentsDir = mkdtempSync(join(tmpdir(), 'fd-approval-pay-'));
  const lodgementDir = mkdtempSync(join(tmpdir(), 'fd-approval-lodge-'));
  // The server's clock: the test moves it forward (never backward) so due dates pass.
  let clock = new Date().toISOString();
  const today = () => clock.slice(0, 10);

  beforeAll(async () => {
    t = await startTestServer(engine, {
      now: () => clock,
      emailOutboxDir: outboxDir,
      paymentsOutboxDir: paymentsDir,
      lodgementOutboxDir: lodgementDir,
      publicUrl: PUBLIC,
    });
    org = await t.org('Harbourside Joinery');
    other = await t.org('Other Books');
    const a = await addUser(t.db, {
      orgId: org.orgId,
      email: `approver@${org.slug}.example`,
      role: 'approver',
      password: 'approver-password-1',
    });
    approver = { email: a.email, password: a.password, userId: a.userId };
    const b = await addUser(t.db, {
      orgId: org.orgId,
      email: `bookkeeper@${org.slug}.example`,
      role: 'bookkeeper',
      password: 'bookkeeper-password-1',
    });
    bookkeeper = { email: b.email, password: b.password };
    // The owner decides everything (default policy); approvers may also decide chase steps.
    await setPolicy(t.db, {
      orgId: org.orgId,
      user: { id: org.owner.userId, role: 'owner' },
      patch: { decisionRights: { [ACTION_CLASS.invoiceChaseStep]: [org.owner.userId, 'role:approver'] } },
    });
  });

  afterAll(async () => {
    setPublicUrl(null);
    await t?.close();
    rmSync(outboxDir, { recursive: true, force: true });
    rmSync(paymentsDir, { recursive: true, force: true });
    rmSync(lodgementDir, { recursive: true, force: true });
  });

  /** A sent invoice due in 14 days, the clock moved 20 days on, chased once, step 2 held and filed. */
  async function overdueChase(payeeName = 'Harbour Cafe') {
    const agent = org.keys.agent;
    const draft = await t.post(agent, 'books.invoiceDraft', {
      payeeName,
      payeeEmail: 'accounts@harbour-cafe.example',
      description: 'October catering',
      totalCents: 110_000,
      dueDays: 14,
    });
    const id = draft.body.result.id as string;
    expect((await t.post(agent, 'books.invoiceSend', { id })).body.ok).toBe(true);
    clock = new Date(Date.parse(clock) + 20 * 86_400_000).toISOString();
    expect((await t.post(agent, 'books.invoiceChaseStep', { id, step: 1 })).body.ok).toBe(true);
    const held = await t.post(agent, 'books.invoiceChaseStep', { id, step: 2 });
    expect(held.body.result.status).toBe('approval_required');
    const a = held.body.result.approval;
    const request = {
      actionClass: a.actionClass,
      payloadHash: a.payloadHash,
      subject: { kind: 'books.signature', subjectId: a.subject.subjectId },
    };
    const req = await t.post(agent, 'approval.request', request);
    expect(req.status).toBe(200);
    return { invoiceId: id, approvalId: req.body.result.approvalId as string, request, expiresAt: req.body.result.expiresAt as string };
  }

  it('emails each decider once when an approval becomes pending, with the facts and a link to its card; none to non-deciders', async () => {
    const { invoiceId, approvalId, request, expiresAt } = await overdueChase();
    const mails = await emailsAbout(outboxDir, approvalId, 2);
    expect(mails.map((m) => m.to).sort()).toEqual([approver.email, org.owner.email].sort());
    expect(mails.some((m) => m.to === bookkeeper.email)).toBe(false);
    for (const m of mails) {
      expect(m.subject).toContain('Approval needed: Escalate dunning on an unpaid invoice ($1,100.00)');
      expect(m.text).toContain(`Decide on its card: ${PUBLIC}/console/approvals/${approvalId}`);
      expect(m.text).toContain(`Setup agent key asks for a human decision in "Harbourside Joinery" (${org.slug})`);
      expect(m.text).toMatch(/How much: +\$1,100\.00 \(still owed\)/);
      expect(m.text).toMatch(/To whom: +"Harbour Cafe" <accounts@harbour-cafe\.example>/);
      expect(m.text).toMatch(/Due: +\d{4}-\d\d-\d\d \(overdue by 6 days\)/);
      expect(m.text).toContain(`Expires:    ${expiresAt.slice(0, 10)} ${expiresAt.slice(11, 16)} UTC`);
      expect(m.text).toContain(invoiceId);
      // The agent's own words are quoted and labelled as the agent's, never as the server's.
      expect(m.text).toContain(
        'The agent\'s own words, quoted exactly (Finance Desk has not checked them):\n  invoice description: "October catering"',
      );
    }
    // Filed again while pending: the same approval, no second email.
    const again = await t.post(org.keys.agent, 'approval.request', request);
    expect(again.body.result).toMatchObject({ approvalId, noop: true });
    await new Promise((r) => setTimeout(r, 300));
    expect(readEmls(outboxDir).filter((e) => e.text.includes(approvalId))).toHaveLength(2);
    const rows = await t.db.reader.all<{ body: string }>("SELECT body FROM outbox WHERE org_id = ? AND channel = 'email'", [org.orgId]);
    expect(rows.filter((r) => r.body.includes(approvalId))).toHaveLength(2);
  });

  it('without PUBLIC_URL the email says so and gives the card path', async () => {
    setPublicUrl(null);
    try {
      const { approvalId } = await overdueChase('Bay Gym');
      const [mail] = await emailsAbout(outboxDir, approvalId, 2);
      expect(mail?.text).toContain('This server has no public address set (PUBLIC_URL)');
      expect(mail?.text).toContain(`go to /console/approvals/${approvalId}`);
      expect(mail?.text).not.toContain('https://');
    } finally {
      setPublicUrl(PUBLIC);
    }
  });

  it('the card leads with who, how much, to whom and when; the technical payload is folded away', async () => {
    const { approvalId } = await overdueChase('<b>Shouty</b> Cafe');
    const s = await consoleSignIn(t, org.slug, approver.email, approver.password);
    const page = await consoleGet(t, s, `/console/approvals/${approvalId}`);
    expect(page.status).toBe(200);
    const card = page.text.slice(page.text.indexOf(`<article class="card" id="${approvalId}"`));
    const at = (words: string) => {
      const i = card.indexOf(words);
      expect(i, words).toBeGreaterThan(-1);
      return i;
    };
    // Order: the lead facts, then the summary, then the folded payload, then the decision.
    expect(at('<dt>Asked by</dt>')).toBeLessThan(at('<dt>How much</dt>'));
    expect(at('<dt>How much</dt>')).toBeLessThan(at('<dt>To whom</dt>'));
    expect(at('<dt>Due</dt>')).toBeLessThan(at('<dt>Expires</dt>'));
    expect(at('<dt>Expires</dt>')).toBeLessThan(at('class="summary"'));
    expect(at('class="summary"')).toBeLessThan(at('<details class="technical">'));
    expect(at('<details class="technical">')).toBeLessThan(at('books.invoiceChaseStep'));
    expect(at('books.invoiceChaseStep')).toBeLessThan(at('</details>'));
    expect(at('</details>')).toBeLessThan(at('>Approve</button>'));
    expect(card).toContain('<strong>$1,100.00</strong> (still owed)');
    expect(card).toContain('<span class="badge overdue">overdue by 6 days</span>');
    expect(card).toContain('&quot;&lt;b&gt;Shouty&lt;/b&gt; Cafe&quot;');
    expect(card).not.toContain('<b>Shouty');
    expect(card).toContain('Setup agent key');
    // Another organisation's approval is not found; so is an unknown one.
    const o = await consoleSignIn(t, other.slug, other.owner.email, other.owner.password);
    expect((await consoleGet(t, o, `/console/approvals/${approvalId}`)).status).toBe(404);
    expect((await consoleGet(t, s, '/console/approvals/apr_nope')).status).toBe(404);
  });

  /** An approved bill with bank details, then a payment run: held, approved by the owner, executed. */
  async function paidRun(): Promise<{ runId: string; runApprovalCard: string; owner: Signed }> {
    const agent = org.keys.agent;
    const bill = await approvedBill(t, org, {
      payeeName: 'Harbour Timber',
      description: 'Decking',
      totalCents: 123_450,
      dueDays: 10,
      payeeBsb: '062-000',
      payeeAccountNumber: '12345678',
      payeeAccountName: 'Harbour Timber',
    });
    const billId = bill.id as string;
    const runParams = { billIds: [billId], paymentDate: addDays(today(), 1), funding: FUNDING };
    const held = await t.post(agent, 'books.billScheduleRun', runParams);
    expect(held.body.result.status).toBe('approval_required');
    const a = held.body.result.approval;
    const req = await t.post(agent, 'approval.request', {
      actionClass: a.actionClass,
      payloadHash: a.payloadHash,
      subject: { kind: 'books.signature', subjectId: a.subject.subjectId },
    });
    const approvalId = req.body.result.approvalId as string;
    const owner = await consoleSignIn(t, org.slug, org.owner.email, org.owner.password);
    const card = (await consoleGet(t, owner, `/console/approvals/${approvalId}`)).text;
    const ok = await fetch(`${t.url}/console/approvals/${approvalId}/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: owner.cookie },
      body: new URLSearchParams({ _csrf: owner.csrf }).toString(),
      redirect: 'manual',
    });
    expect(ok.status).toBe(303);
    const paid = await t.post(agent, 'books.billScheduleRun', { ...runParams, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(paid.body.result.status).toBe('executed');
    return { runId: paid.body.result.runId as string, runApprovalCard: card, owner };
  }

  it('payment runs: the card names the funding account and payee; the ABA file downloads byte for byte, by key and in the console', async () => {
    const { runId, runApprovalCard, owner } = await paidRun();
    expect(runApprovalCard).toContain('<dt>From account</dt><dd>WBC BSB 034-702 account 458921 (&quot;Harbourside Joinery&quot;)</dd>');
    expect(runApprovalCard).toContain('<strong>$1,234.50</strong> (1 bill)');
    expect(runApprovalCard).toContain('&quot;Harbour Timber&quot;');

    // The API: listed with its SHA-256, fetched as base64 of the exact bytes.
    const list = await t.get(org.keys.reader, 'books.files?kind=aba');
    expect(list.status).toBe(200);
    const row = list.body.files.find((f: { source: string }) => f.source === runId);
    expect(row).toMatchObject({ kind: 'aba', filename: `${runId}.aba`, contentType: 'text/plain; charset=us-ascii' });
    const one = await t.get(org.keys.reader, `books.file?id=${row.id}`);
    expect(one.status).toBe(200);
    const bytes = Buffer.from(one.body.contentBase64 as string, 'base64');
    expect(bytes.length).toBe(row.sizeBytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(row.sha256);
    // The same bytes the bank channel received (the payments sink's file, once delivered).
    const dropped = join(paymentsDir, `${runId}.aba`);
    const deadline = Date.now() + 10_000;
    while (!existsSync(dropped) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(dropped).equals(bytes)).toBe(true);
    expect(bytes.toString('latin1')).toMatch(/^0/);

    // Scopes: an observer key (org.read only) is refused; another organisation's key finds nothing.
    expect((await t.get(org.keys.observer, 'books.files')).status).toBe(403);
    expect((await t.get(org.keys.observer, `books.file?id=${row.id}`)).status).toBe(403);
    expect((await t.get(other.keys.reader, `books.file?id=${row.id}`)).status).toBe(404);
    // A payment_file row without a file's fields (as ops tests write) is not listed and not served.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await t.db.write((tx) =>
      tx.run("INSERT INTO outbox (id, org_id, channel, body, created_at, claimed_until) VALUES (?, ?, 'payment_file', '{}', ?, ?)", [
        `pay_empty_${other.orgId}`,
        other.orgId,
        clock,
        later,
      ]),
    );
    expect((await t.get(other.keys.reader, 'books.files')).body).toEqual({ files: [], nextCursor: null });
    expect((await t.get(other.keys.reader, `books.file?id=pay_empty_${other.orgId}`)).status).toBe(404);
    // An outbox row that is not a file (an email) is not a file.
    const email = await t.db.reader.get<{ id: string }>("SELECT id FROM outbox WHERE org_id = ? AND channel = 'email' LIMIT 1", [
      org.orgId,
    ]);
    expect((await t.get(org.keys.reader, `books.file?id=${email?.id ?? ''}`)).status).toBe(404);
    expect((await t.get(org.keys.reader, 'books.files?limit=0')).status).toBe(400);
    expect((await t.get(org.keys.reader, 'books.files?kind=zip')).status).toBe(400);

    // The console: deciders see the list and download the exact bytes as an attachment.
    const files = await consoleGet(t, owner, '/console/files');
    expect(files.status).toBe(200);
    expect(files.text).toContain(`${runId}.aba`);
    expect(files.text).toContain(row.sha256);
    expect(files.text).toContain('<a href="/console/files');
    const dl = await fetch(`${t.url}/console/files/${row.id}`, { headers: { cookie: owner.cookie } });
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toBe('text/plain; charset=us-ascii');
    expect(dl.headers.get('content-disposition')).toBe(`attachment; filename="${runId}.aba"`);
    expect(dl.headers.get('x-content-sha256')).toBe(row.sha256);
    expect(Buffer.from(await dl.arrayBuffer()).equals(bytes)).toBe(true);
    // No decision rights: refused; another organisation's person: not found.
    const bk = await consoleSignIn(t, org.slug, bookkeeper.email, bookkeeper.password);
    expect((await consoleGet(t, bk, '/console/files')).status).toBe(403);
    expect((await consoleGet(t, bk, `/console/files/${row.id}`)).status).toBe(403);
    const o = await consoleSignIn(t, other.slug, other.owner.email, other.owner.password);
    expect((await consoleGet(t, o, `/console/files/${row.id}`)).status).toBe(404);
    expect((await consoleGet(t, o, '/console/files')).text).toContain('No payment or lodgement file has been written yet');
  });

  it('books.files pages newest first with a cursor', async () => {
    await paidRun();
    const all = (await t.get(org.keys.reader, 'books.files?limit=200')).body.files as { id: string; createdAt: string }[];
    expect(all.length).toBeGreaterThanOrEqual(2);
    const first = await t.get(org.keys.reader, 'books.files?limit=1');
    expect(first.body.files).toHaveLength(1);
    expect(first.body.files[0].id).toBe(all[0]?.id);
    expect(first.body.nextCursor).toBe(all[0]?.id);
    const second = await t.get(org.keys.reader, `books.files?limit=1&cursor=${first.body.nextCursor as string}`);
    expect(second.body.files[0].id).toBe(all[1]?.id);
    for (let i = 1; i < all.length; i += 1) expect(all[i - 1]!.createdAt >= all[i]!.createdAt).toBe(true);
  });

  it("a lodged BAS is a file too: listed as bas, its bytes the document the ATO channel received, its SHA-256 the receipt's", async () => {
    const agent = org.keys.agent;
    const prepared = await t.post(agent, 'books.taxPrepare', { periodStart: '2026-07-01', periodEnd: '2026-09-30' });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    const basId = prepared.body.result.id as string;
    const held = await t.post(agent, 'books.taxSignLodge', { id: basId });
    const a = held.body.result.approval;
    const req = await t.post(agent, 'approval.request', {
      actionClass: a.actionClass,
      payloadHash: a.payloadHash,
      subject: { kind: 'books.signature', subjectId: a.subject.subjectId },
    });
    const approvalId = req.body.result.approvalId as string;
    await decideApproval(t.db, { orgId: org.orgId, approvalId, user: { id: org.owner.userId, role: 'owner' }, approve: true });
    const lodged = await t.post(agent, 'books.taxSignLodge', { id: basId, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(lodged.status, JSON.stringify(lodged.body)).toBe(200);
    const list = await t.get(org.keys.reader, 'books.files?kind=bas');
    const row = list.body.files.find((f: { source: string }) => f.source === basId);
    expect(row).toMatchObject({ kind: 'bas', filename: `${basId}.json`, contentType: 'application/json; charset=utf-8' });
    expect(list.body.files.every((f: { kind: string }) => f.kind === 'bas')).toBe(true);
    const one = await t.get(org.keys.reader, `books.file?id=${row.id}`);
    const bytes = Buffer.from(one.body.contentBase64 as string, 'base64');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(row.sha256);
    expect(JSON.parse(bytes.toString('utf8'))).toMatchObject({ kind: 'bas', id: basId });
    const dropped = join(lodgementDir, `${basId}.json`);
    const deadline = Date.now() + 10_000;
    while (!existsSync(dropped) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(dropped).equals(bytes)).toBe(true);
    // The BAS's lodgement receipt names the same SHA-256.
    // (confirmed in its own transaction just after the file is written: wait for it).
    let receipt: string | null = null;
    while (receipt === null && Date.now() < deadline) {
      receipt =
        (
          await t.db.reader.get<{ receipt_sha256: string | null }>('SELECT receipt_sha256 FROM bas_returns WHERE org_id = ? AND id = ?', [
            org.orgId,
            basId,
          ])
        )?.receipt_sha256 ?? null;
      if (receipt === null) await new Promise((r) => setTimeout(r, 50));
    }
    expect(receipt).toBe(row.sha256);
  });
});

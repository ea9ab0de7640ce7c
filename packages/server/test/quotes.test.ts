import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import { agentCalls, engines, startTestServer, type TestServer } from './harness.js';
import { freshKey } from './signature-helpers.js';

/**
 * Quotes through HTTP on every engine, on the test's clock: drafted in invoice lines, emailed
 * with a PDF (delivered by the file outbox and read back as .eml), accepted into an invoice
 * draft, declined, expired, refused with the field named, and replayed.
 *
 * Figures (GST-inclusive lines): Kitchen design $3,300.00 GST → 330000 / 11 = 30000;
 * Site visit $555.55 GST → 55555 / 11 = 5050.45 → 5050; Council permit $200.00 GST_FREE → 0.
 * Total 330000 + 55555 + 20000 = 405555; GST once over the GST lines (330000 + 55555) / 11 =
 * 385555 / 11 = 35050.45 → 35050, which the line shares 30000 + 5050 already sum to.
 */
const LINES = [
  { description: 'Kitchen design', amountCents: 330_000 },
  { description: 'Site visit', amountCents: 55_555 },
  { description: 'Council permit', amountCents: 20_000, taxCode: 'GST_FREE' },
];
const EXPECTED_LINES = [
  { description: 'Kitchen design', amountCents: 330_000, taxCode: 'GST', accountCode: '4000', gstCents: 30_000 },
  { description: 'Site visit', amountCents: 55_555, taxCode: 'GST', accountCode: '4000', gstCents: 5_050 },
  { description: 'Council permit', amountCents: 20_000, taxCode: 'GST_FREE', accountCode: '4000', gstCents: 0 },
];

describe.each(engines)('quotes (%s)', (engine) => {
  let t: TestServer;
  // 01:00 UTC is 12:00 the same day in Sydney (the organisations' time zone, daylight saving).
  let now = '2026-03-02T01:00:00.000Z';
  const at = (date: string) => (now = `${date}T01:00:00.000Z`);
  const dir = mkdtempSync(join(tmpdir(), 'fd-quote-outbox-'));
  const { post, ok, lastEvent } = agentCalls(() => t);
  const count = async (sql: string, args: unknown[]) => Number((await t.db.reader.get<{ n: number }>(sql, args as never))?.n);
  const emails = (o: CreatedOrg) =>
    t.db.reader.all<{ id: string }>("SELECT id FROM outbox WHERE org_id = ? AND channel = 'email' ORDER BY created_at, id", [o.orgId]);

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => now, emailOutboxDir: dir, repeatingSweepMs: 0 });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Deliver the outbox row through the file mailer and read back its .eml. */
  async function delivered(id: string): Promise<string> {
    for (let i = 0; i < 100; i += 1) {
      await t.server.outbox.kick();
      try {
        return readFileSync(join(dir, `${id}.eml`), 'latin1');
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`message ${id} was never delivered`);
  }

  it('drafts, emails with a PDF, and accepts into an invoice draft with the same lines, totals and GST', async () => {
    at('2026-03-02');
    const o = await t.org('Harbour Joinery');
    const draft = await ok(o, 'books.quoteDraft', {
      payeeName: 'Bayside Cafe',
      payeeEmail: 'owner@bayside.example',
      description: 'New kitchen',
      lines: LINES,
      reference: 'JOB-42',
      terms: 'Half on acceptance, half on completion.',
    });
    expect(draft).toMatchObject({
      number: 'QU-0001',
      status: 'draft',
      payeeName: 'Bayside Cafe',
      description: 'New kitchen',
      reference: 'JOB-42',
      terms: 'Half on acceptance, half on completion.',
      date: '2026-03-02',
      // 2 March + 30 days = 1 April.
      expiryDate: '2026-04-01',
      expired: false,
      dueDays: 30,
      totalCents: 405_555,
      gstCents: 35_050,
      lines: EXPECTED_LINES,
      sentOn: null,
      decidedOn: null,
      invoiceId: null,
    });
    const drafted = await lastEvent(o);
    expect(drafted).toMatchObject({
      kind: 'books.quote.draft',
      entity_id: draft.id,
      payload: { number: 'QU-0001', totalCents: 405_555, gstCents: 35_050, contactId: draft.contactId, contactCreated: true },
    });
    // A quote is not a transaction: nothing posted.
    expect(await count('SELECT COUNT(*) AS n FROM journals WHERE org_id = ?', [o.orgId])).toBe(0);

    const sent = await ok(o, 'books.quoteSend', { id: draft.id });
    expect(sent).toMatchObject({ status: 'sent', sentOn: '2026-03-02' });
    expect((await lastEvent(o)).payload).toMatchObject({ channel: 'email', recipients: 1, sentOn: '2026-03-02' });
    const rows = await emails(o);
    expect(rows).toHaveLength(1);
    const eml = await delivered(rows[0]?.id ?? '');
    expect(eml).toMatch(/^To: .*owner@bayside\.example/m);
    expect(eml).toContain('Subject: Quote QU-0001: $4,055.55, valid until 2026-04-01');
    const b64 = /Content-Type: application\/pdf[^\r]*\r\n(?:[^\r]+\r\n)*\r\n([A-Za-z0-9+/=\r\n]+)/.exec(eml)?.[1] ?? '';
    const pdf = new Uint8Array(Buffer.from(b64.replace(/\r\n/g, ''), 'base64'));
    expect(Buffer.from(pdf.slice(0, 5)).toString('latin1')).toBe('%PDF-');
    const { text } = await extractText(await getDocumentProxy(pdf), { mergePages: true });
    const words = text.replace(/\s+/g, ' ');
    expect(words).toContain('Quote number: QU-0001');
    expect(words).toContain('Valid until: 1 April 2026');
    expect(words).toContain('$4,055.55');
    expect(words).toContain('Half on acceptance, half on completion.');

    // Sent again: a no-op answering the send, and no second email.
    const again = await ok(o, 'books.quoteSend', { id: draft.id });
    expect(again).toMatchObject({ status: 'sent', noop: true, ledgerId: sent.ledgerId });
    expect(await emails(o)).toHaveLength(1);

    at('2026-03-10');
    const accepted = await ok(o, 'books.quoteDecide', { id: draft.id, decision: 'accepted' });
    expect(accepted).toMatchObject({ status: 'accepted', decidedOn: '2026-03-10', invoiceId: accepted.invoice.id });
    expect(accepted.invoice).toMatchObject({
      status: 'draft',
      number: 'INV-0001',
      quoteId: draft.id,
      contactId: draft.contactId,
      payeeName: 'Bayside Cafe',
      description: 'New kitchen',
      reference: 'JOB-42',
      payeeEmail: 'owner@bayside.example',
      totalCents: 405_555,
      gstCents: 35_050,
      dueDays: 30,
      lines: EXPECTED_LINES,
    });
    // One event for the act: the invoice's draft, naming the quote.
    const event = await lastEvent(o);
    expect(event).toMatchObject({ kind: 'books.invoice.draft', entity_id: accepted.invoice.id, payload: { quoteId: draft.id } });
    expect(accepted.ledgerId).toBe(accepted.invoice.ledgerId);
    const invoice = await ok(o, 'books.invoice', { id: accepted.invoice.id });
    expect(invoice).toMatchObject({ quoteId: draft.id, lines: EXPECTED_LINES });
    expect(await ok(o, 'books.quote', { id: draft.id })).toMatchObject({ status: 'accepted', invoiceId: invoice.id, expired: false });

    // The same decision again is a no-op; the other one is CONFLICT.
    const same = await ok(o, 'books.quoteDecide', { id: draft.id, decision: 'accepted' });
    expect(same).toMatchObject({ status: 'accepted', noop: true, ledgerId: accepted.ledgerId, invoiceId: invoice.id });
    expect(await count('SELECT COUNT(*) AS n FROM invoices WHERE org_id = ?', [o.orgId])).toBe(1);
    const other = await post(o, 'books.quoteDecide', { id: draft.id, decision: 'declined' });
    expect(other.status).toBe(409);
    expect(other.body.error.message).toBe('quote QU-0001 was accepted on 2026-03-10; a decided quote is not decided again');

    // The invoice is a real draft: sending it posts Dr 1100 405555 / Cr 4000 (405555 - 35050 = 370505) / Cr 2100 35050.
    const issued = await ok(o, 'books.invoiceSend', { id: invoice.id });
    expect(issued).toMatchObject({ status: 'sent', outstandingCents: 405_555, quoteId: draft.id });
  });

  it('declines: recorded with its own event, then neither accepted nor sent', async () => {
    at('2026-03-02');
    const o = await t.org('Declined Joinery');
    const q = await ok(o, 'books.quoteDraft', {
      payeeName: 'Tight Budget Pty Ltd',
      lines: [{ description: 'Shelving', amountCents: 11_000 }],
    });
    // description defaults to the first line's; no email anywhere: sent without one.
    expect(q).toMatchObject({ description: 'Shelving', totalCents: 11_000, gstCents: 1_000, payeeEmail: null });
    const sent = await ok(o, 'books.quoteSend', { id: q.id });
    expect(sent.status).toBe('sent');
    expect((await lastEvent(o)).payload).toMatchObject({ channel: null, recipients: 0 });
    expect(await emails(o)).toHaveLength(0);

    // Not before the quote's date.
    const early = await post(o, 'books.quoteDecide', { id: q.id, decision: 'declined', date: '2026-03-01' });
    expect(early.status).toBe(400);
    expect(early.body.error).toMatchObject({ field: 'date' });

    const d = await ok(o, 'books.quoteDecide', { id: q.id, decision: 'declined' });
    expect(d).toMatchObject({ status: 'declined', decidedOn: '2026-03-02', invoiceId: null });
    expect(await lastEvent(o)).toMatchObject({
      kind: 'books.quote.decline',
      entity_id: q.id,
      payload: { number: 'QU-0001', date: '2026-03-02' },
    });
    expect((await ok(o, 'books.quoteDecide', { id: q.id, decision: 'declined' })).noop).toBe(true);
    const accept = await post(o, 'books.quoteDecide', { id: q.id, decision: 'accepted' });
    expect(accept.status).toBe(409);
    const send = await post(o, 'books.quoteSend', { id: q.id });
    expect(send.status).toBe(409);
    expect(send.body.error.message).toBe('quote QU-0001 is declined; only a draft quote can be sent');
    expect(await count('SELECT COUNT(*) AS n FROM invoices WHERE org_id = ?', [o.orgId])).toBe(0);
  });

  it('an expired quote cannot be sent or accepted; an acceptance dated on or before its expiry still stands', async () => {
    at('2026-03-02');
    const o = await t.org('Expiring Joinery');
    const q1 = await ok(o, 'books.quoteDraft', { payeeName: 'Slow Deciders', lines: LINES, expiryDate: '2026-03-05' });
    const q2 = await ok(o, 'books.quoteDraft', { payeeName: 'Slow Deciders', lines: LINES, expiryDate: '2026-03-05' });
    expect(q2).toMatchObject({ number: 'QU-0002', contactId: q1.contactId, expired: false });
    at('2026-03-10');
    expect(await ok(o, 'books.quote', { id: q1.id })).toMatchObject({ status: 'draft', expired: true });
    const send = await post(o, 'books.quoteSend', { id: q1.id });
    expect(send.status).toBe(409);
    expect(send.body.error).toMatchObject({ code: 'CONFLICT', field: 'expiryDate' });
    const late = await post(o, 'books.quoteDecide', { id: q1.id, decision: 'accepted' });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({
      code: 'CONFLICT',
      field: 'date',
      message: 'quote QU-0001 expired on 2026-03-05; it cannot be accepted on 2026-03-10',
    });
    // The customer accepted on the expiry date itself (recorded later): in time.
    const inTime = await ok(o, 'books.quoteDecide', { id: q2.id, decision: 'accepted', date: '2026-03-05' });
    expect(inTime).toMatchObject({ status: 'accepted', decidedOn: '2026-03-05', expired: false });
    expect(inTime.invoice).toMatchObject({ totalCents: 405_555, gstCents: 35_050, quoteId: q2.id });
    // An expired quote may still be declined.
    expect((await ok(o, 'books.quoteDecide', { id: q1.id, decision: 'declined' })).status).toBe('declined');
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    at('2026-03-02');
    const o = await t.org('Strict Joinery');
    const before = await count('SELECT COUNT(*) AS n FROM quotes WHERE org_id = ?', [o.orgId]);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ lines: LINES }, /payeeName: is required \(or give contactId\)/],
      [{ payeeName: 'X' }, /lines: /],
      [{ payeeName: 'X', lines: [] }, /lines: must have at least 1 line/],
      [
        { payeeName: 'X', lines: [{ description: 'Y', amountCents: 100, taxCode: 'GST_ON_EXPENSES' }] },
        /lines\[0\]\.taxCode: must be one of/,
      ],
      [{ payeeName: 'X', lines: [{ description: 'Y', amountCents: 1.5 }] }, /lines\[0\]\.amountCents/],
      [{ payeeName: 'X', lines: LINES, date: '2026-03-10', expiryDate: '2026-03-09' }, /expiryDate: must not be before date 2026-03-10/],
      [{ payeeName: 'X', lines: LINES, expiryDate: '2026-03-01' }, /expiryDate: must not be before date 2026-03-02/],
      [
        { payeeName: 'X', lines: [{ description: 'Y', amountCents: 100, accountCode: '6000' }] },
        /lines\[0\]\.accountCode: account 6000 is an expense account/,
      ],
      [{ payeeName: 'X', lines: LINES, dueDays: -1 }, /dueDays: /],
      [{ payeeName: 'X', lines: LINES, colour: 'red' }, /colour: unknown field/],
    ];
    for (const [params, message] of cases) {
      const r = await post(o, 'books.quoteDraft', params);
      expect(r.status, JSON.stringify(params)).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
    const q = await ok(o, 'books.quoteDraft', { payeeName: 'X', lines: LINES });
    const decision = await post(o, 'books.quoteDecide', { id: q.id, decision: 'maybe' });
    expect(decision.status).toBe(400);
    expect(decision.body.error.message).toMatch(/decision: must be one of accepted, declined/);
    const future = await post(o, 'books.quoteDecide', { id: q.id, decision: 'accepted', date: '2026-03-03' });
    expect(future.status).toBe(400);
    expect(future.body.error).toMatchObject({ field: 'date' });
    const missing = await post(o, 'books.quoteSend', { id: 'quo_missing' });
    expect(missing.status).toBe(404);
    expect(await count('SELECT COUNT(*) AS n FROM quotes WHERE org_id = ?', [o.orgId])).toBe(before + 1);
    expect((await ok(o, 'books.quote', { id: q.id })).status).toBe('draft');
    // Another organisation's quote does not exist here.
    const stranger = await t.org('Stranger Joinery');
    expect((await post(stranger, 'books.quote', { id: q.id })).status).toBe(404);
  });

  it('replays a key: the same quote, one row, one event; an acceptance replayed drafts one invoice', async () => {
    at('2026-03-02');
    const o = await t.org('Replay Joinery');
    const key = { 'x-idempotency-key': freshKey() };
    const first = await ok(o, 'books.quoteDraft', { payeeName: 'Once Only', lines: LINES }, key);
    const again = await post(o, 'books.quoteDraft', { payeeName: 'Once Only', lines: LINES }, key);
    expect(again.body).toMatchObject({ code: 'IDEMPOTENT_REPLAY', result: first });
    expect(await count('SELECT COUNT(*) AS n FROM quotes WHERE org_id = ?', [o.orgId])).toBe(1);
    const accept = { 'x-idempotency-key': freshKey() };
    const a = await ok(o, 'books.quoteDecide', { id: first.id, decision: 'accepted' }, accept);
    const b = await post(o, 'books.quoteDecide', { id: first.id, decision: 'accepted' }, accept);
    expect(b.body).toMatchObject({ code: 'IDEMPOTENT_REPLAY', result: a });
    expect(await count('SELECT COUNT(*) AS n FROM invoices WHERE org_id = ? AND quote_id = ?', [o.orgId, first.id])).toBe(1);
  });

  it('lists quotes oldest first, filtered by status and contact, paged', async () => {
    at('2026-03-02');
    const o = await t.org('Listing Joinery');
    const a = await ok(o, 'books.quoteDraft', { payeeName: 'Alpha', lines: LINES });
    const b = await ok(o, 'books.quoteDraft', { payeeName: 'Beta', lines: LINES });
    const c = await ok(o, 'books.quoteDraft', { payeeName: 'Alpha', lines: LINES });
    await ok(o, 'books.quoteSend', { id: b.id });
    const all = await ok(o, 'books.quotes', {});
    expect(all.quotes.map((q: { id: string }) => q.id)).toEqual([a.id, b.id, c.id]);
    expect((await ok(o, 'books.quotes', { status: 'sent' })).quotes.map((q: { id: string }) => q.id)).toEqual([b.id]);
    expect((await ok(o, 'books.quotes', { contactId: a.contactId })).quotes.map((q: { id: string }) => q.id)).toEqual([a.id, c.id]);
    const page1 = await ok(o, 'books.quotes', { limit: 2 });
    expect(page1.nextCursor).toBe(b.id);
    const page2 = await ok(o, 'books.quotes', { limit: 2, cursor: page1.nextCursor });
    expect(page2).toMatchObject({ quotes: [{ id: c.id }], nextCursor: null });
    const badCursor = await post(o, 'books.quotes', { cursor: 'quo_nope' });
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.message).toMatch(/^cursor: /);
  });
});

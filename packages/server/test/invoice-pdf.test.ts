import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderEml } from '../src/adapters/email.js';
import { renderDocumentPdf, type InvoicePdfInput } from '../src/adapters/invoice-pdf.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { consoleForm, consoleJson, consoleSignIn, orgEvents, type Signed } from './console-helpers.js';
import { engines, startTestServer, type TestServer } from './harness.js';

/**
 * Through HTTP: the tax invoice PDF attached to the invoiceSend email (read back
 * from the file outbox's .eml, its MIME parsed, the PDF decoded and its text extracted), the
 * adjustment note of a credit note, the payment account on the profile, and chase step 1
 * waiting for the due date unless `early: true`.
 */
const ABN = '51824753556';

interface Part {
  headers: Record<string, string>;
  body: string;
}

/** A minimal RFC 5322 / 2046 reader: headers (unfolded, lower-cased names) and body. */
function splitMessage(text: string): Part {
  const at = text.indexOf('\r\n\r\n');
  const head = text.slice(0, at).replace(/\r\n[ \t]+/g, ' ');
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return { headers, body: text.slice(at + 4) };
}

function parseEml(text: string): { headers: Record<string, string>; parts: Part[] } {
  const top = splitMessage(text);
  const boundary = /boundary="([^"]+)"/.exec(top.headers['content-type'] ?? '')?.[1];
  if (!boundary) return { headers: top.headers, parts: [top] };
  const end = top.body.indexOf(`\r\n--${boundary}--`);
  expect(end).toBeGreaterThan(0);
  const chunks = top.body.slice(0, end).split(`--${boundary}\r\n`).slice(1);
  return { headers: top.headers, parts: chunks.map((c) => splitMessage(c.replace(/\r\n$/, ''))) };
}

async function pdfWords(bytes: Uint8Array): Promise<string> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { text } = await extractText(pdf, { mergePages: true });
  return text.replace(/\s+/g, ' ');
}

describe.each(engines)('tax invoice PDFs, adjustment notes and chase step 1 (%s)', (engine) => {
  let t: TestServer;
  let clock = '2026-09-10T01:00:00.000Z';
  const dir = mkdtempSync(join(tmpdir(), 'fd-pdf-outbox-'));

  beforeAll(async () => {
    t = await startTestServer(engine, { now: () => clock, emailOutboxDir: dir });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function ok(o: CreatedOrg, method: string, body: Record<string, unknown>) {
    const r = await t.post(o.keys.agent, method, body);
    expect(r.status, `${method} ${JSON.stringify(r.body)}`).toBe(200);
    return r.body.result;
  }

  const emailRows = (o: CreatedOrg) =>
    t.db.reader.all<{ id: string; body: string }>(
      "SELECT id, body FROM outbox WHERE org_id = ? AND channel = 'email' ORDER BY created_at, id",
      [o.orgId],
    );

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

  /** The last email of the organisation: its MIME and the PDF attached, as bytes and text. */
  async function lastMail(o: CreatedOrg) {
    const row = (await emailRows(o)).at(-1);
    expect(row).toBeDefined();
    const eml = await delivered(row?.id ?? '');
    const mail = parseEml(eml);
    const pdfPart = mail.parts.find((p) => (p.headers['content-type'] ?? '').startsWith('application/pdf'));
    expect(pdfPart, 'a PDF part').toBeDefined();
    const b64 = pdfPart?.body ?? '';
    // RFC 2045 §6.8: base64 lines of at most 76 characters.
    expect(b64.split('\r\n').every((l) => l.length <= 76 && /^[A-Za-z0-9+/=]*$/.test(l))).toBe(true);
    const bytes = new Uint8Array(Buffer.from(b64.replace(/\r\n/g, ''), 'base64'));
    expect(Buffer.from(bytes.slice(0, 5)).toString('latin1')).toBe('%PDF-');
    return { eml, mail, pdfPart: pdfPart as Part, bytes, text: await pdfWords(bytes), row: row as { id: string; body: string } };
  }

  async function owner(o: CreatedOrg): Promise<Signed> {
    return consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
  }

  const FORM = {
    name: 'Harbour Cafe',
    legalName: 'Harbour Hospitality Pty Ltd',
    abn: '51 824 753 556',
    gstRegistered: 'yes',
    gstBasis: 'accrual',
    basFrequency: 'quarterly',
    financialYearStartMonth: '7',
  };

  it('the payment account is set in the console form, read by org/profile, refused half-given or malformed', async () => {
    const o = await t.org('Harbour Cafe');
    const s = await owner(o);
    const half = await consoleForm(t, s, '/console/org', {
      _csrf: s.csrf,
      ...FORM,
      paymentAccountName: 'Harbour Cafe',
      paymentBsb: '062-000',
      paymentAccountNumber: '',
    });
    expect(half.status).toBe(400);
    expect(half.text).toMatch(/id="paymentAccountNumber-error">is needed with paymentBsb/);
    const bad = await consoleForm(t, s, '/console/org', {
      _csrf: s.csrf,
      ...FORM,
      paymentAccountName: 'Harbour Cafe',
      paymentBsb: '062000',
      paymentAccountNumber: '0000',
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="paymentBsb-error">must be a BSB of the form NNN-NNN</);
    expect(bad.text).toMatch(/id="paymentAccountNumber-error">must not be all zeros</);
    expect((await t.get(o.keys.observer, 'org/profile')).body).toMatchObject({ paymentBsb: null, paymentAccountNumber: null, abn: null });
    const json = await consoleJson(t, s, 'PUT', '/console/api/org/profile', { paymentAccountNumber: '12345678' });
    expect(json.status).toBe(400);
    expect(json.body.error.message).toBe('paymentBsb: is needed with paymentAccountNumber (customers pay into both)');
    const good = await consoleForm(t, s, '/console/org', {
      _csrf: s.csrf,
      ...FORM,
      paymentAccountName: 'Harbour Cafe',
      paymentBsb: '062-000',
      paymentAccountNumber: '12345678',
    });
    expect(good.status).toBe(303);
    expect((await t.get(o.keys.observer, 'org/profile')).body).toMatchObject({
      abn: ABN,
      paymentAccountName: 'Harbour Cafe',
      paymentBsb: '062-000',
      paymentAccountNumber: '12345678',
    });
    const last = (await orgEvents(t, o.orgId)).filter((e) => e.kind === 'org.profile.update').at(-1);
    expect(last?.payload.fields).toEqual(expect.arrayContaining(['paymentAccountName', 'paymentBsb', 'paymentAccountNumber']));
    // The ledger shows the change of account, the number masked to its last 3 digits.
    expect(last?.payload.after).toMatchObject({ paymentBsb: '062-000', paymentAccountNumber: '*****678' });
    expect(last?.raw).not.toContain('12345678');
    // Both cleared together is allowed.
    expect((await consoleJson(t, s, 'PUT', '/console/api/org/profile', { paymentBsb: null, paymentAccountNumber: null })).status).toBe(200);
  });

  it('invoiceSend emails a valid tax invoice PDF: supplier, ABN, number, dates, customer, each line with GST, totals, how to pay', async () => {
    clock = '2026-09-10T01:00:00.000Z';
    const o = await t.org('Harbour Cafe');
    const s = await owner(o);
    const saved = await consoleForm(t, s, '/console/org', {
      _csrf: s.csrf,
      ...FORM,
      paymentAccountName: 'Harbour Cafe',
      paymentBsb: '062-000',
      paymentAccountNumber: '12345678',
    });
    expect(saved.status).toBe(303);
    const draft = await ok(o, 'books.invoiceDraft', {
      payeeName: 'Seaside Events Pty Ltd',
      payeeEmail: 'accounts@seaside.example',
      description: 'September catering',
      totalCents: 166_001,
      dueDays: 14,
      lines: [
        { description: 'Catering for 40 guests', amountCents: 110_000, taxCode: 'GST' },
        { description: 'Fresh fruit platters', amountCents: 56_001, taxCode: 'GST_FREE' },
      ],
    });
    const sent = await ok(o, 'books.invoiceSend', { id: draft.id });
    expect(sent.dueOn).toBe('2026-09-24');
    const numbered = await t.db.reader.get<{ number: string | null }>('SELECT number FROM invoices WHERE org_id = ? AND id = ?', [
      o.orgId,
      draft.id,
    ]);
    const number = numbered?.number ?? draft.id;
    const { mail, pdfPart, text, bytes, row, eml } = await lastMail(o);
    expect(mail.headers['to']).toBe('accounts@seaside.example');
    expect(mail.headers['content-type']).toMatch(/^multipart\/mixed; boundary="=_fd_[0-9a-f]{24}"$/);
    const boundary = /boundary="([^"]+)"/.exec(mail.headers['content-type'] ?? '')?.[1] ?? '';
    // The boundary appears only as delimiters: the opening, one per part, and the close.
    expect(eml.split(boundary).length - 1).toBe(1 + 2 + 1);
    expect(mail.parts[0]?.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(mail.parts[0]?.body).toContain('The tax invoice is attached');
    expect(pdfPart.headers['content-disposition']).toMatch(/^attachment; filename="Tax invoice .+\.pdf"$/);
    expect(text).toContain('Tax invoice');
    expect(text).toContain('Harbour Hospitality Pty Ltd trading as Harbour Cafe');
    expect(text).toContain('ABN 51 824 753 556');
    expect(text).toContain(`Invoice number: ${number}`);
    expect(text).toContain('Date of issue: 10 September 2026');
    expect(text).toContain('Due date: 24 September 2026');
    expect(text).toContain('Bill to: Seaside Events Pty Ltd');
    // Each line: description, quantity, GST (1/11 of the taxable line; none on the GST-free one), amount.
    expect(text).toMatch(/Catering for 40 guests 1 \$100\.00 \$1,100\.00/);
    expect(text).toMatch(/Fresh fruit platters 1 \$0\.00 \(GST-free\) \$560\.01/);
    expect(text).toMatch(/Total GST \$100\.00/);
    expect(text).toMatch(/Total incl\. GST \$1,660\.01/);
    expect(text).toContain('How to pay');
    expect(text).toContain('Account name: Harbour Cafe');
    expect(text).toContain('BSB: 062-000');
    expect(text).toContain('Account number: 12345678');
    expect(text).toContain(`Payment reference: ${number}`);
    // The outbox row keeps the PDF (a retry rebuilds the same message); the event never does.
    const stored = JSON.parse(row.body) as { attachments: { filename: string; contentType: string; base64: string }[] };
    expect(Buffer.from(stored.attachments[0]?.base64 ?? '', 'base64').equals(Buffer.from(bytes))).toBe(true);
    const sendEvent = (await orgEvents(t, o.orgId)).find((e) => e.kind === 'books.invoice.send');
    expect(sendEvent?.payload).toMatchObject({ channel: 'email', recipients: 1 });
    expect(sendEvent?.raw).not.toContain('JVBER'); // base64 of "%PDF"
    expect(sendEvent?.raw.length).toBeLessThan(2_000);
  });

  it('the same document renders to the same bytes (creation date is the issue date)', async () => {
    const input: InvoicePdfInput = {
      kind: 'invoice',
      gstRegistered: true,
      taxable: true,
      supplier: { name: 'Harbour Cafe', legalName: null, abn: ABN },
      customerName: 'Bob',
      number: 'INV-0007',
      issueDate: '2026-09-10',
      dueDate: '2026-09-24',
      description: 'Catering',
      lines: [{ description: 'Catering', amountCents: 110_000, gstCents: 10_000, taxLabel: 'GST' }],
      totalCents: 110_000,
      gstCents: 10_000,
      payment: null,
    };
    const a = await renderDocumentPdf(input);
    await new Promise((r) => setTimeout(r, 20));
    const b = await renderDocumentPdf(input);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    const other = await renderDocumentPdf({ ...input, number: 'INV-0008' });
    expect(Buffer.from(a).equals(Buffer.from(other))).toBe(false);
  });

  it('a business not registered for GST sends an "Invoice" with no GST shown; no bank details, no account lines', async () => {
    clock = '2026-09-10T01:00:00.000Z';
    const o = await t.org('Small Sole Trader');
    const s = await owner(o);
    expect((await consoleJson(t, s, 'PUT', '/console/api/org/profile', { gstRegistered: false })).status).toBe(200);
    const d = await ok(o, 'books.invoiceDraft', {
      payeeName: 'Bob',
      payeeEmail: 'bob@example.com',
      description: 'Lawn mowing',
      totalCents: 22_000,
      dueDays: 7,
    });
    await ok(o, 'books.invoiceSend', { id: d.id });
    const { text, mail, pdfPart } = await lastMail(o);
    expect(text).toMatch(/^Invoice /);
    expect(text).not.toContain('Tax invoice');
    expect(text).not.toMatch(/Total GST|incl\. GST/);
    expect(text).toContain('Total $220.00');
    expect(text).toContain('No GST is charged');
    expect(text).toContain('Small Sole Trader');
    expect(text).toContain('contact us for payment details');
    expect(mail.headers['subject']).toMatch(/^Invoice /);
    expect(mail.parts[0]?.body).not.toContain('includes GST');
    expect(pdfPart.headers['content-disposition']).toMatch(/filename="Invoice /);
  });

  it('a credit note emails an adjustment note PDF: its number, the original invoice, amount and GST; without an address, none', async () => {
    clock = '2026-09-10T01:00:00.000Z';
    const o = await t.org('Harbour Cafe');
    const s = await owner(o);
    expect((await consoleJson(t, s, 'PUT', '/console/api/org/profile', { abn: ABN })).status).toBe(200);
    const d = await ok(o, 'books.invoiceDraft', {
      payeeName: 'Seaside Events',
      payeeEmail: 'accounts@seaside.example',
      description: 'Catering',
      totalCents: 110_000,
      dueDays: 14,
    });
    await ok(o, 'books.invoiceSend', { id: d.id });
    clock = '2026-09-12T01:00:00.000Z';
    const cn = await ok(o, 'books.invoiceCreditNote', { id: d.id, amountCents: 22_000, reason: 'Two guests fewer' });
    const number =
      (await t.db.reader.get<{ number: string | null }>('SELECT number FROM invoices WHERE org_id = ? AND id = ?', [o.orgId, d.id]))
        ?.number ?? d.id;
    const { text, mail } = await lastMail(o);
    expect(mail.headers['to']).toBe('accounts@seaside.example');
    expect(mail.headers['subject']).toContain(`Adjustment note ${cn.creditNoteId}`);
    expect(text).toContain('Adjustment note');
    expect(text).toContain('Harbour Cafe');
    expect(text).toContain('ABN 51 824 753 556');
    expect(text).toContain(`Adjustment note number: ${cn.creditNoteId}`);
    expect(text).toContain('Date of issue: 12 September 2026');
    expect(text).toContain(`Adjusts invoice: ${number} issued 10 September 2026`);
    expect(text).toContain('Reason: Two guests fewer');
    expect(text).toMatch(/GST adjustment -\$20\.00/);
    expect(text).toMatch(/Total adjustment incl\. GST -\$220\.00/);
    expect(text).toMatch(/Still owing on invoice .+ \$880\.00/);
    const ev = (await orgEvents(t, o.orgId)).filter((e) => e.kind === 'books.invoice.credit').at(-1);
    expect(ev?.payload).toMatchObject({ creditNoteId: cn.creditNoteId, channel: 'email', recipients: 1 });
    expect(ev?.raw).not.toContain('JVBER');
    // No payee email: the note is posted, nothing is emailed, the event says so.
    const quiet = await ok(o, 'books.invoiceDraft', { payeeName: 'Walk-in', description: 'Coffee', totalCents: 1_100, dueDays: 0 });
    await ok(o, 'books.invoiceSend', { id: quiet.id });
    const before = (await emailRows(o)).length;
    await ok(o, 'books.invoiceCreditNote', { id: quiet.id, amountCents: 1_100, reason: 'Spilt' });
    expect((await emailRows(o)).length).toBe(before);
    expect((await orgEvents(t, o.orgId)).filter((e) => e.kind === 'books.invoice.credit').at(-1)?.payload).toMatchObject({
      channel: null,
      recipients: 0,
    });
  });

  describe('chase step 1 waits for the due date unless early: true', () => {
    async function sentOn(o: CreatedOrg, day: string) {
      clock = `${day}T01:00:00.000Z`;
      const d = await ok(o, 'books.invoiceDraft', {
        payeeName: 'Seaside Events',
        payeeEmail: 'a@seaside.example',
        description: 'Catering',
        totalCents: 110_000,
        dueDays: 14,
      });
      return ok(o, 'books.invoiceSend', { id: d.id });
    }

    it('before the due date: BAD_REQUEST naming early with the due date, and nothing changes', async () => {
      const o = await t.org();
      const inv = await sentOn(o, '2026-09-10');
      clock = '2026-09-23T12:00:00.000Z'; // 23 Sep in Sydney: the day before it falls due
      const head = async () => (await t.get(o.keys.observer, 'snapshot')).body.head.seq as number;
      const seq = await head();
      const mails = (await emailRows(o)).length;
      for (const params of [
        { id: inv.id, step: 1 },
        { id: inv.id, step: 1, early: false },
      ]) {
        const r = await t.post(o.keys.agent, 'books.invoiceChaseStep', params);
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('BAD_REQUEST');
        expect(r.body.error.message).toBe(
          `early: invoice ${inv.id} is not due until 2026-09-24 (today is 2026-09-23); pass early: true to send the first reminder now`,
        );
      }
      expect((await t.post(o.keys.agent, 'books.invoiceChaseStep', { id: inv.id, step: 1, early: 'yes' })).body.error.message).toBe(
        'early: must be true or false',
      );
      expect(await head()).toBe(seq);
      expect((await emailRows(o)).length).toBe(mails);
      const row = await t.db.reader.get<{ chase_step: number }>('SELECT chase_step FROM invoices WHERE org_id = ? AND id = ?', [
        o.orgId,
        inv.id,
      ]);
      expect(Number(row?.chase_step)).toBe(0);
    });

    it('early: true sends the first reminder before the due date, with the invoice PDF', async () => {
      const o = await t.org();
      const inv = await sentOn(o, '2026-09-10');
      clock = '2026-09-11T01:00:00.000Z';
      expect(await ok(o, 'books.invoiceChaseStep', { id: inv.id, step: 1, early: true })).toMatchObject({ id: inv.id, step: 1 });
      const { mail, text } = await lastMail(o);
      expect(mail.headers['subject']).toBe(`Friendly reminder: invoice ${inv.number} for $1,100.00`);
      expect(text).toContain('Tax invoice');
      expect(text).toContain('Due date: 24 September 2026');
    });

    it('on the due date and after it, step 1 runs without early', async () => {
      const o = await t.org();
      const onDue = await sentOn(o, '2026-09-10');
      const after = await sentOn(o, '2026-09-10');
      clock = '2026-09-24T01:00:00.000Z';
      expect(await ok(o, 'books.invoiceChaseStep', { id: onDue.id, step: 1 })).toMatchObject({ id: onDue.id, step: 1 });
      clock = '2026-10-30T01:00:00.000Z';
      expect(await ok(o, 'books.invoiceChaseStep', { id: after.id, step: 1 })).toMatchObject({ id: after.id, step: 1 });
      // Step 2 is not held back by the due date (it needs step 1 and a human instead).
      expect((await t.post(o.keys.agent, 'books.invoiceChaseStep', { id: after.id, step: 2 })).body.result.status).toBe(
        'approval_required',
      );
    });
  });
});

describe('the .eml of a message with attachments (RFC 2045/2046)', () => {
  it('plain messages stay text/plain; attachments make multipart/mixed with a boundary not found in the content', () => {
    const plain = renderEml({ to: 'a@b.example', subject: 'Hi', text: 'Hello', messageId: 'msg_1' }, 'fd@x.example', new Date(0));
    expect(plain).toContain('Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nHello\r\n');
    const content = new Uint8Array(5000).map((_v, i) => i % 256);
    const eml = renderEml(
      {
        to: 'a@b.example',
        subject: 'File',
        text: 'See attached.\n--=_fd_ is not a boundary',
        messageId: 'msg_2',
        attachments: [{ filename: 'a/b"c.pdf', contentType: 'application/pdf', content }],
      },
      'fd@x.example',
      new Date(0),
    );
    const m = parseEml(eml);
    expect(m.parts).toHaveLength(2);
    expect(m.parts[1]?.headers['content-disposition']).toBe('attachment; filename="a_b_c.pdf"');
    const lines = (m.parts[1]?.body ?? '').split('\r\n');
    expect(lines.slice(0, -1).every((l) => l.length === 76)).toBe(true);
    expect(Buffer.from(lines.join(''), 'base64').equals(Buffer.from(content))).toBe(true);
    expect(m.parts[0]?.body).toBe('See attached.\r\n--=_fd_ is not a boundary');
  });
});

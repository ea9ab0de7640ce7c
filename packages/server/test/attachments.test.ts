/**
 * Files kept with invoices, bills and journals (domain/attachments): given when the document is
 * created (bound into its event) or added later (an event each; the same bytes again a no-op),
 * listed by the document reads, served byte for byte by books.attachment, refused with the field
 * named, and carried into the audit pack, whose offline verifier checks each against the SHA-256
 * its event recorded. Every SHA-256 here is computed in the test from the bytes sent.
 */
import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAuditPack } from '../src/ops/audit-pack.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { today } from './payables-helpers.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const file = (text: string, filename: string, mimeType = 'application/pdf') => {
  const bytes = Buffer.from(text);
  return { bytes, sha256: sha256(bytes), upload: { contentBase64: bytes.toString('base64'), filename, mimeType } };
};

/** The supplier's tax invoice behind a bill (a PDF's first bytes are enough to be one here). */
const SUPPLIER_PDF = file('%PDF-1.4\nNorthside Hardware tax invoice NH-1042: fixings $785.00 incl GST $71.36\n%%EOF\n', 'NH-1042.pdf');
const QUOTE_PDF = file('%PDF-1.4\nSigned quote Q-77: joinery for Baker St Dental, $1,100.00 incl GST\n%%EOF\n', 'quote-Q-77.pdf');
const WORKINGS = file('date,payee,amount\n2026-03-01,Harbour Realty,1200.00\n', 'owner-payments.csv', 'text/csv');
const LEASE_PDF = file('%PDF-1.4\nLease: Shop 3, 12 Harbour St, $1,200.00 a month\n%%EOF\n', 'lease.pdf');

describe.each(engines)('attachments (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  const post = (method: string, params: unknown, o: CreatedOrg = org) => t.post(o.keys.agent, method, params);
  const ok = (r: { status: number; body: any }) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.result;
  };
  const headSeq = async (o: CreatedOrg = org) => (await t.get(o.keys.observer, 'snapshot')).body.head.seq as number;
  const lastEvent = async (o: CreatedOrg = org) => {
    const seq = await headSeq(o);
    return (await t.get(o.keys.observer, `events?cursor=${seq - 1}&limit=1`)).body.events[0];
  };
  const download = async (kind: string, id: string, hash: string, o: CreatedOrg = org) =>
    ok(await t.post(o.keys.reader, 'books.attachment', { kind, id, sha256: hash }));

  it("a bill captured with the supplier's PDF binds its SHA-256, name, type and size into the capture event; the download is byte-equal", async () => {
    const o = await t.org();
    const bill = ok(
      await post(
        'books.billCapture',
        {
          payeeName: 'Northside Hardware',
          description: 'Fixings',
          totalCents: 78_500,
          dueDays: 30,
          attachments: [SUPPLIER_PDF.upload],
        },
        o,
      ),
    );
    const kept = {
      sha256: SUPPLIER_PDF.sha256,
      filename: 'NH-1042.pdf',
      mimeType: 'application/pdf',
      sizeBytes: SUPPLIER_PDF.bytes.length,
    };
    expect(bill.attachments).toEqual([{ ...kept, createdAt: expect.any(String), ledgerId: bill.ledgerId }]);
    // The capture's one event binds the file (never its bytes); nothing else was appended.
    const event = await lastEvent(o);
    expect(event).toMatchObject({ kind: 'books.bill.capture', entity_id: bill.id, payload: { attachments: [kept] } });
    expect(JSON.stringify(event)).not.toContain(SUPPLIER_PDF.upload.contentBase64.slice(0, 24));
    // books.bills lists it; books.attachment serves exactly the bytes sent.
    const listed = ok(await t.post(o.keys.reader, 'books.bills', {})).bills;
    expect(listed.find((b: any) => b.id === bill.id).attachments).toEqual(bill.attachments);
    const got = await download('bill', bill.id, SUPPLIER_PDF.sha256, o);
    expect(got).toMatchObject({ kind: 'bill', id: bill.id, ...kept, ledgerId: bill.ledgerId });
    const bytes = Buffer.from(got.contentBase64, 'base64');
    expect(bytes.equals(SUPPLIER_PDF.bytes)).toBe(true);
    expect(sha256(bytes)).toBe(SUPPLIER_PDF.sha256);
    // A bill without files lists none (the field is absent).
    const plain = ok(
      await post('books.billCapture', { payeeName: 'Northside Hardware', description: 'More', totalCents: 1_100, dueDays: 30 }, o),
    );
    expect(plain.attachments).toBeUndefined();
  });

  it('added later to an invoice and a journal: one event each; the same bytes again are a no-op; the bytes are stored once', async () => {
    const o = await t.org();
    const inv = ok(
      await post('books.invoiceDraft', { payeeName: 'Baker St Dental', description: 'Joinery', totalCents: 110_000, dueDays: 14 }, o),
    );
    expect(inv.attachments).toBeUndefined();
    const seq = await headSeq(o);
    const added = ok(await post('books.attachmentAdd', { kind: 'invoice', id: inv.id, attachment: QUOTE_PDF.upload }, o));
    const quote = { sha256: QUOTE_PDF.sha256, filename: 'quote-Q-77.pdf', mimeType: 'application/pdf', sizeBytes: QUOTE_PDF.bytes.length };
    expect(added).toMatchObject({ kind: 'invoice', id: inv.id, ...quote });
    expect(added.noop).toBeUndefined();
    expect(added.attachments).toEqual([{ ...quote, createdAt: expect.any(String), ledgerId: added.ledgerId }]);
    expect(await headSeq(o)).toBe(seq + 1);
    expect(await lastEvent(o)).toMatchObject({
      kind: 'books.attachment.add',
      entity_id: inv.id,
      payload: { documentKind: 'invoice', documentId: inv.id, ...quote },
    });
    // The same bytes under another name: a no-op answering the file as first kept.
    const again = ok(
      await post('books.attachmentAdd', { kind: 'invoice', id: inv.id, attachment: { ...QUOTE_PDF.upload, filename: 'copy.pdf' } }, o),
    );
    expect(again).toMatchObject({ noop: true, ledgerId: added.ledgerId, filename: 'quote-Q-77.pdf' });
    expect(again.attachments).toHaveLength(1);
    expect(await headSeq(o)).toBe(seq + 1);
    // The supplier's PDF on the same invoice too: a second file, listed in the order added.
    const second = ok(await post('books.attachmentAdd', { kind: 'invoice', id: inv.id, attachment: SUPPLIER_PDF.upload }, o));
    expect(second.attachments.map((a: any) => a.sha256)).toEqual([QUOTE_PDF.sha256, SUPPLIER_PDF.sha256]);
    const read = ok(await t.post(o.keys.reader, 'books.invoice', { id: inv.id }));
    expect(read.attachments).toEqual(second.attachments);
    expect(ok(await t.post(o.keys.reader, 'books.invoices', {})).invoices[0].attachments).toEqual(second.attachments);

    // A journal posted with its workings (rent the owner paid personally), then given the lease.
    const posted = ok(
      await post(
        'books.journalPost',
        {
          date: today(),
          memo: 'Rent paid by the owner personally',
          lines: [
            { accountCode: '6500', debitCents: 120_000 },
            { accountCode: '3000', creditCents: 120_000 },
          ],
          attachments: [WORKINGS.upload],
        },
        o,
      ),
    );
    const workings = { sha256: WORKINGS.sha256, filename: 'owner-payments.csv', mimeType: 'text/csv', sizeBytes: WORKINGS.bytes.length };
    expect(posted.attachments).toEqual([{ ...workings, createdAt: expect.any(String), ledgerId: posted.ledgerId }]);
    expect(await lastEvent(o)).toMatchObject({
      kind: 'books.journal.post',
      payload: { journalId: posted.journalId, attachments: [workings] },
    });
    const onJournal = ok(await post('books.attachmentAdd', { kind: 'journal', id: posted.journalId, attachment: LEASE_PDF.upload }, o));
    expect(onJournal.attachments.map((a: any) => a.filename)).toEqual(['owner-payments.csv', 'lease.pdf']);
    const journals = ok(await t.post(o.keys.reader, 'books.journals', { sourceId: posted.journalId })).journals;
    expect(journals[0].attachments).toEqual(onJournal.attachments);
    const csv = await download('journal', posted.journalId, WORKINGS.sha256, o);
    expect(Buffer.from(csv.contentBase64, 'base64').equals(WORKINGS.bytes)).toBe(true);

    // The supplier's PDF is kept by the invoice and, below, a bill: its bytes once.
    ok(
      await post(
        'books.billCapture',
        { payeeName: 'Northside Hardware', description: 'Fixings', totalCents: 78_500, dueDays: 30, attachments: [SUPPLIER_PDF.upload] },
        o,
      ),
    );
    const stored = await t.db.reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM attachment_contents WHERE org_id = ? AND sha256 = ?', [
      o.orgId,
      SUPPLIER_PDF.sha256,
    ]);
    expect(Number(stored?.n)).toBe(1);
  });

  it('refusals name the field and change nothing: too big, wrong type, bad base64, unknown document, too many', async () => {
    const o = await t.org();
    const inv = ok(
      await post('books.invoiceDraft', { payeeName: 'Coastal Cafe', description: 'Fit-out', totalCents: 55_000, dueDays: 14 }, o),
    );
    const seq = await headSeq(o);
    const big = Buffer.alloc(700 * 1024 + 1).toString('base64');
    const add = (attachment: Record<string, unknown>, kind = 'invoice', id = inv.id) =>
      post('books.attachmentAdd', { kind, id, attachment: { ...QUOTE_PDF.upload, ...attachment } }, o);
    const cases: [Promise<{ status: number; body: any }>, number, string][] = [
      [add({ contentBase64: big }), 400, 'attachment.contentBase64: decodes to 716801 bytes; at most 716800'],
      [add({ mimeType: 'PDF' }), 400, 'attachment.mimeType: must be a MIME type such as image/jpeg or application/pdf'],
      [add({ contentBase64: 'not base64!' }), 400, 'attachment.contentBase64: must be base64 (A–Z a–z 0–9 + /, padded with =)'],
      [add({ contentBase64: 'QR==' }), 400, 'attachment.contentBase64: must be canonical base64 (its padding bits must be 0)'],
      [add({ filename: '../etc/passwd' }), 400, 'attachment.filename: must be a file name without / \\ or control characters'],
      [add({}, 'bill', 'bill_nope'), 404, 'bill bill_nope not found'],
      [add({}, 'journal', 'jnl_nope'), 404, 'journal jnl_nope not found'],
      [add({}, 'claim'), 400, 'kind: must be one of invoice, bill, journal'],
      [
        post(
          'books.billCapture',
          {
            payeeName: 'X',
            description: 'x',
            totalCents: 100,
            dueDays: 7,
            attachments: [QUOTE_PDF.upload, { ...QUOTE_PDF.upload, filename: 'b.pdf' }],
          },
          o,
        ),
        400,
        `attachments[1]: the same file as attachments[0] (sha256 ${QUOTE_PDF.sha256})`,
      ],
      [
        post(
          'books.invoiceDraft',
          {
            payeeName: 'X',
            description: 'x',
            totalCents: 100,
            dueDays: 7,
            attachments: [{ ...QUOTE_PDF.upload, mimeType: 'application/PDF' }],
          },
          o,
        ),
        400,
        'attachments[0].mimeType: must be a MIME type such as image/jpeg or application/pdf',
      ],
      [
        post(
          'books.journalPost',
          {
            date: today(),
            memo: 'x',
            lines: [
              { accountCode: '6500', debitCents: 1 },
              { accountCode: '3000', creditCents: 1 },
            ],
            attachments: [{ ...QUOTE_PDF.upload, contentBase64: big }],
          },
          o,
        ),
        400,
        'attachments[0].contentBase64: decodes to 716801 bytes; at most 716800',
      ],
    ];
    for (const [call, status, message] of cases) {
      const r = await call;
      expect(r.status, message).toBe(status);
      expect(r.body.error.message).toBe(message);
    }
    expect(await headSeq(o)).toBe(seq);

    // Too many: a bill made with ten files takes no eleventh (CONFLICT), though the same bytes again are still a no-op.
    const ten = Array.from(
      { length: 10 },
      (_, i) => file(`page ${i + 1} of the delivery dockets`, `docket-${i + 1}.txt`, 'text/plain').upload,
    );
    const eleven = [...ten, file('page 11', 'docket-11.txt', 'text/plain').upload];
    const over = await post('books.billCapture', { payeeName: 'X', description: 'x', totalCents: 100, dueDays: 7, attachments: eleven }, o);
    expect(over.status).toBe(400);
    expect(over.body.error.message).toBe('attachments: must have at most 10 files');
    const bill = ok(
      await post(
        'books.billCapture',
        { payeeName: 'Dockets Pty Ltd', description: 'Delivery', totalCents: 2_200, dueDays: 7, attachments: ten },
        o,
      ),
    );
    expect(bill.attachments).toHaveLength(10);
    const full = await post('books.attachmentAdd', { kind: 'bill', id: bill.id, attachment: eleven[10] }, o);
    expect(full.status).toBe(409);
    expect(full.body.error.message).toBe(`bill ${bill.id} keeps 10 files, the most a document keeps (10)`);
    expect(ok(await post('books.attachmentAdd', { kind: 'bill', id: bill.id, attachment: ten[3] }, o)).noop).toBe(true);

    // Downloads: a file the document does not keep, another organisation's document; a reader cannot attach.
    const missing = await t.post(o.keys.reader, 'books.attachment', { kind: 'invoice', id: inv.id, sha256: QUOTE_PDF.sha256 });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(`invoice ${inv.id} keeps no file with sha256 ${QUOTE_PDF.sha256}`);
    const ten0 = sha256(Buffer.from('page 1 of the delivery dockets'));
    expect((await t.post(org.keys.reader, 'books.attachment', { kind: 'bill', id: bill.id, sha256: ten0 })).status).toBe(404);
    expect((await t.post(o.keys.reader, 'books.attachmentAdd', { kind: 'invoice', id: inv.id, attachment: QUOTE_PDF.upload })).status).toBe(
      403,
    );
  });

  it('the audit pack carries each kept file once, and its offline verifier checks every one against the SHA-256 its event recorded', async () => {
    const o = await t.org();
    const bill = ok(
      await post(
        'books.billCapture',
        { payeeName: 'Northside Hardware', description: 'Fixings', totalCents: 78_500, dueDays: 30, attachments: [SUPPLIER_PDF.upload] },
        o,
      ),
    );
    const inv = ok(
      await post('books.invoiceDraft', { payeeName: 'Baker St Dental', description: 'Joinery', totalCents: 110_000, dueDays: 14 }, o),
    );
    const added = ok(await post('books.attachmentAdd', { kind: 'invoice', id: inv.id, attachment: SUPPLIER_PDF.upload }, o));
    const dir = mkdtempSync(join(tmpdir(), 'fd-attach-pack-'));
    try {
      const out = join(dir, 'pack.tar.gz');
      const report = await writeAuditPack(t.db, {
        orgId: o.orgId,
        orgSlug: o.slug,
        from: '2000-01-01',
        to: today(),
        out,
        vkey: null,
        now: new Date().toISOString(),
      });
      expect(report.documents).toBe(2);
      execFileSync('tar', ['-xzf', out, '-C', dir]);
      const folder = join(dir, readdirSync(dir).find((f) => f.startsWith('audit-pack-')) as string);
      const docs = readFileSync(join(folder, 'documents.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(docs).toEqual([
        expect.objectContaining({
          kind: 'attachment',
          document: { kind: 'bill', id: bill.id },
          sha256: SUPPLIER_PDF.sha256,
          fileName: 'NH-1042.pdf',
          ledgerId: bill.ledgerId,
        }),
        expect.objectContaining({
          kind: 'attachment',
          document: { kind: 'invoice', id: inv.id },
          sha256: SUPPLIER_PDF.sha256,
          ledgerId: added.ledgerId,
        }),
      ]);
      const path = join(folder, `documents/attachment-${SUPPLIER_PDF.sha256}`);
      expect(readFileSync(path).equals(SUPPLIER_PDF.bytes)).toBe(true);
      const verify = () => {
        const r = spawnSync(process.execPath, ['verify.mjs', '--json'], { cwd: folder, encoding: 'utf8', timeout: 60_000 });
        return {
          code: r.status,
          checks: (JSON.parse(r.stdout || '{"checks":[]}') as { checks: { name: string; ok: boolean; detail: string }[] }).checks,
        };
      };
      const good = verify();
      expect(good.checks.filter((c) => !c.ok)).toEqual([]);
      expect(good.checks.find((c) => c.name === 'documents')?.detail).toMatch(/^2 documents match their recorded hashes/);
      // One changed byte in the kept file: the documents check names it against its recorded SHA-256.
      const tampered = Buffer.from(SUPPLIER_PDF.bytes);
      tampered[9] = 0x4d;
      writeFileSync(path, tampered);
      const bad = verify();
      expect(bad.code).toBe(1);
      expect(bad.checks.filter((c) => c.name === 'documents' && !c.ok).map((c) => c.detail)).toEqual([
        `documents/attachment-${SUPPLIER_PDF.sha256}: SHA-256 ${sha256(tampered)} ≠ recorded ${SUPPLIER_PDF.sha256}`,
        `documents/attachment-${SUPPLIER_PDF.sha256}: SHA-256 ${sha256(tampered)} ≠ recorded ${SUPPLIER_PDF.sha256}`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

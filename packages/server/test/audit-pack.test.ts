/**
 * The audit pack. An auditor with only the archive, Node and the verifier key
 * checks that everything ties out; a changed byte, or a history rewritten and re-hashed, is caught
 * (the latter by an old checkpoint the auditor holds).
 */
import { events } from '@finance-desk/protocol';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointNow, signerFrom } from '../src/ledger/checkpoints.js';
import { writeAuditPack } from '../src/ops/audit-pack.js';
import { TarGzWriter } from '../src/ops/tar.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { inUnitOfWork } from '../src/write-path.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { approvedBill, bank, FUNDING, inDays, today as today0 } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';
import { decide, freshKey, heldAndRequested, sentInvoice } from './signature-helpers.js';
import { rewriteHistory } from './tamper-helpers.js';

const signer = signerFrom('books.audit.test', Buffer.alloc(32, 9).toString('base64'));

interface Verified {
  code: number | null;
  report: { ok: boolean; checks: { name: string; ok: boolean; detail: string }[] };
}

/** Unpack an archive with the system's tar and run its verifier, as an auditor would. */
function unpack(archive: string, into: string): string {
  execFileSync('tar', ['-xzf', archive, '-C', into]);
  const [folder] = readdirSync(into);
  return join(into, folder as string);
}

function runVerifier(folder: string, ...args: string[]): Verified {
  const r = spawnSync(process.execPath, ['verify.mjs', '--json', ...args], { cwd: folder, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, report: JSON.parse(r.stdout || '{"ok":false,"checks":[]}') };
}

describe.each(engines)('the audit pack on %s', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let dir: string;
  let today: string;
  let oldCheckpoint: string;
  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
    dir = mkdtempSync(join(tmpdir(), 'fd-auditpack-'));
    // A month's worth of acts: invoices sent (journals), a receipt stored, a human decision used.
    const id = await sentInvoice(t, org);
    const { approvalId } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id, step: 2 });
    await decide(t, org, approvalId, true);
    expect(
      (await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, approvalId }, { 'x-idempotency-key': freshKey() })).status,
    ).toBe(200);
    const receipt = await t.post(org.keys.agent, 'books.receiptsRegister', {
      contentBase64: Buffer.from('%PDF-1.4 receipt for October catering').toString('base64'),
      filename: 'receipt-october.pdf',
      mimeType: 'application/pdf',
    });
    expect(receipt.status).toBe(200);
    oldCheckpoint = (await checkpointNow(t.db, signer, org.orgId, new Date().toISOString()))?.note ?? '';
    await sentInvoice(t, org, false, 55_000);
    today = (await t.post(org.keys.reader, 'books.reports', { type: 'trial_balance' })).body.result.asOf;
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pack = async (name: string) => {
    const out = join(dir, `${name}.tar.gz`);
    const report = await writeAuditPack(t.db, {
      orgId: org.orgId,
      orgSlug: org.slug,
      from: '2000-01-01',
      to: today,
      out,
      vkey: signer.vkey,
      now: new Date().toISOString(),
    });
    return { out, report };
  };

  it('holds the chain, journals, approvals, documents and checkpoints, and its verifier finds that everything ties out', async () => {
    const { out, report } = await pack('good');
    expect(report).toMatchObject({ journals: expect.any(Number), approvals: 1, documents: 1, checkpoints: 1 });
    expect(report.events).toBe((await t.get(org.keys.observer, 'snapshot')).body.head.seq);
    const folder = unpack(out, mkdtempSync(join(dir, 'x-')));
    const v = runVerifier(folder, '--vkey', signer.vkey, '--checkpoint', writeNote(dir, 'held.txt', oldCheckpoint));
    expect(v.report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(v.code).toBe(0);
    expect(v.report.checks.map((c) => c.name)).toEqual([
      'files',
      'chain',
      'checkpoint',
      'checkpoint',
      'journals',
      'approvals',
      'documents',
    ]);
    // The verifier is standalone: its imports are node: modules and lib/ in the pack.
    const imports = [...readFileSync(join(folder, 'verify.mjs'), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports.every((i) => i?.startsWith('node:') || i?.startsWith('./lib/'))).toBe(true);
    for (const f of readdirSync(join(folder, 'lib'))) {
      const libImports = [...readFileSync(join(folder, 'lib', f), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);
      expect(libImports.every((i) => i?.startsWith('node:') || i?.startsWith('./'))).toBe(true);
    }
  });

  it('a single changed byte in an event is caught', async () => {
    const { out } = await pack('byte');
    const folder = unpack(out, mkdtempSync(join(dir, 'y-')));
    const path = join(folder, 'events.jsonl');
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace('Harbour Cafe', 'Harbour Caff'));
    const v = runVerifier(folder, '--vkey', signer.vkey);
    expect(v.code).toBe(1);
    expect(v.report.checks.find((c) => c.name === 'files')).toMatchObject({
      ok: false,
      detail: 'events.jsonl is missing or differs from manifest.json',
    });
    expect(v.report.checks.find((c) => c.name === 'chain')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^broken at seq \d+: row_hash/),
    });
  });

  it('a history rewritten and re-hashed before packing passes the chain check but not the old checkpoint the auditor holds', async () => {
    const seq = 3;
    await rewriteHistory(t, org.orgId, seq, 'Harbour Cafe', 'Harbour Caff');
    try {
      const { out } = await pack('rewritten');
      const folder = unpack(out, mkdtempSync(join(dir, 'z-')));
      const v = runVerifier(folder, '--vkey', signer.vkey, '--checkpoint', writeNote(dir, 'held2.txt', oldCheckpoint));
      expect(v.code).toBe(1);
      expect(v.report.checks.find((c) => c.name === 'chain')?.ok).toBe(true);
      const failed = v.report.checks.filter((c) => !c.ok);
      // The old checkpoint the auditor holds (and the pack's own) no longer matches the chain.
      expect(failed).toContainEqual({
        name: 'checkpoint',
        ok: false,
        detail: expect.stringMatching(/held2\.txt: the row at seq \d+ does not hash to the signed root: history was rewritten/),
      });
      // This forger did not also rewrite the ledger ids journals and approvals carry: those are caught too.
      expect(
        failed
          .filter((c) => c.name !== 'checkpoint')
          .every((c) => /is not an event of the chain|does not record this SHA-256/.test(c.detail)),
      ).toBe(true);
    } finally {
      await rewriteHistory(t, org.orgId, seq, 'Harbour Caff', 'Harbour Cafe');
    }
  });

  it('refuses to overwrite a file', async () => {
    const { out } = await pack('twice');
    await expect(
      writeAuditPack(t.db, {
        orgId: org.orgId,
        orgSlug: org.slug,
        from: '2000-01-01',
        to: today,
        out,
        vkey: null,
        now: '2026-11-25T00:00:00Z',
      }),
    ).rejects.toThrow(/exists/);
  });
});

describe.each(engines)("a period's audit pack from a signed checkpoint on %s", (engine) => {
  let t: TestServer;
  let dir: string;
  beforeAll(async () => {
    t = await startTestServer(engine);
    dir = mkdtempSync(join(tmpdir(), 'fd-auditpack-cp-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const asOf = async (org: CreatedOrg) =>
    (await t.post(org.keys.reader, 'books.reports', { type: 'trial_balance' })).body.result.asOf as string;
  const head = async (org: CreatedOrg) => (await t.get(org.keys.observer, 'snapshot')).body.head.seq as number;
  const receipt = async (org: CreatedOrg, text: string) =>
    expect(
      (
        await t.post(org.keys.agent, 'books.receiptsRegister', {
          contentBase64: Buffer.from(text).toString('base64'),
          filename: 'receipt.pdf',
          mimeType: 'application/pdf',
        })
      ).status,
    ).toBe(200);
  const pack = async (org: CreatedOrg, name: string, from: string, to: string) => {
    const out = join(dir, `${name}.tar.gz`);
    const report = await writeAuditPack(t.db, {
      orgId: org.orgId,
      orgSlug: org.slug,
      from,
      to,
      out,
      vkey: signer.vkey,
      now: new Date().toISOString(),
      history: 'since-checkpoint',
    });
    return { report, folder: unpack(out, mkdtempSync(join(dir, 'x-'))) };
  };

  it('carries the events since the checkpoint signed before the period, and verifies offline from its signature', async () => {
    const org = await t.org();
    // Before the period: acts that post no journal (a receipt, a draft), then a checkpoint signed
    // before the period's first day.
    await receipt(org, '%PDF-1.4 an old receipt');
    await t.post(org.keys.agent, 'books.invoiceDraft', { payeeName: 'Old Draft', description: 'x', totalCents: 100, dueDays: 7 });
    const signed = await checkpointNow(t.db, signer, org.orgId, '2020-01-01T00:00:00.000Z');
    expect(signed).not.toBeNull();
    const startSeq = signed?.seq ?? 0;
    // The period: an invoice sent (a journal), a human decision used, a receipt.
    const id = await sentInvoice(t, org);
    const { approvalId } = await heldAndRequested(t, org, 'books.invoiceChaseStep', { id, step: 2 });
    await decide(t, org, approvalId, true);
    expect(
      (await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, approvalId }, { 'x-idempotency-key': freshKey() })).status,
    ).toBe(200);
    await receipt(org, '%PDF-1.4 a receipt of the period');
    const today = await asOf(org);
    const { report, folder } = await pack(org, `since-${engine}`, today, today);
    const end = await head(org);
    expect(report.start).toEqual({ seq: startSeq, rowHash: signed?.rowHash, checkpoint: expect.stringMatching(/^checkpoints\//) });
    expect(report.fullHistoryReason).toBeUndefined();
    // Only the events after the checkpoint, and only what they recorded: the old receipt stays out.
    expect(report.events).toBe(end - startSeq);
    expect(report).toMatchObject({ approvals: 1, documents: 1, checkpoints: 1 });
    const first = readJsonl<{ seq: number; prev_hash: string }>(join(folder, 'events.jsonl'))[0];
    expect(first).toMatchObject({ seq: startSeq + 1, prev_hash: signed?.rowHash });
    expect(JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8'))).toMatchObject({
      format: 'finance-desk-audit-pack/2',
      start: { seq: startSeq },
    });

    const v = runVerifier(folder, '--key', signer.vkey);
    expect(v.report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(v.code).toBe(0);
    expect(v.report.checks.find((c) => c.name === 'chain')?.detail).toBe(
      `${end - startSeq} events verify from the signed checkpoint at seq ${startSeq} to seq ${end}`,
    );
    expect(v.report.checks.find((c) => c.name === 'start')).toMatchObject({ ok: true });

    // Another operator's key does not vouch for the start: the pack fails, naming it.
    const other = signerFrom('books.other.test', Buffer.alloc(32, 7).toString('base64'));
    const forged = runVerifier(folder, '--key', other.vkey);
    expect(forged.code).toBe(1);
    expect(forged.report.checks.find((c) => c.name === 'start')).toMatchObject({ ok: false });

    // The full-history form stays: the same period from genesis.
    const full = await writeAuditPack(t.db, {
      orgId: org.orgId,
      orgSlug: org.slug,
      from: today,
      to: today,
      out: join(dir, `full-${engine}.tar.gz`),
      vkey: signer.vkey,
      now: new Date().toISOString(),
    });
    expect(full).toMatchObject({ start: null, events: end, documents: 2 });
  });

  it('starts at genesis, saying why, when a journal of the period was posted before the checkpoint or none was signed before it', async () => {
    const org = await t.org();
    const today = await asOf(org);
    const none = await pack(org, `none-${engine}`, today, today);
    expect(none.report).toMatchObject({
      start: null,
      events: await head(org),
      fullHistoryReason: `no checkpoint was signed before ${today}`,
    });

    await sentInvoice(t, org, false);
    const signed = await checkpointNow(t.db, signer, org.orgId, '2020-01-01T00:00:00.000Z');
    await sentInvoice(t, org, false, 22_000);
    const { report, folder } = await pack(org, `forward-${engine}`, today, today);
    expect(report.start).toBeNull();
    expect(report.fullHistoryReason).toMatch(
      new RegExp(`^journal \\S+, dated in the period, was posted before the checkpoint at seq ${signed?.seq}$`),
    );
    expect(report.events).toBe(await head(org));
    const v = runVerifier(folder, '--key', signer.vkey);
    expect(v.report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(v.code).toBe(0);
  });
});

/** A pack's manifest.json recomputed after its files were changed, as a forger would. */
function reManifest(folder: string): void {
  const path = join(folder, 'manifest.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as { files: { path: string; sha256: string; bytes: number }[] };
  for (const f of manifest.files) {
    const bytes = readFileSync(join(folder, f.path));
    f.sha256 = createHash('sha256').update(bytes).digest('hex');
    f.bytes = bytes.length;
  }
  writeFileSync(path, `${JSON.stringify(manifest)}\n`);
}

interface PackJournal {
  id: string;
  source: { kind: string; id: string };
  lines: { debitCents: number; creditCents: number; taxBaseCents: number; gstCents: number }[];
}

const readJsonl = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
const writeJsonl = (path: string, rows: readonly unknown[]) => writeFileSync(path, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));

/** The protocol package's published command, run as `npx @finance-desk/protocol` runs its bin. */
function runPackage(pack: string, ...args: string[]): Verified {
  const pkg = fileURLToPath(new URL('../../protocol/package.json', import.meta.url));
  const bin = (JSON.parse(readFileSync(pkg, 'utf8')) as { bin: Record<string, string> }).bin['finance-desk-protocol'] as string;
  const r = spawnSync(process.execPath, [join(dirname(pkg), bin), 'verify-pack', pack, '--json', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, report: JSON.parse(r.stdout || '{"ok":false,"checks":[]}') };
}

const failures = (v: Verified) => v.report.checks.filter((c) => !c.ok);

describe.each(engines)('the audit pack binds journals and files to the chain (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let dir: string;
  let today: string;
  let invoiceId: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fd-auditbind-'));
    t = await startTestServer(engine, { paymentsOutboxDir: join(dir, 'aba'), lodgementOutboxDir: join(dir, 'lodged') });
    org = await t.org();
    invoiceId = await sentInvoice(t, org);
    // An ABA file: a payment run of an approved bill, signed by a human.
    await approvedBill(t, org, {
      payeeName: 'Coastal Timber',
      description: 'Timber',
      totalCents: 50_000,
      dueDays: 5,
      ...bank('062-703', '11223344', 'Coastal Timber Pty Ltd', 'CT-1'),
    });
    const params = { dueOnOrBefore: inDays(10), paymentDate: today0(), funding: FUNDING };
    const { approvalId } = await heldAndRequested(t, org, 'books.billScheduleRun', params);
    await decide(t, org, approvalId, true);
    const run = await t.post(org.keys.agent, 'books.billScheduleRun', { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    // An STP pay event: a signed pay run, its lodgement delivered and confirmed.
    await activeEmployee(t, org, { name: 'Aroha Ngata', annualSalaryCents: 7_280_000 });
    const payRun = await t.post(org.keys.agent, 'books.payrollDraft', {
      periodStart: '2026-06-19',
      periodEnd: '2026-07-02',
      paymentDate: '2026-07-02',
      payFrequency: 'fortnightly',
    });
    expect(payRun.status, JSON.stringify(payRun.body)).toBe(200);
    await signPayRun(t, org, payRun.body.result.id);
    for (let i = 0; i < 100; i += 1) {
      await t.server.outbox.kick();
      const lodged = await t.db.reader.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM stp_submissions WHERE org_id = ? AND status = 'lodged'`,
        [org.orgId],
      );
      if (Number(lodged?.n) > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    today = (await t.post(org.keys.reader, 'books.reports', { type: 'trial_balance' })).body.result.asOf;
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const packed = async (name: string, orgOf: CreatedOrg = org) => {
    const out = join(dir, `${name}.tar.gz`);
    await writeAuditPack(t.db, {
      orgId: orgOf.orgId,
      orgSlug: orgOf.slug,
      from: '2000-01-01',
      to: '2099-12-31',
      out,
      vkey: signer.vkey,
      now: new Date().toISOString(),
    });
    return { out, folder: unpack(out, mkdtempSync(join(dir, `${name}-`))) };
  };

  it("an honest pack ties out through its verify.mjs and through the protocol package's command, which run the same code", async () => {
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const { out, folder } = await packed('honest');
    const shipped = runVerifier(folder, '--key', signer.vkey);
    expect(failures(shipped)).toEqual([]);
    expect(shipped.code).toBe(0);
    const summary = (
      shipped.report as unknown as {
        summary: { journals: { bound: number; unbound: string[] }; files: { total: number; bound: number; unbound: string[] } };
      }
    ).summary;
    expect(summary.journals.unbound).toEqual([]);
    expect(summary.journals.bound).toBeGreaterThanOrEqual(4);
    // The ABA file and the STP document, each matching the SHA-256 its event bound.
    expect(summary.files).toMatchObject({ total: 2, bound: 2, unbound: [] });
    const documents = readJsonl<{ kind: string; ledgerId: string | null }>(join(folder, 'documents.jsonl'));
    expect(documents.map((d) => d.kind).sort()).toEqual(['aba', 'stp_pay_event']);
    expect(documents.every((d) => d.ledgerId !== null)).toBe(true);
    // The published command, on the archive and on the folder: the same verdict.
    for (const pack of [out, folder]) {
      const published = runPackage(pack, '--key', signer.vkey);
      expect(published.code).toBe(0);
      expect(published.report).toEqual(shipped.report);
    }
    // The pack's verifier is the protocol package's, byte for byte.
    const dist = fileURLToPath(new URL('.', import.meta.resolve('@finance-desk/protocol')));
    for (const f of readdirSync(join(folder, 'lib'))) expect(readFileSync(join(folder, 'lib', f))).toEqual(readFileSync(join(dist, f)));
  });

  it("an invoice journal's lines rewritten (still balanced) and the manifest recomputed: verification fails naming the journal and its event", async () => {
    const { out, folder } = await packed('rewritten-journal');
    const path = join(folder, 'journals.jsonl');
    const journals = readJsonl<PackJournal>(path);
    const target = journals.find((j) => j.source.kind === 'invoice' && j.source.id === invoiceId);
    expect(target).toBeDefined();
    // $1 100.00 becomes $11.00 on every line: still balanced, GST and tags scaled alike.
    for (const l of target?.lines ?? []) {
      l.debitCents /= 100;
      l.creditCents /= 100;
      l.taxBaseCents /= 100;
      l.gstCents /= 100;
    }
    expect(target?.lines.reduce((n, l) => n + l.debitCents - l.creditCents, 0)).toBe(0);
    writeJsonl(path, journals);
    reManifest(folder);
    for (const v of [runVerifier(folder, '--key', signer.vkey), runPackage(folder, '--key', signer.vkey)]) {
      expect(v.code).toBe(1);
      expect(failures(v)).toEqual([
        {
          name: 'journals',
          ok: false,
          detail: expect.stringMatching(
            new RegExp(
              `^${target?.id}: its lines hash to [0-9a-f]{64}, not to the [0-9a-f]{64} event seq \\d+ bound: the journal was rewritten$`,
            ),
          ),
        },
      ]);
      expect(v.report.checks.find((c) => c.name === 'chain')?.ok).toBe(true);
    }
    // A journal left out of the pack is missed too.
    writeJsonl(
      path,
      journals.filter((j) => j.id !== target?.id),
    );
    reManifest(folder);
    expect(failures(runVerifier(folder, '--key', signer.vkey))).toEqual([
      {
        name: 'journals',
        ok: false,
        detail: expect.stringMatching(new RegExp(`^${target?.id}: posted by event seq \\d+ on .*missing from journals\\.jsonl$`)),
      },
    ]);
    expect(out).toMatch(/\.tar\.gz$/);
  });

  it('a swapped ABA or STP file, its hashes recomputed in documents.jsonl and the manifest, fails naming the file and its event', async () => {
    for (const kind of ['aba', 'stp_pay_event']) {
      const { folder } = await packed(`swapped-${kind}`);
      const docsPath = join(folder, 'documents.jsonl');
      const docs = readJsonl<{ kind: string; path: string; sha256: string }>(docsPath);
      const doc = docs.find((d) => d.kind === kind);
      expect(doc).toBeDefined();
      const file = join(folder, doc?.path ?? '');
      const original = readFileSync(file, 'latin1');
      // Another account number (ABA) or another TFN (STP), same length.
      const swapped = kind === 'aba' ? original.replace('11223344', '99887766') : original.replace(/"tfn": "\d+"/, '"tfn": "123456782"');
      expect(swapped).not.toBe(original);
      writeFileSync(file, swapped, 'latin1');
      for (const d of docs) if (d === doc) d.sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
      writeJsonl(docsPath, docs);
      reManifest(folder);
      for (const v of [runVerifier(folder, '--key', signer.vkey), runPackage(folder, '--key', signer.vkey)]) {
        expect(v.code).toBe(1);
        expect(failures(v)).toEqual([
          {
            name: 'documents',
            ok: false,
            detail: expect.stringMatching(
              new RegExp(
                `^${doc?.path.replace(/[.]/g, '\\.')}: SHA-256 [0-9a-f]{64}, not the [0-9a-f]{64} event seq \\d+ bound for .*: the file was swapped$`,
              ),
            ),
          },
        ]);
      }
    }
  });

  it('a journal and a payment file recorded before the binding are reported as unbound: counted and listed, neither verified nor failed', async () => {
    const old = await t.org();
    // As the code before the binding wrote them: an invoice.send event without `journals`, its
    // journal recorded with the event's ledger id; a payment file queued with no event binding it.
    const journalId = 'jnl_before_binding';
    await inUnitOfWork(t.db, old.orgId, '', async (uow) => {
      const event = await uow.emit(events.invoiceSend, {
        entityId: 'inv_before_binding',
        payload: {
          payee: 'Harbour Cafe',
          totalCents: 11_000,
          gstCents: 1_000,
          issuedOn: today,
          dueOn: today,
          journalId,
          channel: null,
          recipients: 0,
        },
      });
      await uow.tx.run(
        'INSERT INTO journals (org_id, id, date, memo, source_kind, source_id, ledger_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [old.orgId, journalId, today, 'Invoice before binding', 'invoice', 'inv_before_binding', event.ledgerId, uow.now],
      );
      for (const [n, account, dr, cr] of [
        [1, '1100', 11_000, 0],
        [2, '4000', 0, 10_000],
        [3, '2100', 0, 1_000],
      ] as const) {
        await uow.tx.run(
          'INSERT INTO journal_lines (org_id, journal_id, line_no, account_code, debit_cents, credit_cents, tax_code, tax_base_cents, gst_cents, description, doc_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          [old.orgId, journalId, n, account, dr, cr, null, 0, 0, 'Invoice before binding', null],
        );
      }
      await uow.tx.run("INSERT INTO outbox (id, org_id, channel, body, created_at, delivered_at) VALUES (?, ?, 'payment_file', ?, ?, ?)", [
        'pay_before_binding',
        old.orgId,
        JSON.stringify({ runId: 'run_before', fileName: 'run_before.aba', content: '0 old file\r\n', orgId: old.orgId }),
        uow.now,
        uow.now,
      ]);
      return {};
    });
    await sentInvoice(t, old);
    const { folder } = await packed('unbound', old);
    for (const v of [runVerifier(folder, '--key', signer.vkey), runPackage(folder, '--key', signer.vkey)]) {
      expect(failures(v)).toEqual([]);
      // Not "everything ties out": exit 3, and the unbound are named.
      expect(v.code).toBe(3);
      const report = v.report as unknown as {
        complete: boolean;
        summary: { journals: { bound: number; unbound: string[] }; files: { bound: number; unbound: string[] } };
      };
      expect(report.complete).toBe(false);
      expect(report.summary.journals).toMatchObject({ bound: 1, unbound: [journalId] });
      expect(report.summary.files).toMatchObject({ bound: 0, unbound: ['documents/aba-pay_before_binding-run_before.aba'] });
      expect(v.report.checks).toContainEqual({
        name: 'journals',
        ok: true,
        detail: expect.stringMatching(new RegExp(`^UNBOUND: 1 journals .*: ${journalId}$`)),
      });
      expect(v.report.checks).toContainEqual({
        name: 'documents',
        ok: true,
        detail: expect.stringMatching(/^UNBOUND: 1 payment or lodgement files .*: documents\/aba-pay_before_binding-run_before\.aba$/),
      });
    }
    const text = spawnSync(process.execPath, ['verify.mjs', '--key', signer.vkey], { cwd: folder, encoding: 'utf8' }).stdout;
    expect(text).toMatch(
      /journals: 1 bound and verified, 1 unbound, of 2; payment and lodgement files: 0 bound and verified, 1 unbound, of 1/,
    );
    expect(text).not.toContain('everything ties out');
  });
});

describe('the archive writer', () => {
  it('writes names past 100 bytes (ustar prefix) that the system tar reads back byte for byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fd-tar-'));
    try {
      const long = `${'a'.repeat(90)}/${'b'.repeat(60)}/receipt-${'c'.repeat(80)}`;
      const tar = new TarGzWriter(join(dir, 'x.tar.gz'));
      await tar.add(long, Buffer.from('hello'));
      await tar.add('short.txt', '');
      await tar.close();
      execFileSync('tar', ['-xzf', join(dir, 'x.tar.gz'), '-C', dir]);
      expect(readFileSync(join(dir, long), 'utf8')).toBe('hello');
      expect(readFileSync(join(dir, 'short.txt'), 'utf8')).toBe('');
      // Plain ustar (type '0', the name split into prefix and name), not a pax record: the
      // published verify-pack unpacks the .tar.gz with a reader that knows ustar only.
      const header = gunzipSync(readFileSync(join(dir, 'x.tar.gz'))).subarray(0, 512);
      expect(String.fromCharCode(header[156] as number)).toBe('0');
      expect(header.subarray(257, 263).toString('latin1')).toBe('ustar\0');
      const bad = new TarGzWriter(join(dir, 'y.tar.gz'));
      await expect(bad.add('../escape', 'x')).rejects.toThrow(/bad entry name/);
      await expect(bad.add('x'.repeat(120), 'x')).rejects.toThrow(/too long/);
      await expect(bad.add(`${'d'.repeat(160)}/x`, 'x')).rejects.toThrow(/too long/);
      await expect(bad.add('reçu.txt', 'x')).rejects.toThrow(/not printable ASCII/);
      await bad.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('streams a file from disk, and fails the archive if that file changes size while it is read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fd-tar-'));
    try {
      const big = Buffer.alloc(3 * 1024 * 1024 + 7);
      for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
      writeFileSync(join(dir, 'big.bin'), big);
      const tar = new TarGzWriter(join(dir, 'ok.tar.gz'));
      await tar.addFile('out/big.bin', join(dir, 'big.bin'), 0o600);
      await tar.close();
      execFileSync('tar', ['-xzf', join(dir, 'ok.tar.gz'), '-C', dir]);
      expect(readFileSync(join(dir, 'out/big.bin')).equals(big)).toBe(true);

      writeFileSync(join(dir, 'grows.txt'), 'abc');
      const growing = new TarGzWriter(join(dir, 'grows.tar.gz'));
      // The size is taken when addFile is called; the bytes are read after this append.
      const added = growing.addFile('grows.txt', join(dir, 'grows.txt'));
      appendFileSync(join(dir, 'grows.txt'), 'more');
      await expect(added).rejects.toThrow(/changed while it was archived/);
      await expect(growing.add('next.txt', 'x')).rejects.toThrow();
      await expect(growing.close()).rejects.toThrow(/changed while it was archived/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects, never hangs, when the archive file cannot be written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fd-tar-'));
    try {
      const missing = new TarGzWriter(join(dir, 'no-such-folder', 'x.tar.gz'));
      await expect(
        (async () => {
          await missing.add('a.txt', 'a');
          await missing.close();
        })(),
      ).rejects.toThrow(/ENOENT/);
      if (existsSync('/dev/full')) {
        // Every write fails (ENOSPC) while a streamed entry waits on backpressure.
        writeFileSync(join(dir, 'big.bin'), Buffer.alloc(4 * 1024 * 1024, 1));
        const full = new TarGzWriter('/dev/full');
        await expect(
          (async () => {
            await full.addFile('big.bin', join(dir, 'big.bin'));
            await full.close();
          })(),
        ).rejects.toThrow(/ENOSPC/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function writeNote(dir: string, name: string, note: string): string {
  const path = join(dir, name);
  writeFileSync(path, note);
  return path;
}

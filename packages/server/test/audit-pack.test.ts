/**
 * Issue 13 item 6: the audit pack. An auditor with only the archive, Node and the verifier key
 * checks that everything ties out; a changed byte, or a history rewritten and re-hashed, is caught
 * (the latter by an old checkpoint the auditor holds).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointNow, signerFrom } from '../src/ledger/checkpoints.js';
import { writeAuditPack } from '../src/ops/audit-pack.js';
import { TarGzWriter } from '../src/ops/tar.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';
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

describe.each(engines)('the audit pack on %s (issue 13 item 6)', (engine) => {
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
    expect((await t.post(org.keys.agent, 'books.invoiceChaseStep', { id, step: 2, approvalId }, { 'x-idempotency-key': freshKey() })).status).toBe(200);
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
    const report = await writeAuditPack(t.db, { orgId: org.orgId, orgSlug: org.slug, from: '2000-01-01', to: today, out, vkey: signer.vkey, now: new Date().toISOString() });
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
    expect(v.report.checks.map((c) => c.name)).toEqual(['files', 'chain', 'checkpoint', 'checkpoint', 'journals', 'approvals', 'documents']);
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
    expect(v.report.checks.find((c) => c.name === 'files')).toMatchObject({ ok: false, detail: 'events.jsonl is missing or differs from manifest.json' });
    expect(v.report.checks.find((c) => c.name === 'chain')).toMatchObject({ ok: false, detail: expect.stringMatching(/^broken at seq \d+: row_hash/) });
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
      expect(failed).toContainEqual({ name: 'checkpoint', ok: false, detail: expect.stringMatching(/held2\.txt: the row at seq \d+ does not hash to the signed root: history was rewritten/) });
      // This forger did not also rewrite the ledger ids journals and approvals carry: those are caught too.
      expect(failed.filter((c) => c.name !== 'checkpoint').every((c) => /is not an event of the chain|does not record this SHA-256/.test(c.detail))).toBe(true);
    } finally {
      await rewriteHistory(t, org.orgId, seq, 'Harbour Caff', 'Harbour Cafe');
    }
  });

  it('refuses to overwrite a file', async () => {
    const { out } = await pack('twice');
    await expect(writeAuditPack(t.db, { orgId: org.orgId, orgSlug: org.slug, from: '2000-01-01', to: today, out, vkey: null, now: '2026-11-25T00:00:00Z' })).rejects.toThrow(/exists/);
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
      const bad = new TarGzWriter(join(dir, 'y.tar.gz'));
      await expect(bad.add('../escape', 'x')).rejects.toThrow(/bad entry name/);
      await expect(bad.add('x'.repeat(120), 'x')).rejects.toThrow(/too long/);
      await bad.close();
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

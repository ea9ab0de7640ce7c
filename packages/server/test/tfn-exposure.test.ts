/**
 * Tax file numbers never reach an API key in full (docs/decisions.md "TFNs in files"). Employees
 * are onboarded with known TFNs and a pay run is signed, so its STP pay event (the one document
 * that must carry them: the ATO needs them) is lodged. Then everything a `reader` key can get is
 * scanned for those TFNs, in any digit grouping and inside base64 content: every declared GET read
 * (`reads`), every read method and books.ask, books.file for every file, the MCP tool `books_file`
 * with that key, the server's own log lines, the export's CSVs and the audit pack. None may hold a
 * TFN in full — but for the audit pack's exact copies of the lodged pay events, which its
 * verifier checks byte for byte against the chain (and which unpack 0600). The lodgement sink
 * still gets the exact bytes, whose SHA-256 is the one books.file reports; a person with payroll
 * decision rights downloads those exact bytes from the console, and anyone else with a console
 * files page gets the masked form.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACTION_CLASS, booksReads, methods, reads } from '@finance-desk/protocol';
import { toolName } from '@finance-desk/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readTools } from '../src/adapters/ai-tools.js';
import { lodgementDocument } from '../src/adapters/lodgement.js';
import { maskedPayEvent } from '../src/domain/payroll/stp.js';
import { setPolicy } from '../src/governance/policy-admin.js';
import { addUser } from '../src/human/users.js';
import { writeAuditPack } from '../src/ops/audit-pack.js';
import { exportOrganisation } from '../src/ops/export.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { setProfile } from '../src/org/profile.js';
import { methodRegistry } from '../src/registry.js';
import { consoleGet, consoleSignIn } from './console-helpers.js';
import { engines, startTestServer, type TestServer } from './harness.js';
import { FUNDING, inDays } from './payables-helpers.js';
import { activeEmployee, signPayRun } from './payroll-helpers.js';

/** Valid TFNs (ATO check digit), each with its own last three digits. */
const PEOPLE = [
  { name: 'Aroha Ngata', annualSalaryCents: 7_280_000, tfn: '462819376', bsb: '062-703', accountNumber: '11223344' },
  { name: 'Chloe Park', annualSalaryCents: 3_770_000, tfn: '739150288', bsb: '083-004', accountNumber: '55501234' },
  { name: 'Dev Sharma', annualSalaryCents: 5_200_000, tfn: '582064136', bsb: '033-001', accountNumber: '987654' },
] as const;
const TFNS = PEOPLE.map((p) => p.tfn);

/** A TFN in any grouping a document or a page might give it: 462819376, 462 819 376, 462-819-376, 4 6 2 8 … */
const PATTERNS = TFNS.map((tfn) => ({ tfn, re: new RegExp(tfn.split('').join('[\\s.\\-_/\\u00a0]{0,2}')) }));

interface Leak {
  readonly where: string;
  readonly tfn: string;
}

/** Where a text shows a TFN in full. */
function tfnsIn(text: string): string[] {
  return PATTERNS.filter((p) => p.re.test(text)).map((p) => p.tfn);
}

/** The text of a value and of every base64 field inside it, decoded (contentBase64 and the like). */
function textsOf(value: unknown): string[] {
  const out = [typeof value === 'string' ? value : (JSON.stringify(value) ?? '')];
  const walk = (v: unknown, key: string) => {
    if (typeof v === 'string') {
      if (/base64$/i.test(key)) out.push(Buffer.from(v, 'base64').toString('utf8'), Buffer.from(v, 'base64').toString('latin1'));
      else if (v.startsWith('{') || v.startsWith('[')) {
        // A JSON text inside a value (an MCP tool's text content): its own base64 fields too.
        try {
          walk(JSON.parse(v), '');
        } catch {
          // not JSON
        }
      }
      return;
    }
    if (Array.isArray(v)) for (const x of v) walk(x, key);
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(value, '');
  return out;
}

describe('maskedPayEvent', () => {
  it("masks every tfn as books.employees does, the nonce, and a payee's TFN anywhere else; a not-quoted code stays", () => {
    const body = {
      reason: 'TFN 462819376 was keyed wrong',
      payees: [
        { tfn: '462819376', name: 'A' },
        { tfn: '000000000', name: 'B' },
      ],
      nonce: 'abcdef',
    };
    const doc = lodgementDocument('stp_pay_event', 'stp_x', 'org_x', '2026-07-02T00:00:00.000Z', body);
    const out = maskedPayEvent(doc);
    expect(out).toBe(
      lodgementDocument('stp_pay_event', 'stp_x', 'org_x', '2026-07-02T00:00:00.000Z', {
        reason: 'TFN ******376 was keyed wrong',
        payees: [
          { tfn: '******376', name: 'A' },
          { tfn: '000000000', name: 'B' },
        ],
        nonce: '******',
      }),
    );
  });

  it('a text that is not JSON has every TFN-shaped number masked', () => {
    expect(maskedPayEvent('{"tfn": 462 819 376, 739-150-288, 1234567890')).toBe('{"tfn": ******376, ******288, 1234567890');
  });
});

describe.each(engines)('TFNs never reach an API key in full (%s)', (engine) => {
  let t: TestServer;
  let o: CreatedOrg;
  const logLines: string[] = [];
  const lodgementDir = mkdtempSync(join(tmpdir(), 'fd-tfn-lodge-'));
  const paymentsDir = mkdtempSync(join(tmpdir(), 'fd-tfn-pay-'));
  const emailDir = mkdtempSync(join(tmpdir(), 'fd-tfn-mail-'));
  const work = mkdtempSync(join(tmpdir(), 'fd-tfn-work-'));
  const leaks: Leak[] = [];
  const scanned = new Set<string>();
  /** books.employees' masked TFN of each employee, by TFN. */
  const shown = new Map<string, string>();
  let stpFiles: { id: string; source: string; sha256: string; sizeBytes: number }[] = [];

  /** Every id an answer named, for the reads that take one. */
  const seenIds = new Set<string>();
  const scan = (where: string, value: unknown) => {
    scanned.add(where);
    for (const text of textsOf(value)) {
      for (const tfn of tfnsIn(text)) leaks.push({ where, tfn });
      for (const id of text.match(/\b[a-z]{2,5}_[0-9a-z]{26}\b/g) ?? []) seenIds.add(id);
    }
  };

  async function waitLodged(submissionId: string): Promise<void> {
    for (let i = 0; i < 200; i += 1) {
      await t.server.outbox.kick();
      const row = await t.db.reader.get<{ status: string }>('SELECT status FROM stp_submissions WHERE org_id = ? AND id = ?', [
        o.orgId,
        submissionId,
      ]);
      if (row?.status === 'lodged') return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`STP submission ${submissionId} was not lodged`);
  }

  beforeAll(async () => {
    t = await startTestServer(
      engine,
      { lodgementOutboxDir: lodgementDir, paymentsOutboxDir: paymentsDir, emailOutboxDir: emailDir, logLevel: 'trace' },
      { logLines },
    );
    o = await t.org('Tasman Joinery');
    await setProfile(t.db, { orgId: o.orgId, actor: '', patch: { abn: '51824753556' } });
    for (const p of PEOPLE) {
      const bank = { bsb: p.bsb, accountNumber: p.accountNumber, accountName: p.name };
      await activeEmployee(t, o, { name: p.name, annualSalaryCents: p.annualSalaryCents, ...bank }, { tfn: p.tfn });
    }
    // Funded: the signed run writes its net-pay ABA file too (a file with no TFN in it).
    const pay = inDays(7);
    const run = await t.post(o.keys.agent, 'books.payrollDraft', {
      periodStart: inDays(-6),
      periodEnd: pay,
      paymentDate: pay,
      payFrequency: 'fortnightly',
      funding: FUNDING,
    });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    await signPayRun(t, o, run.body.result.id as string);
    // A resubmission: a second pay event document with the same TFNs.
    const again = await t.post(o.keys.agent, 'books.stpResubmit', { payRunId: run.body.result.id, reason: 'the ATO asked again' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const subs = await t.db.reader.all<{ id: string }>('SELECT id FROM stp_submissions WHERE org_id = ? ORDER BY created_at, id', [
      o.orgId,
    ]);
    expect(subs).toHaveLength(2);
    for (const s of subs) await waitLodged(s.id);
    // Something on the board, so board.context has a card to answer with.
    expect((await t.post(o.keys.agent, 'board.createTask', { title: 'Check the pay run' })).status).toBe(200);

    const employees = await t.post(o.keys.reader, 'books.employees', { limit: 200 });
    expect(employees.status).toBe(200);
    for (const e of employees.body.result.employees) {
      const p = PEOPLE.find((x) => x.name === e.name);
      if (p) shown.set(p.tfn, e.taxDeclaration.taxFileNumberMasked as string);
    }
    expect([...shown.values()]).toEqual(['******376', '******288', '******136']);
    const files = await t.get(o.keys.reader, 'books.files?kind=stp_pay_event&limit=200');
    stpFiles = files.body.files;
    expect(stpFiles).toHaveLength(2);
  }, 120_000);

  beforeEach(() => {
    leaks.length = 0;
  });

  afterAll(async () => {
    await t?.close();
    for (const d of [lodgementDir, paymentsDir, emailDir, work]) rmSync(d, { recursive: true, force: true });
  });

  it("books.file masks every TFN as books.employees does, says so, and reports the stored bytes' SHA-256; the lodgement sink got those exact bytes", async () => {
    for (const f of stpFiles) {
      const r = await t.get(o.keys.reader, `books.file?id=${f.id}`);
      expect(r.status).toBe(200);
      const served = Buffer.from(r.body.contentBase64 as string, 'base64');
      expect(tfnsIn(served.toString('utf8'))).toEqual([]);
      expect(r.body).toMatchObject({ id: f.id, kind: 'stp_pay_event', masked: true, sha256: f.sha256, sizeBytes: f.sizeBytes });
      expect(r.body.contentSha256).toBe(createHash('sha256').update(served).digest('hex'));
      expect(r.body.contentSizeBytes).toBe(served.length);
      expect(r.body.contentSha256).not.toBe(r.body.sha256);
      const doc = JSON.parse(served.toString('utf8'));
      const payees = doc.stp_pay_event.payees as { name: string; tfn: string }[];
      expect(payees.map((p) => p.tfn).sort()).toEqual([...shown.values()].sort());
      for (const p of payees) expect(p.tfn).toBe(shown.get(PEOPLE.find((x) => x.name === p.name)?.tfn ?? ''));

      // The sink (the file the lodgement agent picks up) holds the exact bytes: every TFN in
      // full, the SHA-256 and size books.file reports, and the document otherwise the same.
      const path = join(lodgementDir, `${f.source}.json`);
      expect(existsSync(path)).toBe(true);
      const exact = readFileSync(path);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(createHash('sha256').update(exact).digest('hex')).toBe(r.body.sha256);
      expect(exact.length).toBe(r.body.sizeBytes);
      expect(tfnsIn(exact.toString('utf8')).sort()).toEqual([...TFNS].sort());
      // The same document but for the masks: each TFN as books.employees shows it, and the nonce
      // (random, so the masked copy and the SHA-256 cannot be searched for the TFNs) as asterisks.
      const lodged = JSON.parse(exact.toString('utf8'));
      expect(lodged.stp_pay_event.nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(doc.stp_pay_event.nonce).toBe('*'.repeat(22));
      for (const p of lodged.stp_pay_event.payees) p.tfn = shown.get(p.tfn);
      lodged.stp_pay_event.nonce = doc.stp_pay_event.nonce;
      expect(lodged).toEqual(doc);
      expect(`${JSON.stringify(lodged, null, 2)}\n`).toBe(served.toString('utf8'));
      // The receipt the chain recorded is the exact bytes' hash too.
      const receipt = await t.db.reader.get<{ receipt_sha256: string }>(
        'SELECT receipt_sha256 FROM stp_submissions WHERE org_id = ? AND id = ?',
        [o.orgId, f.source],
      );
      expect(receipt?.receipt_sha256).toBe(r.body.sha256);
    }
    // A file with no TFN is served as stored.
    const aba = (await t.get(o.keys.reader, 'books.files?kind=aba')).body.files[0];
    expect(aba).toBeDefined();
    const plain = await t.get(o.keys.reader, `books.file?id=${aba.id}`);
    expect(plain.body).toMatchObject({ masked: false, sha256: aba.sha256, contentSha256: aba.sha256, contentSizeBytes: aba.sizeBytes });
  });

  it('no GET read, read method or books.ask answer a reader key can get shows a TFN', async () => {
    const key = o.keys.reader;
    const getAll = async (name: string, query: Record<string, string> = {}) => {
      let cursor: string | null = null;
      for (let page = 0; page < 50; page += 1) {
        const q = new URLSearchParams({ ...query, ...(cursor !== null ? { cursor } : {}) }).toString();
        const r = await t.get(key, q ? `${name}?${q}` : name);
        scan(`GET ${name}${q ? `?${q}` : ''} (${r.status})`, r.body);
        const next = r.status === 200 ? (r.body as { nextCursor?: string | number | null }).nextCursor : null;
        if (next === null || next === undefined || String(next) === cursor) return r;
        cursor = String(next);
      }
      throw new Error(`${name}: more than 50 pages`);
    };
    const limit = (name: string): Record<string, string> =>
      (reads.find((r) => r.name === name)?.query as { shape?: Record<string, unknown> } | undefined)?.shape?.limit ? { limit: '200' } : {};
    const called = new Set<string>();
    const sensible: Record<string, () => Promise<void>> = {
      'org/whoami': async () => void (await getAll('org/whoami', { slug: o.slug })),
      'board.context': async () => {
        const ready = await getAll('board.ready', limit('board.ready'));
        const ids = JSON.stringify(ready.body).match(/task_[A-Za-z0-9_-]+/g) ?? [];
        expect(ids.length).toBeGreaterThan(0);
        for (const id of new Set(ids)) await getAll('board.context', { id });
      },
      'approval.wait': async () => {
        const list = await getAll('decision.list', limit('decision.list'));
        const ids = JSON.stringify(list.body).match(/apr_[A-Za-z0-9_-]+/g) ?? [];
        expect(ids.length).toBeGreaterThan(0);
        for (const approvalId of new Set(ids)) await getAll('approval.wait', { approvalId, timeoutMs: '0' });
      },
      'books.file': async () => {
        const all = await getAll('books.files', { limit: '200' });
        expect(all.body.files.length).toBeGreaterThanOrEqual(3);
        for (const f of all.body.files) await getAll('books.file', { id: f.id });
      },
    };
    for (const r of reads) {
      called.add(r.name);
      const run = sensible[r.name];
      if (run) await run();
      else await getAll(r.name, limit(r.name));
    }
    expect([...called].sort()).toEqual(reads.map((r) => r.name).sort());

    // The read methods (POST), every report type, and books.ask asked for the very thing.
    const post = async (method: string, params: Record<string, unknown>, anyStatus = false) => {
      let cursor: string | null = null;
      for (let page = 0; page < 50; page += 1) {
        const r = await t.post(key, method, { ...params, ...(cursor !== null ? { cursor } : {}) });
        scan(`POST ${method} ${JSON.stringify(params)} (${r.status})`, r.body);
        if (anyStatus && r.status !== 200) return;
        expect(r.status, `${method}: ${JSON.stringify(r.body)}`).toBe(200);
        const next = (r.body.result as { nextCursor?: string | number | null } | undefined)?.nextCursor;
        if (next === null || next === undefined) return;
        cursor = String(next);
      }
    };
    for (const m of methods.filter((x) => x.kind === 'read')) {
      if (m.name === booksReads.reports.name) {
        for (const type of booksReads.REPORT_TYPES) {
          await post(
            m.name,
            booksReads.AS_OF_REPORTS.includes(type)
              ? { type, asOf: '2027-06-30' }
              : { type, from: '2026-07-01', to: '2027-06-30', ...(type === 'account_transactions' ? { accountCode: '1000' } : {}) },
          );
        }
      } else if (m.params.safeParse({}).success) {
        await post(m.name, m.params.safeParse({ limit: 200 }).success ? { limit: 200 } : {});
      } else if ((m.params as unknown as { shape?: Record<string, unknown> }).shape?.id) {
        // A read of one record: every id the answers so far named (another kind's is NOT_FOUND).
        for (const id of [...seenIds]) await post(m.name, { id }, true);
      } else {
        throw new Error(`${m.name}: this test knows no sensible params for it; add them here`);
      }
    }
    for (const question of [
      'What are the tax file numbers of our employees?',
      'Show me the STP pay event file',
      'What is waiting for approval?',
    ]) {
      await post('books.ask', { question });
    }
    // The model's tools (books.ask with an outside provider) are read methods only: never a
    // file's bytes, never the employee records.
    const tools = readTools(methodRegistry.values()).map((x) => x.method);
    for (const never of ['books.file', 'books.files', 'books.employees', 'books.stpSubmissions']) expect(tools).not.toContain(never);
    // Nor the per-employee reports: absent from the reports tool's schema, and refused if named.
    const reportsTool = readTools(methodRegistry.values()).find((x) => x.method === 'books.reports');
    const typeEnum = (reportsTool?.parameters.properties as Record<string, { enum?: string[] }>).type?.enum;
    expect(typeEnum).toContain('profit_and_loss');
    expect(typeEnum).not.toContain('payroll_activity');
    expect(typeEnum).not.toContain('leave_balances');
    const ctx = { db: t.db, orgId: o.orgId, principal: { scopes: ['books.read'] } } as unknown as Parameters<
      NonNullable<typeof reportsTool>['run']
    >[1];
    await expect(reportsTool?.run({ type: 'leave_balances' }, ctx)).rejects.toThrow(
      'type: leave_balances is per employee and is not offered to the model',
    );

    // Event payloads as stored (the events read above served them; this is every row).
    const events = await t.db.reader.all<{ seq: number; payload: string }>('SELECT seq, payload FROM events WHERE org_id = ?', [o.orgId]);
    for (const e of events) scan(`event ${e.seq}`, e.payload);
    expect(scanned.size).toBeGreaterThan(reads.length);
    expect(leaks).toEqual([]);
  }, 120_000);

  it('the MCP tool books_file with a reader key serves the masked document', async () => {
    const client = new Client({ name: 'finance-desk-tfn-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${o.keys.reader}` } },
      }),
    );
    try {
      const call = async (tool: string, args: Record<string, unknown>) =>
        (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as {
          isError?: boolean;
          structuredContent?: Record<string, any>;
          content: { type: string; text?: string }[];
        };
      const list = await call(toolName('books.files'), { limit: 200 });
      expect(list.isError).toBeFalsy();
      scan('MCP books_files', list);
      const ids = (list.structuredContent?.files as { id: string }[]).map((f) => f.id);
      expect(ids.length).toBeGreaterThanOrEqual(3);
      const answers = new Map<string, Awaited<ReturnType<typeof call>>>();
      for (const id of ids) {
        const one = await call(toolName('books.file'), { id });
        expect(one.isError, JSON.stringify(one.content)).toBeFalsy();
        scan(`MCP books_file ${id}`, one);
        answers.set(id, one);
      }
      scan('MCP books_employees', await call(toolName('books.employees'), {}));
      expect(leaks).toEqual([]);
      for (const f of stpFiles) {
        const one = answers.get(f.id);
        expect(one?.structuredContent).toMatchObject({ masked: true, sha256: f.sha256 });
        const served = Buffer.from(one?.structuredContent?.contentBase64 as string, 'base64').toString('utf8');
        for (const m of shown.values()) expect(served).toContain(`"tfn": "${m}"`);
      }
    } finally {
      await client.close();
    }
  }, 60_000);

  it('the export carries no TFN; the audit pack holds one only in the exact lodged pay events its verifier checks byte for byte', async () => {
    const exportDir = join(work, 'export');
    const report = await exportOrganisation(t.db, {
      orgId: o.orgId,
      orgSlug: o.slug,
      from: '2000-01-01',
      to: '2099-12-31',
      dir: exportDir,
    });
    expect(report.files.length).toBeGreaterThan(0);
    for (const f of readdirSync(exportDir)) scan(`export ${f}`, readFileSync(join(exportDir, f), 'utf8'));
    expect(leaks).toEqual([]);

    const out = join(work, 'pack.tar.gz');
    await writeAuditPack(t.db, {
      orgId: o.orgId,
      orgSlug: o.slug,
      from: '2000-01-01',
      to: '2099-12-31',
      out,
      vkey: null,
      now: new Date().toISOString(),
    });
    const into = mkdtempSync(join(work, 'pack-'));
    execFileSync('tar', ['-xzf', out, '-C', into]);
    const [folder] = readdirSync(into);
    const root = join(into, folder as string);
    // The pay events are in it exactly as lodged: the verifier checks each against the SHA-256
    // its event bound, which a masked copy could not pass (docs/decisions.md "TFNs in files").
    const docs = readFileSync(join(root, 'documents.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; kind: string; path: string; sha256: string; ledgerId: string | null });
    const lodged = new Set<string>();
    for (const f of stpFiles) {
      const d = docs.find((x) => x.id === f.id);
      expect(d).toMatchObject({ kind: 'stp_pay_event', sha256: f.sha256, ledgerId: expect.any(String) });
      const bytes = readFileSync(join(root, d?.path ?? ''));
      expect(bytes.equals(readFileSync(join(lodgementDir, `${f.source}.json`)))).toBe(true);
      lodged.add(d?.path ?? '');
    }
    // They unpack owner-readable only, and the pack says it holds TFNs.
    const listing = execFileSync('tar', ['-tvzf', out], { encoding: 'utf8' }).split('\n');
    for (const path of lodged) expect(listing.find((l) => l.endsWith(`/${path}`))).toMatch(/^-rw-------/);
    expect(readFileSync(join(root, 'README.txt'), 'utf8')).toContain('tax file number (TFN) in full');
    // Nothing else in the pack holds a TFN: not the events, journals, approvals, documents.jsonl,
    // the README or any other file.
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
    const files = walk(root).filter((f) => !lodged.has(f.slice(root.length + 1)));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const bytes = readFileSync(f);
      scan(`audit pack ${f.slice(root.length + 1)}`, bytes.toString('utf8'));
      scan(`audit pack ${f.slice(root.length + 1)} (latin1)`, bytes.toString('latin1'));
    }
    expect(leaks).toEqual([]);
    const v = spawnSync(process.execPath, ['verify.mjs', '--json'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    const verdict = JSON.parse(v.stdout || '{"ok":false,"checks":[]}') as {
      ok: boolean;
      checks: { name: string; ok: boolean; detail: string }[];
      summary: { files: { bound: number; unbound: string[] } };
    };
    expect(verdict.checks.filter((c) => !c.ok)).toEqual([]);
    expect(verdict.summary.files.unbound).toEqual([]);
    expect(verdict.summary.files.bound).toBe(docs.filter((d) => d.kind !== 'receipt').length);
    expect(v.status).toBe(0);
  }, 60_000);

  it('the console: a person with payroll decision rights downloads the exact bytes; another decider gets the masked form', async () => {
    const approver = await addUser(t.db, {
      orgId: o.orgId,
      email: `approver@${o.slug}.example`,
      role: 'approver',
      password: 'approver-password-1',
    });
    // The owner decides everything (default policy); approvers decide chase steps and onboarding only.
    await setPolicy(t.db, {
      orgId: o.orgId,
      user: { id: o.owner.userId, role: 'owner' },
      patch: {
        decisionRights: {
          [ACTION_CLASS.invoiceChaseStep]: [o.owner.userId, 'role:approver'],
          [ACTION_CLASS.onboardingAdvance]: [o.owner.userId, 'role:approver'],
        },
      },
    });
    const owner = await consoleSignIn(t, o.slug, o.owner.email, o.owner.password);
    const other = await consoleSignIn(t, o.slug, approver.email, approver.password);
    for (const f of stpFiles) {
      const exact = readFileSync(join(lodgementDir, `${f.source}.json`));
      const full = await fetch(`${t.url}/console/files/${f.id}`, { headers: { cookie: owner.cookie } });
      expect(full.status).toBe(200);
      const fullBytes = Buffer.from(await full.arrayBuffer());
      expect(fullBytes.equals(exact)).toBe(true);
      expect(full.headers.get('x-content-sha256')).toBe(f.sha256);
      expect(full.headers.get('x-content-masked')).toBeNull();

      const masked = await fetch(`${t.url}/console/files/${f.id}`, { headers: { cookie: other.cookie } });
      expect(masked.status).toBe(200);
      const maskedBytes = Buffer.from(await masked.arrayBuffer());
      scan(`console download by a non-payroll decider ${f.id}`, maskedBytes.toString('utf8'));
      expect(masked.headers.get('x-content-masked')).toBe('tfn');
      expect(masked.headers.get('x-content-sha256')).toBe(f.sha256);
      expect(masked.headers.get('x-served-sha256')).toBe(createHash('sha256').update(maskedBytes).digest('hex'));
      expect(masked.headers.get('content-disposition')).toBe(`attachment; filename="${f.source}.masked.json"`);
    }
    const page = await consoleGet(t, other, '/console/files');
    expect(page.status).toBe(200);
    expect(page.text).toContain('TFNs masked');
    scan('console files page (non-payroll decider)', page.text);
    expect(leaks).toEqual([]);
  });

  it("no line of the server's log holds a TFN", () => {
    expect(logLines.length).toBeGreaterThan(0);
    for (const [i, line] of logLines.entries()) scan(`log line ${i}`, line);
    expect(leaks).toEqual([]);
  });
});

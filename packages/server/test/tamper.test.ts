/**
 * One of the hostile suites: EVERY single-character change of a stored event is
 * found by `verify` (a stored column is text, so a change that leaves valid text is a change of one
 * character: one byte for ASCII). Each column of each stored row (seq, family, kind, entity_id,
 * actor, at, payload, prev_hash, row_hash) is changed at every position, and the stored-row verifier
 * (the one `finance-desk verify` and the console use) must report a break at exactly that row.
 * The rows are read back from the database, and one tamper is also made in the database itself.
 */
import {
  ChainVerifier,
  journalLinesSha256,
  ledgerId,
  type JournalBinding,
  type JournalLineForm,
  type StoredEventRow,
} from '@finance-desk/protocol';
// The verifier as the protocol package's command runs it (not exported from its index: it reads files).
import { verifyAuditPack } from '../../protocol/dist/verify-pack.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyStoredChain } from '../src/ledger/verify.js';
import { writeAuditPack } from '../src/ops/audit-pack.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { startTestServer, type TestServer } from './harness.js';

const COLUMNS = ['family', 'kind', 'entity_id', 'actor', 'at', 'payload', 'prev_hash', 'row_hash'] as const;

function verdictOf(rows: readonly StoredEventRow[]) {
  const v = new ChainVerifier();
  for (const r of rows) if (!v.pushStored(r)) break;
  return v.verdict();
}

/** A different printable ASCII character than `c` (the change must be a change). */
const other = (c: string): string => (c === 'a' ? 'b' : c === '"' ? "'" : 'a');

describe('every single-character tamper of a stored event is detected', () => {
  let t: TestServer;
  let org: CreatedOrg;
  let rows: StoredEventRow[];
  beforeAll(async () => {
    t = await startTestServer('sqlite');
    org = await t.org();
    await t.post(org.keys.agent, 'board.createTask', { title: 'Ünïcode · tâche 🧾', priority: 'high' });
    const draft = await t.post(org.keys.agent, 'books.invoiceDraft', {
      payeeName: 'Harbour Cafe',
      payeeEmail: 'a@harbour.example',
      description: 'Catering',
      totalCents: 110_000,
      dueDays: 14,
    });
    await t.post(org.keys.agent, 'books.invoiceSend', { id: draft.body.result.id });
    await t.post(org.keys.agent, 'books.invoiceRecordPayment', {
      id: draft.body.result.id,
      amountCents: 50_000,
      reference: 'EFT "part" payment',
    });
    rows = (
      await t.db.reader.all<StoredEventRow & { seq: number }>(
        'SELECT seq, family, kind, entity_id, actor, at, payload, prev_hash, row_hash FROM events WHERE org_id = ? ORDER BY seq',
        [org.orgId],
      )
    ).map((r) => ({ ...r, seq: Number(r.seq) }));
  });
  afterAll(async () => t.close());

  it('the untouched rows verify, through the store as well', async () => {
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(rows.map((r) => r.kind)).toContain('books.invoice.payment');
    expect(verdictOf(rows)).toMatchObject({ ok: true, rows: rows.length });
    expect(await verifyStoredChain(t.db, org.orgId)).toMatchObject({ ok: true });
  });

  it('each character of each column of each row, changed, is a break at that row', () => {
    let tried = 0;
    const missed: string[] = [];
    for (const [i, row] of rows.entries()) {
      for (const column of COLUMNS) {
        const value = row[column];
        for (let at = 0; at < value.length; at += 1) {
          const changed = value.slice(0, at) + other(value[at] as string) + value.slice(at + 1);
          const tampered = rows.map((r, j) => (j === i ? { ...r, [column]: changed } : r));
          const v = verdictOf(tampered);
          tried += 1;
          const expectedSeq = row.seq;
          if (v.ok || v.seq !== expectedSeq) missed.push(`seq ${row.seq} ${column}[${at}]`);
        }
      }
      // seq itself: renumbered by one either way.
      for (const delta of [-1, 1]) {
        const v = verdictOf(rows.map((r, j) => (j === i ? { ...r, seq: r.seq + delta } : r)));
        tried += 1;
        if (v.ok) missed.push(`seq ${row.seq} seq${delta > 0 ? '+' : ''}${delta}`);
      }
    }
    console.info(
      `tamper: ${tried} single-character changes over ${rows.length} stored rows, ${tried - missed.length} detected at their row`,
    );
    expect(missed).toEqual([]);
    expect(tried).toBeGreaterThan(1000);
  });

  it('a tamper in the database itself is reported by verify at its seq', async () => {
    const target = rows[1] as StoredEventRow;
    await t.db.write(async (tx) => {
      await tx.run('UPDATE events SET payload = ? WHERE org_id = ? AND seq = ?', [
        target.payload.replace(/.$/, ' }'),
        org.orgId,
        target.seq,
      ]);
    });
    try {
      expect(await verifyStoredChain(t.db, org.orgId)).toMatchObject({ ok: false, seq: target.seq });
    } finally {
      await t.db.write(async (tx) => {
        await tx.run('UPDATE events SET payload = ? WHERE org_id = ? AND seq = ?', [target.payload, org.orgId, target.seq]);
      });
    }
  });
});

describe('every rewrite of a posted journal that keeps it balanced is detected against its event', () => {
  let t: TestServer;
  let org: CreatedOrg;
  /** Each journal as stored, with the binding its event carries. */
  let posted: { id: string; seq: number; lines: JournalLineForm[]; binding: JournalBinding }[];
  beforeAll(async () => {
    t = await startTestServer('sqlite');
    org = await t.org();
    const draft = await t.post(org.keys.agent, 'books.invoiceDraft', {
      payeeName: 'Harbour Cafe',
      description: 'Catering',
      totalCents: 110_000,
      dueDays: 14,
    });
    await t.post(org.keys.agent, 'books.invoiceSend', { id: draft.body.result.id });
    await t.post(org.keys.agent, 'books.invoiceRecordPayment', { id: draft.body.result.id, amountCents: 50_000, reference: 'EFT part' });
    const rows = await t.db.reader.all<{ seq: number; payload: string; row_hash: string }>(
      'SELECT seq, payload, row_hash FROM events WHERE org_id = ? ORDER BY seq',
      [org.orgId],
    );
    const journals = await t.db.reader.all<{ id: string; ledger_id: string }>(
      'SELECT id, ledger_id FROM journals WHERE org_id = ? ORDER BY id',
      [org.orgId],
    );
    posted = [];
    for (const j of journals) {
      const event = rows.find((r) => ledgerId(r.row_hash) === j.ledger_id);
      const binding = (JSON.parse(event?.payload ?? '{}') as { journals?: JournalBinding[] }).journals?.find((b) => b.id === j.id);
      expect(binding, `journal ${j.id} is bound by its event`).toBeDefined();
      const lines = await t.db.reader.all<{
        account_code: string;
        debit_cents: number;
        credit_cents: number;
        tax_code: string | null;
        tax_base_cents: number;
        gst_cents: number;
        doc_id: string | null;
        description: string;
      }>(
        'SELECT account_code, debit_cents, credit_cents, tax_code, tax_base_cents, gst_cents, doc_id, description FROM journal_lines WHERE org_id = ? AND journal_id = ? ORDER BY line_no',
        [org.orgId, j.id],
      );
      posted.push({
        id: j.id,
        seq: Number(event?.seq),
        binding: binding as JournalBinding,
        lines: lines.map((l) => ({
          accountCode: l.account_code,
          debitCents: Number(l.debit_cents),
          creditCents: Number(l.credit_cents),
          taxCode: l.tax_code,
          taxBaseCents: Number(l.tax_base_cents),
          gstCents: Number(l.gst_cents),
          docId: l.doc_id,
          description: l.description,
        })),
      });
    }
  });
  afterAll(async () => t.close());

  it('the stored lines hash to their bindings; every field of every line changed, and every cent moved between two lines, does not', () => {
    expect(posted.map((p) => p.lines.length)).toEqual([3, 2]);
    let tried = 0;
    const missed: string[] = [];
    const tamper = (p: (typeof posted)[number], what: string, lines: JournalLineForm[]) => {
      tried += 1;
      if (journalLinesSha256(lines) === p.binding.linesSha256) missed.push(`${p.id} ${what}`);
    };
    for (const p of posted) {
      expect(journalLinesSha256(p.lines)).toBe(p.binding.linesSha256);
      const at = (i: number, change: Partial<JournalLineForm>) => p.lines.map((l, k) => (k === i ? { ...l, ...change } : l));
      for (const [i, l] of p.lines.entries()) {
        for (const field of ['accountCode', 'description', 'docId', 'taxCode'] as const) {
          const value = l[field] ?? '';
          for (let c = 0; c < value.length; c += 1)
            tamper(
              p,
              `line ${i + 1} ${field}[${c}]`,
              at(i, { [field]: value.slice(0, c) + other(value[c] as string) + value.slice(c + 1) }),
            );
          tamper(p, `line ${i + 1} ${field} emptied or set`, at(i, { [field]: l[field] === null ? 'X' : null }));
        }
        for (const field of ['taxBaseCents', 'gstCents'] as const)
          for (const d of [-1, 1, 100]) tamper(p, `line ${i + 1} ${field}${d}`, at(i, { [field]: l[field] + d }));
        // A cent moved from this line to each other line on the same side: still balanced.
        for (const [k, m] of p.lines.entries()) {
          if (k === i) continue;
          const side = l.debitCents > 0 ? 'debitCents' : 'creditCents';
          if (m[side] === 0) continue;
          tamper(
            p,
            `1 cent of line ${i + 1} to line ${k + 1}`,
            p.lines.map((x, n) => (n === i ? { ...x, [side]: x[side] - 1 } : n === k ? { ...x, [side]: x[side] + 1 } : x)),
          );
        }
        // Every amount scaled alike (the $1 100.00 → $11.00 attack): still balanced.
        tamper(
          p,
          'scaled',
          p.lines.map((x) => ({ ...x, debitCents: x.debitCents / 100, creditCents: x.creditCents / 100 })),
        );
      }
      tamper(p, 'lines reversed', [...p.lines].reverse());
      tamper(p, 'a zero line added', [...p.lines, { ...(p.lines[0] as JournalLineForm), debitCents: 0, creditCents: 0 }]);
    }
    console.info(`tamper: ${tried} balanced rewrites of ${posted.length} journals, ${tried - missed.length} detected`);
    expect(missed).toEqual([]);
    expect(tried).toBeGreaterThan(300);
  });

  it('a journal rewritten in the database itself (still balanced) is reported by the audit pack verifier, naming it and its event', async () => {
    const invoice = posted[0]?.lines.some((l) => l.accountCode === '4000') ? posted[0] : posted[1];
    expect(invoice).toBeDefined();
    const scale = (by: string) =>
      t.db.write(async (tx) => {
        await tx.run(
          `UPDATE journal_lines SET debit_cents = debit_cents ${by}, credit_cents = credit_cents ${by}, gst_cents = gst_cents ${by}, tax_base_cents = tax_base_cents ${by} WHERE org_id = ? AND journal_id = ?`,
          [org.orgId, invoice?.id ?? ''],
        );
      });
    const dir = mkdtempSync(join(tmpdir(), 'fd-tamper-pack-'));
    await scale('/ 100');
    try {
      const out = join(dir, 'pack.tar.gz');
      await writeAuditPack(t.db, {
        orgId: org.orgId,
        orgSlug: org.slug,
        from: '2000-01-01',
        to: '2099-12-31',
        out,
        vkey: null,
        now: new Date().toISOString(),
      });
      execFileSync('tar', ['-xzf', out, '-C', dir]);
      const folder = join(dir, readdirSync(dir).find((f) => f.startsWith('audit-pack-')) as string);
      const v = await verifyAuditPack(folder);
      expect(v.ok).toBe(false);
      expect(v.checks.filter((c) => !c.ok)).toEqual([
        {
          name: 'journals',
          ok: false,
          detail: expect.stringMatching(
            new RegExp(`^${invoice?.id}: its lines hash to .* event seq ${invoice?.seq} bound: the journal was rewritten$`),
          ),
        },
      ]);
    } finally {
      await scale('* 100');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

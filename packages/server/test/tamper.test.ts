/**
 * Issue 13 item 7, one of the hostile suites: EVERY single-character change of a stored event is
 * found by `verify` (a stored column is text, so a change that leaves valid text is a change of one
 * character: one byte for ASCII). Each column of each stored row (seq, family, kind, entity_id,
 * actor, at, payload, prev_hash, row_hash) is changed at every position, and the stored-row verifier
 * (the one `finance-desk verify` and the console use) must report a break at exactly that row.
 * The rows are read back from the database, and one tamper is also made in the database itself.
 */
import { ChainVerifier, type StoredEventRow } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyStoredChain } from '../src/ledger/verify.js';
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

describe('every single-character tamper of a stored event is detected (issue 13 item 7)', () => {
  let t: TestServer;
  let org: CreatedOrg;
  let rows: StoredEventRow[];
  beforeAll(async () => {
    t = await startTestServer('sqlite');
    org = await t.org();
    await t.post(org.keys.agent, 'board.createTask', { title: 'Ünïcode · tâche 🧾', priority: 'high' });
    const draft = await t.post(org.keys.agent, 'books.invoiceDraft', { payeeName: 'Harbour Cafe', payeeEmail: 'a@harbour.example', description: 'Catering', totalCents: 110_000, dueDays: 14 });
    await t.post(org.keys.agent, 'books.invoiceSend', { id: draft.body.result.id });
    await t.post(org.keys.agent, 'books.invoiceRecordPayment', { id: draft.body.result.id, amountCents: 50_000, reference: 'EFT "part" payment' });
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
    console.info(`tamper: ${tried} single-character changes over ${rows.length} stored rows, ${tried - missed.length} detected at their row`);
    expect(missed).toEqual([]);
    expect(tried).toBeGreaterThan(1000);
  });

  it('a tamper in the database itself is reported by verify at its seq', async () => {
    const target = rows[1] as StoredEventRow;
    await t.db.write(async (tx) => {
      await tx.run('UPDATE events SET payload = ? WHERE org_id = ? AND seq = ?', [target.payload.replace(/.$/, ' }'), org.orgId, target.seq]);
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

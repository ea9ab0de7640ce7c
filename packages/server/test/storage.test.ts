import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '@finance-desk/protocol';
import { DomainError } from '../src/errors.js';
import { migrations } from '../src/schema.js';
import { insertMany } from '../src/storage/sql.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/storage/open.js';
import { PostgresDatabase } from '../src/storage/postgres.js';
import { IDEMPOTENCY_COLUMNS, inUnitOfWork } from '../src/write-path.js';
import { invoiceDraft } from '../src/domain/receivables/invoices.js';
import { BILL_INSERT } from '../src/domain/payables/bills.js';
import { engines, openTestDatabase, startTestServer, type TestServer } from './harness.js';
import type { Database } from '../src/storage/types.js';

// eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be put back, and called with the client as `this`
const originalQuery = pg.Client.prototype.query;

/**
 * Record into `sent` (emptied first) every statement PostgreSQL is sent, until restoreQuery() —
 * but the DISCARD PLANS a connection is sent on its schedule (postgres.ts, pg-replan.test.ts):
 * it comes when a connection's time has come, not with any statement counted here.
 */
function spyStatements(sent: string[]): void {
  sent.length = 0;
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0];
    const text = typeof q === 'string' ? q : (q as { text: string }).text;
    if (text !== 'DISCARD PLANS') sent.push(text);
    return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
  };
}

function restoreQuery(): void {
  pg.Client.prototype.query = originalQuery;
}

/** The statements between a spied write transaction's BEGIN (sent with its first statement) and COMMIT. */
function transactionBody(sent: readonly string[]): string[] {
  return sent.slice(sent.findIndex((q) => q.startsWith('BEGIN; ')) + 1, sent.indexOf('COMMIT'));
}

describe.each(engines)('storage (%s)', (engine) => {
  it('migrations apply once and are idempotent, also when run concurrently', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await Promise.all([db.migrate(), db.migrate()]);
      await db.migrate();
      const rows = await db.reader.all<{ id: number }>('SELECT id FROM schema_migrations ORDER BY id');
      expect(rows.map((r) => Number(r.id))).toEqual(migrations.map((m) => m.id));
    } finally {
      await db.close();
      await drop();
    }
  });

  it('a failed unit of work leaves nothing behind while its neighbours commit', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate();
      const insert = (id: string) =>
        db.write(async (tx) => {
          await tx.run("INSERT INTO organisations (id, slug, name, created_at) VALUES (?, ?, 'n', 'now')", [id, id]);
          if (id === 'org_bad') throw new Error('boom');
          return id;
        });
      const results = await Promise.allSettled([insert('org_a'), insert('org_bad'), insert('org_b')]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const ids = await db.reader.all<{ id: string }>('SELECT id FROM organisations ORDER BY id');
      expect(ids.map((r) => r.id)).toEqual(['org_a', 'org_b']);
    } finally {
      await db.close();
      await drop();
    }
  });

  it('units of work with one batch key share commits; a failing unit, even a database error, rolls back alone', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate();
      const insert = (id: string, fail: 'throw' | 'sql' | null = null) =>
        db.write(
          async (tx) => {
            await tx.run("INSERT INTO organisations (id, slug, name, created_at) VALUES (?, ?, 'n', 'now')", [id, id]);
            if (fail === 'throw') throw new Error('boom');
            // A duplicate key: the database itself refuses, mid-transaction.
            if (fail === 'sql') await tx.run("INSERT INTO organisations (id, slug, name, created_at) VALUES (?, ?, 'n', 'now')", [id, id]);
            return id;
          },
          { batchKey: 'org_same' },
        );
      const jobs: [string, 'throw' | 'sql' | null][] = Array.from({ length: 40 }, (_, i) => [
        `org_${String(i).padStart(2, '0')}`,
        i % 7 === 3 ? 'throw' : i % 11 === 5 ? 'sql' : null,
      ]);
      const results = await Promise.allSettled(jobs.map(([id, fail]) => insert(id, fail)));
      expect(results.map((r) => r.status)).toEqual(jobs.map(([, fail]) => (fail ? 'rejected' : 'fulfilled')));
      const ids = await db.reader.all<{ id: string }>('SELECT id FROM organisations ORDER BY id');
      expect(ids.map((r) => r.id)).toEqual(jobs.filter(([, fail]) => !fail).map(([id]) => id));
      // The pool is healthy afterwards: a write alone and a batch both still commit.
      await expect(insert('org_after')).resolves.toBe('org_after');
      await expect(db.write(async (tx) => (await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM organisations'))?.n)).resolves.toBe(
        jobs.filter(([, fail]) => !fail).length + 1,
      );
    } finally {
      await db.close();
      await drop();
    }
  });

  it('money columns round-trip as exact integers', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate();
      const big = 9_007_199_254_740_991; // Number.MAX_SAFE_INTEGER
      await db.write(async (tx) =>
        tx.run(
          `INSERT INTO invoices (org_id, id, status, payee_name, description, total_cents, due_days, created_at, ledger_id)
           VALUES ('o', 'i', 'draft', 'p', 'd', ?, 0, 'now', 'x')`,
          [big],
        ),
      );
      const row = await db.reader.get<{ total_cents: number }>("SELECT total_cents FROM invoices WHERE id = 'i'");
      expect(row?.total_cents).toBe(big);
    } finally {
      await db.close();
      await drop();
    }
  });
});

describe.each(engines)('INTERNAL errors (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  it('a storage failure is INTERNAL with a request id and no SQL or stack, and appends nothing', async () => {
    const org = await t.org();
    await t.db.write(async (tx) => tx.run('DROP TABLE invoices'));
    const r = await t.post(org.keys.agent, 'books.invoiceDraft', {
      payeeName: 'x',
      description: 'y',
      totalCents: 1,
      dueDays: 0,
    });
    expect(r.status).toBe(500);
    expect(r.body.ok).toBe(false);
    expect(r.body.error.code).toBe('INTERNAL');
    const requestId = r.headers.get('x-request-id');
    expect(r.body.error.message).toBe(`internal error; quote request id ${requestId} to the operator`);
    expect(JSON.stringify(r.body)).not.toMatch(/invoices|INSERT|at \w+ \(/);
    expect((await t.get(org.keys.observer, 'snapshot')).body.head.seq).toBe(1);
  });
});

describe.each(engines)('a batch of one organisation’s units of work (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  /** A board item written as a unit of work that fails before it changes anything, after, or not at all. */
  function unit(
    orgId: string,
    title: string,
    fail: 'before' | 'after-emit' | 'after-write' | null,
    calls: Map<string, number>,
    db: Database = t.db,
  ) {
    return inUnitOfWork(db, orgId, 'test', async (uow) => {
      calls.set(title, (calls.get(title) ?? 0) + 1);
      if (fail === 'before') throw new DomainError('CONFLICT', `refused ${title}`);
      const event = await uow.emit(events.itemCreated, { entityId: title, payload: { title, priority: 'normal', col: 'ready' } });
      if (fail === 'after-emit') throw new DomainError('CONFLICT', `refused ${title} after its event`);
      await uow.tx.run(
        `INSERT INTO board_items (org_id, id, title, priority, priority_rank, col, claimed_by, created_at, ledger_id)
         VALUES (?, ?, ?, 'normal', 2, 'ready', NULL, ?, ?)`,
        [orgId, title, title, uow.now, event.ledgerId],
      );
      if (fail === 'after-write') throw new DomainError('CONFLICT', `refused ${title} after its write`);
      return { id: title };
    });
  }

  type Plan = readonly ('before' | 'after-emit' | 'after-write' | null)[];
  const title = (i: number) => `item-${String(i).padStart(3, '0')}`;

  async function settle(orgId: string, plan: Plan) {
    const calls = new Map<string, number>();
    const results = await Promise.allSettled(plan.map((fail, i) => unit(orgId, title(i), fail, calls)));
    expect(results.map((r) => r.status)).toEqual(plan.map((fail) => (fail ? 'rejected' : 'fulfilled')));
    await committed(orgId, plan);
    return calls;
  }

  /** The organisation's rows and chain hold exactly the units of `plan` that succeeded. */
  async function committed(orgId: string, plan: Plan) {
    const titles = plan.map((_, i) => title(i));
    const kept = await t.db.reader.all<{ id: string; ledger_id: string }>(
      'SELECT id, ledger_id FROM board_items WHERE org_id = ? ORDER BY id',
      [orgId],
    );
    expect(kept.map((r) => r.id)).toEqual(titles.filter((_, i) => !plan[i]));
    // One event per committed unit, chained gaplessly after the organisation's creation, each the
    // one its row names; nothing of a failed unit.
    const rows = await t.db.reader.all<{ seq: number; entity_id: string; row_hash: string }>(
      'SELECT seq, entity_id, row_hash FROM events WHERE org_id = ? ORDER BY seq',
      [orgId],
    );
    expect(rows.map((r) => Number(r.seq))).toEqual(rows.map((_, i) => i + 1));
    const items = rows.slice(1);
    expect(items.map((r) => r.entity_id).sort()).toEqual(kept.map((r) => r.id));
    for (const r of kept) expect(items.find((e) => e.entity_id === r.id)?.row_hash.slice(0, 8)).toBe(r.ledger_id);
    expect(await t.db.reader.get<{ seq: number }>('SELECT seq FROM org_heads WHERE org_id = ?', [orgId])).toEqual({
      seq: rows.length,
    });
    await t.verifyAll();
  }

  it('units that fail before changing anything leave their neighbours’ events gapless, each unit run once', async () => {
    const org = await t.org();
    const plan = Array.from({ length: 60 }, (_, i) => (i % 5 === 0 ? ('before' as const) : null));
    const calls = await settle(org.orgId, plan);
    expect([...calls.values()].every((n) => n === 1)).toBe(true);
  });

  it('a unit failing after its event or its write takes back exactly its own rows and event', async () => {
    const org = await t.org();
    // The first unit of each batch (the first goes alone) fails after a write: on PostgreSQL its savepoint held the
    // head's lock; the next unit must lock it again (restore in write-path.ts).
    const plan = Array.from({ length: 60 }, (_, i) =>
      i <= 1
        ? ('after-write' as const)
        : i % 7 === 3
          ? ('after-emit' as const)
          : i % 9 === 4
            ? ('after-write' as const)
            : i % 5 === 0
              ? ('before' as const)
              : null,
    );
    await settle(org.orgId, plan);
  });

  it('units of many organisations at once, from two processes: each chain holds exactly its own; on PostgreSQL organisations share commits', async () => {
    const orgs = await Promise.all(Array.from({ length: 12 }, () => t.org()));
    const plan: Plan = Array.from({ length: 12 }, (_, i) =>
      i === 0 ? ('after-write' as const) : i % 5 === 2 ? ('after-emit' as const) : i % 4 === 3 ? ('before' as const) : null,
    );
    // A process with two connections for twelve organisations: batches wait for a connection, and
    // the one that has it takes the waiting organisations' units.
    const other = t.another(2);
    try {
      const calls = new Map<string, number>();
      // Interleaved: every organisation's first unit, then every second one, … half through each process.
      const runs = plan.flatMap((fail, i) =>
        orgs.map((o, k) => ({ ok: fail === null, done: unit(o.orgId, title(i), fail, calls, (i + k) % 4 === 0 ? t.db : other) })),
      );
      const results = await Promise.allSettled(runs.map((r) => r.done));
      expect(results.map((r) => r.status)).toEqual(runs.map((r) => (r.ok ? 'fulfilled' : 'rejected')));
      for (const o of orgs) await committed(o.orgId, plan);
      if (engine === 'postgres') {
        // Rows inserted by one transaction carry its id (xmin): some transaction wrote events of several organisations.
        const shared = await t.db.reader.get<{ n: number | string }>(
          `SELECT MAX(n) AS n FROM (SELECT COUNT(DISTINCT org_id) AS n FROM events WHERE org_id IN (${orgs.map(() => '?').join(', ')}) GROUP BY xmin::text) x`,
          orgs.map((o) => o.orgId),
        );
        expect(Number(shared?.n)).toBeGreaterThan(1);
      }
    } finally {
      await other.close();
    }
  });
});

describe.each(engines)('the settings a batch keeps (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  it('a unit sees a lock date that an earlier unit of its batch set, and not one that a failed unit set', async () => {
    const org = await t.org();
    // By unit: a batch that is run again (PostgreSQL, after a unit failed having changed
    // something) runs its units again, and the last run is the one that commits.
    const seen = new Map<number, string | null>();
    const look = (i: number) =>
      inUnitOfWork(t.db, org.orgId, 'test', (uow) => {
        seen.set(i, uow.lockDate);
        return Promise.resolve({ noop: true });
      });
    const setLock = (date: string, fail: boolean) =>
      inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
        await uow.tx.run('UPDATE organisations SET lock_date = ? WHERE id = ?', [date, uow.orgId]);
        if (fail) throw new DomainError('CONFLICT', 'refused');
        return { noop: true };
      });
    // On PostgreSQL the first unit runs alone and the rest share the next batch; on SQLite all
    // of them share one.
    const results = await Promise.allSettled([
      look(0),
      look(1),
      setLock('2026-01-31', false),
      look(3),
      setLock('2026-06-30', true),
      look(5),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect([...seen.entries()].sort((a, b) => a[0] - b[0])).toEqual([
      [0, null],
      [1, null],
      [3, '2026-01-31'],
      [5, '2026-01-31'],
    ]);
  });
});

describe.each(engines)('the invoice sequence a batch keeps (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  it('moves with the units that move it, follows an owner’s change, and forgets a failed unit’s move', async () => {
    const org = await t.org();
    const seen = new Map<number, number>();
    const take = (i: number, fail = false) =>
      inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
        const seq = await uow.invoiceSequence();
        seen.set(i, seq.next);
        await uow.moveInvoiceSequence(seq.next + 1);
        if (fail) throw new DomainError('CONFLICT', 'refused');
        return { noop: true };
      });
    const ownerSets = (next: number) =>
      inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
        await uow.tx.run('UPDATE organisations SET invoice_prefix = ?, invoice_next = ? WHERE id = ?', ['INV-', next, uow.orgId]);
        return { noop: true };
      });
    const results = await Promise.allSettled([take(0), take(1), take(2), ownerSets(500), take(4), take(5, true), take(6)]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect([...seen.entries()].filter(([i]) => i !== 5).sort((a, b) => a[0] - b[0])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [4, 500],
      [6, 501],
    ]);
    expect(await t.db.reader.get('SELECT invoice_next FROM organisations WHERE id = ?', [org.orgId])).toEqual({ invoice_next: 502 });
  });

  it('is written once per batch, yet a unit that reads organisations sees it moved, and a failed unit’s move is undone', async () => {
    const org = await t.org();
    const take = (fail = false) =>
      inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
        const seq = await uow.invoiceSequence();
        await uow.moveInvoiceSequence(seq.next + 1);
        if (fail) throw new DomainError('CONFLICT', 'refused');
        return { noop: true };
      });
    const read = () =>
      inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
        const row = await uow.tx.get<{ invoice_next: number }>('SELECT invoice_next FROM organisations WHERE id = ?', [uow.orgId]);
        return { noop: true, next: Number(row?.invoice_next) };
      });
    const results = await Promise.allSettled([take(), take(), read(), take(), take(true), read(), take()]);
    const values = results.map((r) => (r.status === 'fulfilled' ? ('next' in r.value ? r.value.next : 'ok') : 'refused'));
    expect(values).toEqual(['ok', 'ok', 3, 'ok', 'refused', 4, 'ok']);
    expect(await t.db.reader.get('SELECT invoice_next FROM organisations WHERE id = ?', [org.orgId])).toEqual({ invoice_next: 5 });
  });

  it('a number the batch kept as free but another path took in the same batch: refused at write-out, the batch runs again exactly', async () => {
    const org = await t.org();
    const draft = () =>
      inUnitOfWork(t.db, org.orgId, 'test', (uow) =>
        invoiceDraft({ payeeName: 'Kept Pty Ltd', description: 'Work', totalCents: 1100, dueDays: 14 }, uow),
      );
    // Numbered by hand outside invoiceDraft (as opening balances does), after the first draft read the window.
    const byHand = (number: string) =>
      inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
        await uow.tx.run(
          `INSERT INTO invoices (org_id, id, number, status, payee_name, description, total_cents, due_days, created_at, ledger_id)
           VALUES (?, ?, ?, 'draft', 'Hand', 'by hand', 100, 14, ?, 'led_none')`,
          [uow.orgId, `inv_hand_${number}`, number, uow.now],
        );
        return { noop: true };
      });
    // Issued in one tick: on PostgreSQL one batch (its first attempt keeps the window; the
    // by-hand number makes the third draft's kept answer stale); on SQLite every look-up is exact.
    const results = await Promise.all([draft(), byHand('INV-0003'), draft(), draft(), draft()]);
    const numbers = results.filter((r): r is Awaited<ReturnType<typeof draft>> => 'number' in r).map((r) => r.number);
    expect(numbers).toEqual(['INV-0001', 'INV-0002', 'INV-0004', 'INV-0005']);
    expect(await t.db.reader.get('SELECT invoice_next FROM organisations WHERE id = ?', [org.orgId])).toEqual({ invoice_next: 6 });
    await t.verifyAll();
  });
});

describe.each(engines)('writes sent later (%s)', (engine) => {
  it('queued writes are in the transaction before its next statement, a parent before its children, and commit with it', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate();
      const seen = await db.write(async (tx) => {
        await tx.later("INSERT INTO organisations (id, slug, name, created_at) VALUES (?, ?, 'n', 'now')", ['org_p', 'org_p']);
        await tx.later("INSERT INTO org_heads (org_id, seq, row_hash) VALUES (?, 0, '')", ['org_p']);
        await tx.later('UPDATE organisations SET name = ? WHERE id = ?', ['renamed', 'org_p']);
        await tx.later('UPDATE organisations SET name = ? WHERE id = ?', ['renamed twice', 'org_p']);
        return tx.get<{ name: string; seq: number }>(
          'SELECT o.name, h.seq FROM organisations o JOIN org_heads h ON h.org_id = o.id WHERE o.id = ?',
          ['org_p'],
        );
      });
      expect(seen).toEqual({ name: 'renamed twice', seq: 0 });
      // Queued at the very end: still committed with the transaction.
      await db.write(async (tx) => {
        await tx.later('UPDATE organisations SET name = ? WHERE id = ?', ['last', 'org_p']);
      });
      expect(await db.reader.get('SELECT name FROM organisations WHERE id = ?', ['org_p'])).toEqual({ name: 'last' });
      await expect(db.write(async (tx) => tx.later('SELECT 1'))).rejects.toThrow(/INSERT, UPDATE or DELETE/);
      await expect(db.write(async (tx) => tx.later("DELETE FROM organisations WHERE id = 'x' RETURNING id"))).rejects.toThrow(/RETURNING/);
    } finally {
      await db.close();
      await drop();
    }
  });

  it('a queued write that reads or changes rows of earlier queued writes sees them; one that cannot see them shares their statement', async () => {
    const { db, drop } = await openTestDatabase(engine);
    const sent: string[] = [];
    try {
      await db.migrate();
      const insertOrg = 'INSERT INTO organisations (id, slug, name, created_at) VALUES (?, ?, ?, ?)';
      const seen = await db.write(async (tx) => {
        for (const id of ['org_q1', 'org_q2', 'org_q3']) await tx.later(insertOrg, [id, id, 'one', 'now']);
        // Changes a row queued just before: it must see it.
        await tx.later('UPDATE organisations SET name = ? WHERE id = ?', ['renamed', 'org_q2']);
        await tx.later("INSERT INTO org_heads (org_id, seq, row_hash) VALUES (?, 0, '')", ['org_q1']);
        // Reads a table a queued write wrote, in a subquery: it must see the row.
        await tx.later('UPDATE organisations SET name = (SELECT CAST(count(*) AS TEXT) FROM org_heads) WHERE id = ?', ['org_q3']);
        // Names organisations: not combined with writes it could not see.
        const changed = await tx.run("UPDATE organisations SET name = name || '!' WHERE id = ?", ['org_q1']);
        return { changed: changed.changes, rows: await tx.all('SELECT id, name FROM organisations ORDER BY id') };
      });
      expect(seen).toEqual({
        changed: 1,
        rows: [
          { id: 'org_q1', name: 'one!' },
          { id: 'org_q2', name: 'renamed' },
          { id: 'org_q3', name: '1' },
        ],
      });
      // Thirty plain inserts of one text, then a statement that names none of their tables.
      spyStatements(sent);
      const counted = await db.write(async (tx) => {
        for (let i = 0; i < 30; i += 1) await tx.later(insertOrg, [`org_m${String(i).padStart(2, '0')}`, `m${i}`, 'm', 'now']);
        return tx.get<{ n: number | string }>('SELECT count(*) AS n FROM org_heads');
      });
      restoreQuery();
      expect(Number(counted?.n)).toBe(1);
      expect(
        Number((await db.reader.get<{ n: number | string }>("SELECT count(*) AS n FROM organisations WHERE id LIKE 'org_m%'"))?.n),
      ).toBe(30);
      // PostgreSQL: BEGIN, one statement for the thirty rows and the read, COMMIT.
      if (engine === 'postgres') expect(sent.filter((q) => !/^(?:BEGIN|COMMIT)$/.test(q))).toHaveLength(1);
      // Bounded: 8 000 rows of four parameters are past 30 000 parameters a statement, so two.
      spyStatements(sent);
      await db.write(async (tx) => {
        for (let i = 0; i < 8000; i += 1) await tx.later(insertOrg, [`org_b${String(i).padStart(4, '0')}`, `b${i}`, 'b', 'now']);
      });
      restoreQuery();
      expect(
        Number((await db.reader.get<{ n: number | string }>("SELECT count(*) AS n FROM organisations WHERE id LIKE 'org_b%'"))?.n),
      ).toBe(8000);
      if (engine === 'postgres') expect(sent.filter((q) => !/^(?:BEGIN|COMMIT)$/.test(q))).toHaveLength(2);
    } finally {
      restoreQuery();
      await db.close();
      await drop();
    }
  });

  it('BEGIN rides with the first statement when its parameters are plain ids, else goes alone; either way one transaction', async () => {
    const { db, drop } = await openTestDatabase(engine);
    const sent: string[] = [];
    const insertOrg = 'INSERT INTO organisations (id, slug, name, created_at) VALUES (?, ?, ?, ?)';
    const count = async (id: string) =>
      Number((await db.reader.get<{ n: number | string }>('SELECT count(*) AS n FROM organisations WHERE id = ?', [id]))?.n);
    try {
      await db.migrate();
      await db.write(async (tx) => tx.run(insertOrg, ['org_b1', 'b1', 'one', 'now']));
      // Plain ids: one round trip for BEGIN and the statement (the batch's head lock is such a statement).
      spyStatements(sent);
      const row = await db.write(async (tx) => tx.get<{ name: string }>('SELECT name FROM organisations WHERE id = ?', ['org_b1']));
      restoreQuery();
      expect(row).toEqual({ name: 'one' });
      if (engine === 'postgres') {
        expect(sent[0]).toBe("BEGIN; SELECT name FROM organisations WHERE id = 'org_b1'");
        expect(sent).not.toContain('BEGIN');
      }
      // A parameter that is not a plain id (a quote): never written into the text; BEGIN goes first.
      spyStatements(sent);
      const quoted = await db.write(async (tx) =>
        tx.get<{ n: number | string }>('SELECT count(*) AS n FROM organisations WHERE name = ?', ["o'clock"]),
      );
      restoreQuery();
      expect(Number(quoted?.n)).toBe(0);
      if (engine === 'postgres') expect(sent.slice(0, 2)).toEqual(['BEGIN', 'SELECT count(*) AS n FROM organisations WHERE name = $1']);
      // Either way the statements are in the transaction: a unit that fails takes its insert back.
      for (const name of ['plain', "o'clock"]) {
        const id = name === 'plain' ? 'org_b2' : 'org_b3';
        await expect(
          db.write(async (tx) => {
            await tx.run(insertOrg, [id, id, name, 'now']);
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        expect(await count(id)).toBe(0);
      }
      // And in a batch: the batch's prelude carries BEGIN; a failed batch leaves nothing.
      await expect(
        db.write(
          async (tx) => {
            await tx.run(insertOrg, ['org_b4', 'b4', 'n', 'now']);
            throw new Error('boom');
          },
          { batchKey: 'org_b1', prelude: async (tx) => void (await tx.get('SELECT id FROM organisations WHERE id = ?', ['org_b1'])) },
        ),
      ).rejects.toThrow('boom');
      expect(await count('org_b4')).toBe(0);
    } finally {
      restoreQuery();
      await db.close();
      await drop();
    }
  });

  it('a unit whose queued write the database refuses fails alone, and a failed unit’s queued writes are not sent', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate();
      const unit = (id: string, fail: 'refused' | 'throw' | null) =>
        db.write(
          async (tx) => {
            // Plain inserts of one text: on PostgreSQL the batch's go out as one multi-row INSERT.
            await tx.later('INSERT INTO organisations (id, slug, name, created_at) VALUES (?, ?, ?, ?)', [id, id, 'n', 'now']);
            // The same key again: refused by the database when the write goes out.
            if (fail === 'refused')
              await tx.later('INSERT INTO organisations (id, slug, name, created_at) VALUES (?, ?, ?, ?)', [id, `${id}-2`, 'n', 'now']);
            if (fail === 'throw') throw new Error('boom');
            return id;
          },
          { batchKey: 'org_same' },
        );
      const plan: [string, 'refused' | 'throw' | null][] = Array.from({ length: 30 }, (_, i) => [
        `org_${String(i).padStart(2, '0')}`,
        i % 6 === 2 ? 'refused' : i % 7 === 4 ? 'throw' : null,
      ]);
      const results = await Promise.allSettled(plan.map(([id, fail]) => unit(id, fail)));
      expect(results.map((r) => r.status)).toEqual(plan.map(([, fail]) => (fail ? 'rejected' : 'fulfilled')));
      const ids = await db.reader.all<{ id: string }>('SELECT id FROM organisations ORDER BY id');
      expect(ids.map((r) => r.id)).toEqual(plan.filter(([, fail]) => !fail).map(([id]) => id));
    } finally {
      await db.close();
      await drop();
    }
  });

  it('a unit that swallows a statement error is not acknowledged as committed', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate();
      await db.write((tx) => tx.run("INSERT INTO organisations (id, slug, name, created_at) VALUES ('org_a', 'a', 'n', 'now')"));
      const swallow = db.write(async (tx) => {
        await tx.run("INSERT INTO organisations (id, slug, name, created_at) VALUES ('org_b', 'b', 'n', 'now')");
        await tx.run("INSERT INTO organisations (id, slug, name, created_at) VALUES ('org_a', 'a', 'n', 'now')").catch(() => undefined);
        return 'ok';
      });
      if (engine === 'postgres') {
        // PostgreSQL aborted the transaction at the refused statement: COMMIT answers ROLLBACK.
        await expect(swallow).rejects.toThrow();
        expect(await db.reader.get("SELECT id FROM organisations WHERE id = 'org_b'")).toBeUndefined();
      } else {
        // SQLite refuses the statement alone; the rest of the unit stands.
        await expect(swallow).resolves.toBe('ok');
        expect(await db.reader.get("SELECT id FROM organisations WHERE id = 'org_b'")).toEqual({ id: 'org_b' });
      }
    } finally {
      await db.close();
      await drop();
    }
  });
});

describe.each(engines)('reads a batch keeps (%s)', (engine) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  it('concurrent drafts for one new payee find the contact the first of them created', async () => {
    const org = await t.org();
    const replies = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        t.post(org.keys.agent, 'books.invoiceDraft', {
          payeeName: 'Brand New Customer Pty Ltd',
          ...(i % 3 === 0 ? { payeeEmail: `accounts${i}@brandnew.example` } : {}),
          description: `Job ${i}`,
          totalCents: 1000 + i,
          dueDays: 14,
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
    const contactIds = new Set(replies.map((r) => r.body.result.contactId));
    expect(contactIds.size).toBe(1);
    const contacts = await t.db.reader.all('SELECT id FROM contacts WHERE org_id = ?', [org.orgId]);
    expect(contacts).toHaveLength(1);
    const numbers = replies.map((r) => r.body.result.number).sort();
    expect(new Set(numbers).size).toBe(24);
    await t.verifyAll();
  });

  it('readTogether answers as the reads one by one would, keeps the batch-cached ones, and forgets them on a change', async () => {
    const org = await t.org();
    await t.post(org.keys.agent, 'books.invoiceDraft', {
      payeeName: 'Together Pty',
      payeeEmail: 'ap@together.example',
      description: 'x',
      totalCents: 1_000,
      dueDays: 7,
    });
    await t.post(org.keys.agent, 'books.invoiceDraft', { payeeName: 'No Mail Co', description: 'y', totalCents: 2_000, dueDays: 7 });
    // The texts invoice-lines.ts and contacts.ts register with batchCached, a read that is not
    // kept, and a read of no rows: text, BIGINT and null columns.
    const ACCOUNT_TYPE = 'SELECT type, archived_at FROM accounts WHERE org_id = ? AND code = ?';
    const PARTY_BY_KEY = 'SELECT id, email, is_customer, is_supplier FROM contacts WHERE org_id = ? AND name_key = ?';
    const reads = [
      [ACCOUNT_TYPE, [org.orgId, '4000']],
      [ACCOUNT_TYPE, [org.orgId, '9999']],
      [PARTY_BY_KEY, [org.orgId, 'together pty']],
      [PARTY_BY_KEY, [org.orgId, 'no mail co']],
      ['SELECT number, total_cents, issued_on FROM invoices WHERE org_id = ? ORDER BY number', [org.orgId]],
    ] as const;
    const oneByOne = await inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
      const out: unknown[] = [];
      for (const [sql, params] of reads) out.push(await uow.tx.all(sql, params));
      return { out, noop: true };
    });
    expect(oneByOne.out[2]).toEqual([expect.objectContaining({ email: 'ap@together.example', is_customer: 1, is_supplier: 0 })]);
    expect(oneByOne.out[3]).toEqual([expect.objectContaining({ email: null })]);
    expect(oneByOne.out[1]).toEqual([]);
    const sent: string[] = [];
    try {
      const together = await inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
        spyStatements(sent);
        const out = await uow.readTogether(reads);
        // Kept by the batch: read again, the cached texts send nothing.
        const again = await uow.tx.get<{ type: string }>(ACCOUNT_TYPE, [org.orgId, '4000']);
        const sentBefore = sent.length;
        // A change to accounts forgets the kept answer: the next read goes to the database.
        await uow.tx.run('UPDATE accounts SET name = name WHERE org_id = ? AND code = ?', [org.orgId, '4000']);
        await uow.tx.get(ACCOUNT_TYPE, [org.orgId, '4000']);
        restoreQuery();
        return { out, again, sentBefore, noop: true };
      });
      expect(together.out).toEqual(oneByOne.out);
      expect(together.again).toEqual({ type: 'revenue', archived_at: null });
      // A number JSON cannot carry exactly is refused, never rounded (PostgreSQL: the JSON path).
      const big = inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
        await uow.readTogether([
          ['SELECT 9007199254740993 AS n', []],
          [ACCOUNT_TYPE, [org.orgId, '4000']],
        ]);
        return { noop: true };
      });
      if (engine === 'postgres') await expect(big).rejects.toThrow(/not a safe integer/);
      else await big.catch(() => undefined);
      if (engine === 'postgres') {
        // One statement for the five reads (the batch's lock was taken before), none for the kept one.
        expect(together.sentBefore).toBe(1);
        expect(sent[0]).toMatch(/json_agg/);
        expect(sent.slice(1).filter((q) => /\bFROM accounts\b/.test(q))).toHaveLength(1);
        expect(sent.slice(1).filter((q) => /^UPDATE accounts/.test(q))).toHaveLength(1);
      }
    } finally {
      restoreQuery();
    }
  });

  it('a lone invoiceDraft reads its number window, account and payee in one round trip (PostgreSQL)', async () => {
    const org = await t.org();
    const draft = (i: number) =>
      t.post(org.keys.agent, 'books.invoiceDraft', {
        payeeName: 'Round Trip Pty',
        description: `d${i}`,
        totalCents: 1_000 + i,
        dueDays: 7,
      });
    expect((await draft(0)).status).toBe(200);
    const sent: string[] = [];
    try {
      spyStatements(sent);
      const res = await draft(1);
      restoreQuery();
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({ payeeName: 'Round Trip Pty', totalCents: 1_001 });
      if (engine === 'postgres') {
        // The draft's transaction: BEGIN with the head lock, the three reads, the write-out, COMMIT.
        const from = sent.findIndex((q) => q.startsWith('BEGIN; '));
        const to = sent.indexOf('COMMIT');
        expect(sent.slice(from, to + 1)).toHaveLength(4);
        expect(sent[from + 1]).toMatch(/json_agg[\s\S]*FROM invoices[\s\S]*FROM accounts[\s\S]*FROM contacts/);
      }
    } finally {
      restoreQuery();
    }
  });

  it('a billCapture from a known supplier reads its accounts, supplier, bank history and policy in one round trip, and writes in one more (PostgreSQL)', async () => {
    const org = await t.org();
    const bill = (i: number) =>
      t.post(org.keys.agent, 'books.billCapture', {
        payeeName: 'Known Supplies Pty',
        description: `b${i}`,
        totalCents: 10_000 + i,
        dueDays: 14,
        payeeBsb: '062-000',
        payeeAccountNumber: '12345678',
        payeeAccountName: 'Known Supplies',
      });
    expect((await bill(0)).status).toBe(200);
    const sent: string[] = [];
    try {
      spyStatements(sent);
      const res = await bill(1);
      restoreQuery();
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({
        payeeName: 'Known Supplies Pty',
        totalCents: 10_001,
        status: 'held',
        heldReason: 'NEW_PAYEE',
      });
      if (engine === 'postgres') {
        const unit = transactionBody(sent);
        // The reads: one statement; after it, nothing reads what it read.
        expect(unit[0]).toMatch(/json_agg[\s\S]*FROM accounts[\s\S]*FROM contacts[\s\S]*FROM bills[\s\S]*FROM bills[\s\S]*FROM policies/);
        // Then the bill, its lines, the event and the head go out together: the body is the reads
        // and the write-out.
        expect(unit, unit.join('\n---\n')).toHaveLength(2);
        expect(unit[1]).toMatch(/INSERT INTO bills[\s\S]*INSERT INTO bill_lines[\s\S]*INSERT INTO events/);
      }
    } finally {
      restoreQuery();
    }
  });

  it('a journalPost reads its accounts in one statement and writes journal, lines and event in one more (PostgreSQL)', async () => {
    const org = await t.org();
    const today = new Date().toISOString().slice(0, 10);
    const post = (i: number) =>
      t.post(org.keys.agent, 'books.journalPost', {
        date: today,
        memo: `queued ${i}`,
        lines: [
          { accountCode: '6000', debitCents: 1_000 + i },
          { accountCode: '1000', creditCents: 1_000 + i },
        ],
      });
    expect((await post(0)).status).toBe(200);
    const sent: string[] = [];
    try {
      spyStatements(sent);
      const res = await post(1);
      restoreQuery();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const lines = await t.db.reader.all<{ account_code: string; debit_cents: number; credit_cents: number }>(
        'SELECT l.account_code, l.debit_cents, l.credit_cents FROM journal_lines l JOIN journals j ON j.org_id = l.org_id AND j.id = l.journal_id WHERE j.org_id = ? AND j.memo = ? ORDER BY l.line_no',
        [org.orgId, 'queued 1'],
      );
      expect(lines.map((l) => [l.account_code, Number(l.debit_cents), Number(l.credit_cents)])).toEqual([
        ['6000', 1_001, 0],
        ['1000', 0, 1_001],
      ]);
      if (engine === 'postgres') {
        const body = transactionBody(sent);
        // The two accounts in one read, then journal, lines and event in one write.
        expect(body, body.join('\n---\n')).toHaveLength(2);
        expect(body[0]).toMatch(/json_agg[\s\S]*FROM accounts[\s\S]*FROM accounts/);
        expect(body[1]).toMatch(
          /INSERT INTO journals[\s\S]*INSERT INTO journal_lines[\s\S]*INSERT INTO account_day_totals[\s\S]*INSERT INTO events/,
        );
      }
    } finally {
      restoreQuery();
    }
  });

  it('queued additive upserts of one text go out as one statement, rows of one key added first', async () => {
    const { db, drop } = await openTestDatabase(engine);
    const sent: string[] = [];
    try {
      await db.migrate();
      const upsert = `INSERT INTO account_day_totals (org_id, account_code, date, debit_cents, credit_cents, lines)
        VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (org_id, account_code, date) DO UPDATE SET
          debit_cents = account_day_totals.debit_cents + excluded.debit_cents,
          credit_cents = account_day_totals.credit_cents + excluded.credit_cents,
          lines = account_day_totals.lines + excluded.lines`;
      await db.write(async (tx) => {
        await tx.later(upsert, ['o1', '1000', '2026-01-01', 100, 0, 1]);
        return null;
      });
      spyStatements(sent);
      await db.write(async (tx) => {
        await tx.later(upsert, ['o1', '1000', '2026-01-01', 5, 0, 1]);
        await tx.later(upsert, ['o1', '4000', '2026-01-01', 0, 7, 1]);
        // The same key again in the same write-out: one statement may not change a row twice.
        await tx.later(upsert, ['o1', '1000', '2026-01-01', 20, 3, 2]);
        return null;
      });
      restoreQuery();
      if (engine === 'postgres') {
        const upserts = sent.filter((q) => /INSERT INTO account_day_totals/.test(q));
        expect(upserts, sent.join('\n---\n')).toHaveLength(1);
        expect((upserts[0]?.match(/\(\$\d+, \$\d+, \$\d+, \$\d+, \$\d+, \$\d+\)/g) ?? []).length).toBe(2);
      }
      const rows = await db.reader.all<{ account_code: string; debit_cents: number; credit_cents: number; lines: number }>(
        'SELECT account_code, debit_cents, credit_cents, lines FROM account_day_totals WHERE org_id = ? ORDER BY account_code',
        ['o1'],
      );
      expect(rows.map((r) => [r.account_code, Number(r.debit_cents), Number(r.credit_cents), Number(r.lines)])).toEqual([
        ['1000', 125, 3, 4],
        ['4000', 0, 7, 1],
      ]);
    } finally {
      restoreQuery();
      await db.close();
      await drop();
    }
  });

  it('a write forgets only the kept reads of the tables it writes, and none that declare it harmless', async () => {
    const org = await t.org();
    expect(
      (await t.post(org.keys.agent, 'books.billCapture', { payeeName: 'Kept Reads Pty', description: 'x', totalCents: 1_000, dueDays: 7 }))
        .status,
    ).toBe(200);
    // Texts registered with batchCached (invoice-lines.ts, contacts.ts, bills.ts).
    const ACCOUNT_TYPE = 'SELECT type, archived_at FROM accounts WHERE org_id = ? AND code = ?';
    const PARTY_BY_KEY = 'SELECT id, email, is_customer, is_supplier FROM contacts WHERE org_id = ? AND name_key = ?';
    const PAYEE_APPROVED = 'SELECT id FROM bills WHERE org_id = ? AND payee_key = ? AND approved_at IS NOT NULL LIMIT 1';
    const sent: string[] = [];
    const reads = (q: string) => sent.filter((x) => x.startsWith(q.split(' WHERE ')[0] ?? q)).length;
    try {
      const seen = await inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
        const account = () => uow.tx.get<{ type: string }>(ACCOUNT_TYPE, [uow.orgId, '4000']);
        const party = () => uow.tx.get<{ id: string }>(PARTY_BY_KEY, [uow.orgId, 'kept reads pty']);
        const approved = () => uow.tx.get<{ id: string }>(PAYEE_APPROVED, [uow.orgId, 'kept reads pty']);
        await account();
        await party();
        const before = await approved();
        spyStatements(sent);
        // accounts changed: its kept read goes again; contacts' and bills' stay.
        await uow.tx.run('UPDATE accounts SET name = name WHERE org_id = ? AND code = ?', [uow.orgId, '4000']);
        await account();
        await party();
        await approved();
        const afterAccounts = { accounts: reads(ACCOUNT_TYPE), contacts: reads(PARTY_BY_KEY), bills: reads(PAYEE_APPROVED) };
        // A new bill has approved_at NULL: PAYEE_APPROVED declares BILL_INSERT harmless.
        await uow.tx.run(BILL_INSERT, [
          uow.orgId,
          'bill_kept_reads_test',
          'captured',
          'Kept Reads Pty',
          'kept reads pty',
          null,
          'y',
          500,
          0,
          7,
          '2026-01-01',
          '2026-01-08',
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          uow.now,
          '',
        ]);
        const afterInsert = await approved();
        const insertRead = reads(PAYEE_APPROVED);
        // Approving one changes the answer: that write is not declared harmless, so it is read again.
        await uow.tx.run('UPDATE bills SET approved_at = ? WHERE org_id = ? AND id = ?', [uow.now, uow.orgId, 'bill_kept_reads_test']);
        const afterApproval = await approved();
        restoreQuery();
        return { before, afterAccounts, afterInsert, insertRead, afterApproval, approvalRead: reads(PAYEE_APPROVED), noop: true };
      });
      expect(seen.before).toBeUndefined();
      expect(seen.afterInsert).toBeUndefined();
      expect(seen.afterApproval).toEqual({ id: 'bill_kept_reads_test' });
      if (engine === 'postgres') {
        expect(seen.afterAccounts).toEqual({ accounts: 1, contacts: 0, bills: 0 });
        expect(seen.insertRead).toBe(0);
        expect(seen.approvalRead).toBe(1);
      }
    } finally {
      restoreQuery();
    }
  });

  it('a kept read is forgotten when a unit changes its table, and when a unit fails', async () => {
    const org = await t.org();
    // The text invoice-lines.ts registers with batchCached.
    const ACCOUNT_TYPE = 'SELECT type, archived_at FROM accounts WHERE org_id = ? AND code = ?';
    const seen = new Map<number, string | undefined>();
    const look = (i: number) =>
      inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
        seen.set(i, (await uow.tx.get<{ type: string }>(ACCOUNT_TYPE, [uow.orgId, '4000']))?.type);
        return { noop: true };
      });
    const retype = (type: string, fail: boolean) =>
      inUnitOfWork(t.db, org.orgId, 'test', async (uow) => {
        await uow.tx.run('UPDATE accounts SET type = ? WHERE org_id = ? AND code = ?', [type, uow.orgId, '4000']);
        // Read back inside the unit: the kept answer must not hide the unit's own change.
        seen.set(-1, (await uow.tx.get<{ type: string }>(ACCOUNT_TYPE, [uow.orgId, '4000']))?.type);
        if (fail) throw new DomainError('CONFLICT', 'refused');
        return { noop: true };
      });
    const results = await Promise.allSettled([
      look(0),
      look(1),
      retype('expense', false),
      look(3),
      retype('asset', true),
      look(5),
      look(6),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect([...seen.entries()].filter(([i]) => i >= 0).sort((a, b) => a[0] - b[0])).toEqual([
      [0, 'revenue'],
      [1, 'revenue'],
      [3, 'expense'],
      [5, 'expense'],
      [6, 'expense'],
    ]);
  });
});

describe.each(engines)('insertMany (%s)', (engine) => {
  it('writes every row as given, whatever the text holds', async () => {
    const { db, drop } = await openTestDatabase(engine);
    try {
      await db.migrate();
      const awkward = [
        '',
        'plain',
        'a "quoted" word',
        'back\\slash \\" and \\\\',
        '{braces},commas',
        'NULL',
        'null',
        ' spaced ',
        'ünïcødé 😀',
        'line\nbreak\ttab',
        "it's",
      ];
      const rows = awkward.map((text, i) => ['org_x', `cred_${i}`, `key_${i}`, 'm', 'h', text, `2026-01-0${(i % 9) + 1}`]);
      const written = await db.write((tx) => insertMany(tx, db.caps, 'idempotency', IDEMPOTENCY_COLUMNS, rows));
      expect(written).toBe(awkward.length);
      const back = await db.reader.all<{ idem_key: string; result: string }>(
        'SELECT idem_key, result FROM idempotency ORDER BY credential_id',
      );
      const byKey = new Map(back.map((r) => [r.idem_key, r.result]));
      awkward.forEach((text, i) => expect(byKey.get(`key_${i}`)).toBe(text));
      expect(await db.write((tx) => insertMany(tx, db.caps, 'idempotency', [['org_id', 'text']], []))).toBe(0);
    } finally {
      await db.close();
      await drop();
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('DATABASE_POOL_SIZE', () => {
  it('sizes the PostgreSQL pool of a server process', async () => {
    const config = loadConfig({ DATABASE_URL: process.env.TEST_DATABASE_URL, DATABASE_POOL_SIZE: '24' });
    expect(config.databasePoolSize).toBe(24);
    expect(loadConfig({ DATABASE_URL: process.env.TEST_DATABASE_URL }).databasePoolSize).toBe(10);
    const db = openDatabase(config.databaseUrl, { migrations, poolSize: config.databasePoolSize });
    try {
      expect(db).toBeInstanceOf(PostgresDatabase);
      expect((db as PostgresDatabase).pool.options.max).toBe(24);
    } finally {
      await db.close();
    }
  });
});

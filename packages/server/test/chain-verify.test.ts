/**
 * The chain verifier reads one consistent snapshot, checks the exact
 * stored bytes and names the seq and reason of any break, and the console verifies from a stored
 * head. While writes land, the CLI runs as a real separate process against the server's own
 * database, as an operator would run it next to a live server; what it reports on a tampered
 * chain is checked in this process (the same command, without a process per check).
 */
import { rowHashInputWithPayload, sha256Hex, verifyChain, type ChainVerdict, type EventRow } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyStoredChain } from '../src/ledger/verify.js';
import { createOrg, type CreatedOrg } from '../src/org/orgs.js';
import { startServer, type RunningServer } from '../src/server.js';
import { openDatabase } from '../src/storage/open.js';
import type { Database } from '../src/storage/types.js';
import { migrations } from '../src/schema.js';
import { engines, freshDatabaseUrl, runCliInProcess, testConfig, uniqueName } from './harness.js';
import { runCli } from './multiprocess.js';

describe.each(engines)('chain verification (%s)', (engine) => {
  let url: string;
  let drop: () => Promise<void>;
  let db: Database;
  let server: RunningServer;

  beforeAll(async () => {
    ({ url, drop } = await freshDatabaseUrl(engine));
    db = openDatabase(url, { migrations, sqliteSynchronous: 'NORMAL' });
    server = await startServer(testConfig(), { db, logger: false });
  });
  afterAll(async () => {
    await server.close();
    await db.close();
    await drop();
  });

  const newOrg = () =>
    createOrg(db, { name: uniqueName('Chain'), slug: uniqueName('c').toLowerCase().replace(/_/g, '-'), decisionRights: true });

  async function post(key: string, method: string, body: unknown) {
    const res = await fetch(`${server.url}/api/v1/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return res.json();
  }

  async function tasks(org: CreatedOrg, n: number, parallel = 8): Promise<void> {
    for (let i = 0; i < n; i += parallel) {
      await Promise.all(
        Array.from({ length: Math.min(parallel, n - i) }, (_, j) => post(org.keys.agent, 'board.createTask', { title: `task ${i + j}` })),
      );
    }
  }

  const cliVerify = (org: CreatedOrg) =>
    runCli({ DATABASE_URL: url, SQLITE_SYNCHRONOUS: 'NORMAL' }, ['verify', '--org', org.slug, '--json']);
  const verifyHere = (org: CreatedOrg, ...flags: string[]) => runCliInProcess(url, 'verify', '--org', org.slug, ...flags);

  /** Every event over GET events, each page's body checked to be JSON. */
  async function wireEvents(org: CreatedOrg): Promise<EventRow[]> {
    const out: EventRow[] = [];
    let cursor = 0;
    for (;;) {
      const res = await fetch(`${server.url}/api/v1/events?cursor=${cursor}&limit=500`, {
        headers: { authorization: `Bearer ${org.keys.observer}` },
      });
      expect(res.status).toBe(200);
      const body = JSON.parse(await res.text()) as { events: EventRow[]; nextCursor: number };
      if (body.events.length === 0) return out;
      out.push(...body.events);
      cursor = body.nextCursor;
    }
  }

  it('verify never reports a false break while writes land (CLI and in-process)', async () => {
    const org = await newOrg();
    await tasks(org, 1200); // more than one verifier page
    let writing = true;
    const writer = (async () => {
      while (writing) await tasks(org, 16, 4);
    })();
    const inProcess: ChainVerdict[] = [];
    const cli: { code: number; out: string }[] = [];
    // The command as its own process twice (each start-up costs seconds), and the same command in
    // this process, on its own connection, over and over until those two are done.
    const here: { code: number; out: string }[] = [];
    let cliDone = false;
    try {
      const cliRuns = (async () => {
        try {
          for (let i = 0; i < 2; i += 1) cli.push(await cliVerify(org));
        } finally {
          cliDone = true;
        }
      })();
      const commandHere = (async () => {
        do here.push(await verifyHere(org, '--json'));
        while (!cliDone && here.length < 100);
      })();
      const local = (async () => {
        for (let i = 0; i < 20; i += 1) inProcess.push(await verifyStoredChain(db, org.orgId));
      })();
      await Promise.all([cliRuns, commandHere, local]);
    } finally {
      writing = false;
      await writer;
    }
    expect(cli.filter((r) => r.code !== 0)).toEqual([]);
    expect(here.filter((r) => r.code !== 0)).toEqual([]);
    expect(inProcess.filter((v) => !v.ok)).toEqual([]);
    const rows = cli.map((r) => (JSON.parse(r.out) as { rows: number }).rows);
    expect(Math.max(...rows)).toBeGreaterThan(Math.min(...rows)); // writes really landed between runs
  }, 180_000);

  /** Tamper one stored payload directly in the database. */
  async function setPayload(org: CreatedOrg, seq: number, payload: string): Promise<void> {
    await db.write((tx) => tx.run('UPDATE events SET payload = ? WHERE org_id = ? AND seq = ?', [payload, org.orgId, seq]));
  }

  const storedPayload = async (org: CreatedOrg, seq: number) =>
    (await db.reader.get<{ payload: string }>('SELECT payload FROM events WHERE org_id = ? AND seq = ?', [org.orgId, seq]))!.payload;

  const tampers: [string, (p: string) => string][] = [
    ['a number re-encoded (1234 → 1234.0)', (p) => p.replace('1234', '1234.0')],
    ['added whitespace', (p) => p.replace('{"', '{ "')],
    ['a duplicate key', (p) => `${p.slice(0, -1)},${p.slice(1)}`],
    ['not JSON at all', (p) => p.slice(0, -1)],
  ];

  it.each(tampers)('a stored payload with %s is a row_hash break at its seq, for the CLI and over GET events', async (_name, tamper) => {
    const org = await newOrg();
    await tasks(org, 1);
    // seq 3 carries integer cents in its payload
    await post(org.keys.agent, 'books.invoiceDraft', { payeeName: 'Payee', description: 'Tamper target', totalCents: 1234, dueDays: 14 });
    await tasks(org, 1);
    const original = await storedPayload(org, 3);
    expect(original).toMatch(/:1234[,}]/);
    await setPayload(org, 3, tamper(original));

    const r = await verifyHere(org, '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, seq: 3, reason: 'row_hash' });
    const human = await verifyHere(org);
    expect(human.code).toBe(1);
    expect(human.out).toMatch(/^chain broken at seq 3: row_hash mismatch/);

    // An independent verifier over the wire agrees, and every body is JSON (wireEvents parses).
    const wire = await wireEvents(org);
    expect(verifyChain(wire)).toMatchObject({ ok: false, seq: 3, reason: 'row_hash' });
  });

  it('foreign bytes whose hashes were recomputed are a payload break at their seq', async () => {
    const org = await newOrg();
    await tasks(org, 3);
    const last = (await db.reader.get<Record<string, string | number>>(
      'SELECT seq, family, kind, entity_id, actor, at, payload, prev_hash FROM events WHERE org_id = ? ORDER BY seq DESC LIMIT 1',
      [org.orgId],
    ))!;
    const seq = Number(last.seq);
    const foreign = ` ${String(last.payload)}`;
    const row = {
      seq,
      family: String(last.family),
      kind: String(last.kind),
      entity_id: String(last.entity_id),
      actor: String(last.actor),
      at: String(last.at),
    };
    const hash = sha256Hex(rowHashInputWithPayload(String(last.prev_hash), row, foreign));
    await db.write(async (tx) => {
      await tx.run('UPDATE events SET payload = ?, row_hash = ? WHERE org_id = ? AND seq = ?', [foreign, hash, org.orgId, seq]);
      await tx.run('UPDATE org_heads SET row_hash = ? WHERE org_id = ?', [hash, org.orgId]);
    });
    const r = await verifyHere(org, '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, seq, reason: 'payload' });
    // Served as a JSON string of the stored text, so a verifier over the wire breaks there too.
    const wire = await wireEvents(org);
    expect(typeof wire[seq - 1]?.payload).toBe('string');
    expect(verifyChain(wire)).toMatchObject({ ok: false, seq, reason: 'row_hash' });
  });

  it('the console verifies from the stored head; the CLI full verify still finds old tampering', async () => {
    const org = await newOrg();
    await tasks(org, 5);
    const session = await signIn(org);
    const first = await chain(session);
    expect(first).toMatchObject({ verified: true, verifiedFrom: 0, head: { seq: 6 } });

    await tasks(org, 3);
    const second = await chain(session);
    // Only the anchor row (seq 6, re-hashed) and the three new rows were read.
    expect(second).toMatchObject({ verified: true, verifiedFrom: 5, head: { seq: 9 } });

    // Tamper a row before the stored head: the page does not re-read it...
    const old = await storedPayload(org, 2);
    await setPayload(org, 2, old.replace('{"', '{ "'));
    await tasks(org, 1);
    expect(await chain(session)).toMatchObject({ verified: true, verifiedFrom: 8, head: { seq: 10 } });
    // ...the operator's full verify does.
    const r = await verifyHere(org, '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out)).toMatchObject({ seq: 2, reason: 'row_hash' });

    // An anchor that no longer matches its stored row_hash sends the console back to a full walk.
    await db.write((tx) => tx.run("UPDATE events SET row_hash = 'x' WHERE org_id = ? AND seq = 10", [org.orgId]));
    expect(await chain(session)).toMatchObject({ verified: false, verifiedFrom: 0, brokenAt: { seq: 2, reason: 'row_hash' } });
  });

  async function signIn(org: CreatedOrg): Promise<string> {
    const res = await fetch(`${server.url}/console/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ org: org.slug, email: org.owner.email, password: org.owner.password }).toString(),
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  }

  async function chain(cookie: string): Promise<unknown> {
    const res = await fetch(`${server.url}/console/api/chain`, { headers: { cookie } });
    expect(res.status).toBe(200);
    return res.json();
  }

  it('verify --kept compares every kept table with a rebuild, and names a row that differs', async () => {
    const org = await newOrg();
    await post(org.keys.agent, 'books.journalPost', {
      date: '2026-07-01',
      memo: 'Owner capital',
      lines: [
        { accountCode: '1000', debitCents: 50_000 },
        { accountCode: '3000', creditCents: 50_000 },
      ],
    });
    const ok = await verifyHere(org, '--kept', '--json');
    expect(ok.code, ok.err).toBe(0);
    const report = JSON.parse(ok.out) as { ok: boolean; chain: { ok: boolean }; kept: { table: string; rows: number }[] };
    expect(report.ok).toBe(true);
    expect(report.chain.ok).toBe(true);
    expect(report.kept.map((k) => k.table)).toContain('account_day_totals');
    expect(report.kept.every((k) => k.rows === 0)).toBe(true);
    // A kept total that no longer equals its lines: exit 1, naming the table and the row.
    await db.write((tx) =>
      tx.run("UPDATE account_day_totals SET debit_cents = debit_cents + 1 WHERE org_id = ? AND account_code = '1000'", [org.orgId]),
    );
    const bad = await verifyHere(org, '--kept');
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('account_day_totals: 2 rows differ');
    expect(bad.out).toContain('kept, not in a rebuild: 1000 2026-07-01 debits 50001 credits 0 lines 1');
    expect(bad.out).toContain('in a rebuild, not kept: 1000 2026-07-01 debits 50000 credits 0 lines 1');
    expect((await verifyHere(org, '--kept', '--checkpoint', 'x.txt')).code).toBe(2);
  });
});

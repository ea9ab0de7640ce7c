import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../src/server.js';
import { openDatabase } from '../src/storage/open.js';
import type { Database } from '../src/storage/types.js';
import { migrations } from '../src/schema.js';
import { engines, freshDatabaseUrl, testConfig, runCli, runCliInProcess } from './harness.js';

describe.each(engines)('operator CLI (%s)', (engine) => {
  let url: string;
  let drop: () => Promise<void>;

  const cli = (...args: string[]) => runCliInProcess(url, ...args);
  // A process of its own, for what only a process shows: its exit code.
  const spawned = (...args: string[]) => runCli(url, ...args);

  beforeAll(async () => {
    ({ url, drop } = await freshDatabaseUrl(engine));
  });
  afterAll(async () => drop());

  it('org create --json prints one JSON object with keys per tier and the owner', async () => {
    const r = await cli('org', 'create', '--name', 'Harbour Cafe', '--json');
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines).toHaveLength(1);
    const o = JSON.parse(lines[0] ?? '');
    expect(Object.keys(o).sort()).toEqual(['keys', 'orgId', 'owner', 'slug']);
    expect(o.slug).toBe('harbour-cafe');
    for (const tier of ['observer', 'reader', 'agent']) expect(o.keys[tier]).toMatch(/^fdk_[0-9a-z]{26}_[\w-]{43}$/);
    expect(o.owner).toMatchObject({ userId: expect.stringMatching(/^usr_/), email: 'owner@harbour-cafe.example' });
    expect(o.owner.password.length).toBeGreaterThanOrEqual(24);
  });

  it('outbox retry re-queues what could not be delivered, and only that', async () => {
    const created = JSON.parse((await cli('org', 'create', '--name', 'Outbox Joinery', '--json')).out);
    const db = openDatabase(url, { migrations, sqliteSynchronous: 'NORMAL' });
    const now = new Date().toISOString();
    try {
      await db.write(async (tx) => {
        const rows: [string, number, string | null, string | null][] = [
          ['queued', 1, null, null],
          ['spent', 8, null, 'ENOSPC: no space left on device'],
          ['refused', 1, now, '550 mailbox unavailable'],
          ['sent', 1, now, null],
        ];
        for (const [name, attempts, deliveredAt, lastError] of rows) {
          await tx.run(
            `INSERT INTO outbox (id, org_id, channel, body, created_at, attempts, delivered_at, last_error)
             VALUES (?, ?, 'payment_file', '{}', ?, ?, ?, ?)`,
            [`msg_${name}`, created.orgId, now, attempts, deliveredAt, lastError],
          );
        }
      });
      const r = await cli('outbox', 'retry', '--org', created.slug, '--json');
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toEqual({ requeued: 2, queued: 3, undeliverable: 0 });
      const after = await db.reader.all<{ id: string; attempts: number; delivered_at: string | null; last_error: string | null }>(
        'SELECT id, attempts, delivered_at, last_error FROM outbox WHERE org_id = ? ORDER BY id',
        [created.orgId],
      );
      expect(after.map((x) => [x.id, Number(x.attempts), x.delivered_at === null, x.last_error])).toEqual([
        ['msg_queued', 1, true, null],
        ['msg_refused', 0, true, null],
        ['msg_sent', 1, false, null],
        ['msg_spent', 0, true, null],
      ]);
      // An operator act on the record: one event, with counts and never content.
      const retried = await db.reader.all<{ family: string; kind: string; actor: string; payload: string }>(
        "SELECT family, kind, actor, payload FROM events WHERE org_id = ? AND kind = 'outbox.retry'",
        [created.orgId],
      );
      expect(retried.map((e) => ({ ...e, payload: JSON.parse(e.payload) }))).toEqual([
        { family: 'org', kind: 'outbox.retry', actor: '', payload: { requeued: 2, channels: { payment_file: 2 } } },
      ]);
      // Nothing left to re-queue: no second event.
      expect(JSON.parse((await cli('outbox', 'retry', '--org', created.slug, '--json')).out)).toMatchObject({ requeued: 0 });
      expect((await db.reader.all("SELECT seq FROM events WHERE org_id = ? AND kind = 'outbox.retry'", [created.orgId])).length).toBe(1);
      expect((await cli('outbox', 'retry', '--org', 'nobody')).err.trim()).toBe('finance-desk: organisation nobody not found');
    } finally {
      await db.close();
    }
  });

  it('org create --time-zone sets the zone the books keep dates in; an unknown zone is refused', async () => {
    const made = JSON.parse((await cli('org', 'create', '--name', 'London Joinery', '--time-zone', 'europe/london', '--json')).out);
    const plain = JSON.parse((await cli('org', 'create', '--name', 'Sydney Joinery', '--json')).out);
    const bad = await cli('org', 'create', '--name', 'Mars Joinery', '--time-zone', 'Mars/Olympus_Mons', '--json');
    expect(bad.code).not.toBe(0);
    expect(bad.err.trim()).toBe('finance-desk: --time-zone: must be an IANA time zone such as Australia/Sydney');
    const db = openDatabase(url, { migrations });
    try {
      const zone = async (id: string) =>
        (await db.reader.get<{ time_zone: string }>('SELECT time_zone FROM organisations WHERE id = ?', [id]))?.time_zone;
      expect(await zone(made.orgId)).toBe('Europe/London');
      expect(await zone(plain.orgId)).toBe('Australia/Sydney');
      expect(await db.reader.get('SELECT id FROM organisations WHERE slug = ?', ['mars-joinery'])).toBeUndefined();
    } finally {
      await db.close();
    }
  });

  it('bad input exits non-zero with a one-line reason', () => {
    const dup = spawned('org', 'create', '--name', 'Harbour Cafe', '--json');
    expect(dup.code).not.toBe(0);
    expect(dup.err.trim()).toBe('finance-desk: slug harbour-cafe is already taken');
    const noName = spawned('org', 'create', '--json');
    expect(noName.code).not.toBe(0);
    expect(noName.err).toMatch(/--name/);
    const badTier = spawned('key', 'issue', '--org', 'harbour-cafe', '--tier', 'admin', '--json');
    expect(badTier.code).not.toBe(0);
    expect(badTier.err.trim()).toBe('finance-desk: tier: must be one of observer, reader, agent');
    const noOrg = spawned('verify', '--org', 'nobody');
    expect(noOrg.code).not.toBe(0);
    expect(noOrg.err.trim()).toBe('finance-desk: organisation nobody not found');
  });

  /** Rows an organisation is made of, across every organisation in the database. */
  async function orgRowCounts(db: Database): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const table of ['organisations', 'org_heads', 'users', 'policies', 'credentials', 'accounts', 'events']) {
      out[table] = Number((await db.reader.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))?.n);
    }
    return out;
  }

  it('org create refuses bad input naming the flag, exits non-zero and creates nothing', async () => {
    const db = openDatabase(url, { migrations, sqliteSynchronous: 'NORMAL' });
    try {
      await db.migrate();
      const before = await orgRowCounts(db);
      const cases: [string[], string][] = [
        [['--name', 'Bad Email Co', '--owner-email', 'not-an-email'], '--owner-email: must be an email address'],
        [['--name', 'Bad Email Co', '--owner-email', ''], '--owner-email: must be an email address'],
        [['--name', 'Bad Slug Co', '--slug', 'Not A Slug'], '--slug: must be lowercase letters, digits and inner hyphens, at most 48'],
        [['--name', 'Bad Slug Co', '--slug', ''], '--slug: must be lowercase letters, digits and inner hyphens, at most 48'],
        [['--name', '   '], '--name: must be 1 to 200 characters'],
        [['--name', 'x'.repeat(201)], '--name: must be 1 to 200 characters'],
      ];
      for (const [args, reason] of cases) {
        const r = await cli('org', 'create', ...args, '--json');
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.out).toBe('');
        expect(r.err).toBe(`finance-desk: ${reason}\n`);
      }
      expect(await orgRowCounts(db)).toEqual(before);
      const ok = await cli('org', 'create', '--name', 'Good Email Co', '--owner-email', ' Boss@Good.Example ', '--json');
      expect(ok.code, ok.err).toBe(0);
      expect(JSON.parse(ok.out).owner.email).toBe('boss@good.example');
    } finally {
      await db.close();
    }
  });

  it('a failure at the last statement of org create (its event) leaves no partial organisation', async () => {
    const db = openDatabase(url, { migrations, sqliteSynchronous: 'NORMAL' });
    // A trigger refuses the org.created event of one slug: the very last write of createOrg.
    const arm =
      engine === 'sqlite'
        ? [
            `CREATE TRIGGER fail_doomed BEFORE INSERT ON events
             WHEN NEW.kind = 'org.created' AND NEW.payload LIKE '%"slug":"doomed-co"%'
             BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
          ]
        : [
            `CREATE FUNCTION fail_doomed() RETURNS trigger AS $$ BEGIN
               IF NEW.kind = 'org.created' AND NEW.payload LIKE '%"slug":"doomed-co"%' THEN
                 RAISE EXCEPTION 'injected failure';
               END IF;
               RETURN NEW;
             END $$ LANGUAGE plpgsql`,
            'CREATE TRIGGER fail_doomed BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fail_doomed()',
          ];
    const disarm =
      engine === 'sqlite' ? ['DROP TRIGGER fail_doomed'] : ['DROP TRIGGER fail_doomed ON events', 'DROP FUNCTION fail_doomed()'];
    try {
      await db.migrate();
      for (const sql of arm) await db.write(async (tx) => tx.run(sql));
      const before = await orgRowCounts(db);
      const r = await cli('org', 'create', '--name', 'Doomed Co', '--json');
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(/injected failure/);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(await orgRowCounts(db)).toEqual(before);
      for (const sql of disarm) await db.write(async (tx) => tx.run(sql));
      // The slug was never taken: the same command now succeeds, with a chain that verifies.
      const again = await cli('org', 'create', '--name', 'Doomed Co', '--json');
      expect(again.code, again.err).toBe(0);
      expect(JSON.parse(again.out).slug).toBe('doomed-co');
      const verified = await cli('verify', '--org', 'doomed-co', '--json');
      expect(verified.code, verified.err).toBe(0);
      expect(JSON.parse(verified.out)).toMatchObject({ ok: true, rows: 1 });
    } finally {
      await db.close();
    }
  });

  describe('keys over a running server', () => {
    let db: Database;
    let server: RunningServer;
    beforeAll(async () => {
      db = openDatabase(url, { migrations });
      server = await startServer(testConfig(), { db, logger: false });
    });
    afterAll(async () => {
      await server.close();
      await db.close();
    });

    it('key issue gives a working key; key revoke makes it UNAUTHORIZED', async () => {
      const issued = await cli('key', 'issue', '--org', 'harbour-cafe', '--tier', 'agent', '--agent', 'ops-bot', '--json');
      expect(issued.code).toBe(0);
      const k = JSON.parse(issued.out);
      expect(k).toMatchObject({ keyId: expect.stringMatching(/^key_/), tier: 'agent', key: expect.any(String) });
      // A key issued without pairing may carry a label: what the console and emails call its acts.
      const labelled = JSON.parse(
        (await cli('key', 'issue', '--org', 'harbour-cafe', '--tier', 'reader', '--label', 'Xero sync', '--json')).out,
      );
      expect(labelled).toMatchObject({ tier: 'reader', label: 'Xero sync' });
      const stored = await db.reader.get<{ label: string }>('SELECT label FROM credentials WHERE id = ?', [labelled.keyId]);
      expect(stored?.label).toBe('Xero sync');
      const badLabel = await cli('key', 'issue', '--org', 'harbour-cafe', '--tier', 'reader', '--label', ' ');
      expect(badLabel.code).not.toBe(0);
      expect(badLabel.err.trim()).toBe('finance-desk: label: must be 1 to 64 characters');
      const call = () =>
        fetch(`${server.url}/api/v1/board.createTask`, {
          method: 'POST',
          headers: { authorization: `Bearer ${k.key}`, 'content-type': 'application/json' },
          body: '{"title":"from the CLI key"}',
        });
      const ok = await call();
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { result: { id: string } }).result.id).toMatch(/^task_/);
      const revoked = await cli('key', 'revoke', '--org', 'harbour-cafe', '--key-id', k.keyId);
      expect(revoked.code).toBe(0);
      expect((await call()).status).toBe(401);
    });
  });

  describe('human decisions from the CLI', () => {
    let db: Database;
    let server: RunningServer;
    let agentKey: string;
    beforeAll(async () => {
      db = openDatabase(url, { migrations });
      server = await startServer(testConfig(), { db, logger: false });
      const created = JSON.parse((await cli('org', 'create', '--name', 'Decide Co', '--owner-email', 'Boss@Decide.example', '--json')).out);
      agentKey = created.keys.agent;
    });
    afterAll(async () => {
      await server.close();
      await db.close();
    });

    const post = async (method: string, body: unknown) => {
      const res = await fetch(`${server.url}/api/v1/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return res.json();
    };

    it('user add, policy set and approval decide drive the approval loop', async () => {
      const added = await cli(
        'user',
        'add',
        '--org',
        'decide-co',
        '--email',
        'ann@decide.example',
        '--role',
        'approver',
        '--name',
        'Ann Decker',
        '--json',
      );
      expect(added.code).toBe(0);
      const ann = JSON.parse(added.out);
      expect(ann).toMatchObject({
        userId: expect.stringMatching(/^usr_/),
        email: 'ann@decide.example',
        role: 'approver',
        name: 'Ann Decker',
      });
      const weak = await cli(
        'user',
        'add',
        '--org',
        'decide-co',
        '--email',
        'x@decide.example',
        '--role',
        'approver',
        '--password',
        'short',
      );
      expect(weak.code).not.toBe(0);
      expect(weak.err.trim()).toBe('finance-desk: password: must be at least 12 characters');

      // A person's weekly digest: on by choice, once; both flags or neither is a usage error.
      const on = await cli('user', 'digest', '--org', 'decide-co', '--email', 'ann@decide.example', '--on', '--json');
      expect(on.code, on.err).toBe(0);
      expect(JSON.parse(on.out)).toEqual({ userId: ann.userId, weeklyDigest: 'on' });
      expect((await cli('user', 'digest', '--org', 'decide-co', '--email', 'ann@decide.example', '--on')).out.trim()).toBe(
        'ann@decide.example: weekly digest on (already)',
      );
      const onAndOff = await cli('user', 'digest', '--org', 'decide-co', '--email', 'ann@decide.example', '--on', '--off');
      expect(onAndOff.err.trim()).toBe('finance-desk: give exactly one of --on or --off');
      expect((await cli('user', 'digest', '--org', 'decide-co', '--email', 'nobody@decide.example', '--off')).err.trim()).toBe(
        'finance-desk: user nobody@decide.example not found in decide-co',
      );
      // Made just now, the organisation has no finished week to report.
      expect((await cli('digest', 'run', '--org', 'decide-co')).out.trim()).toBe('no digest due');

      const inv = await post('books.invoiceDraft', { payeeName: 'Ann Customer', description: 'd', totalCents: 5_000, dueDays: 0 });
      await post('books.invoiceSend', { id: inv.result.id });
      await post('books.invoiceChaseStep', { id: inv.result.id, step: 1, early: true });
      const hold = (await post('books.invoiceChaseStep', { id: inv.result.id, step: 2 })).result.approval;
      const req = await post('approval.request', {
        actionClass: hold.actionClass,
        payloadHash: hold.payloadHash,
        subject: { kind: 'books.signature', subjectId: hold.subject.subjectId },
      });
      const approvalId = req.result.approvalId;

      // The approver has no rights until the owner grants them by role.
      const refused = await cli(
        'approval',
        'decide',
        '--org',
        'decide-co',
        '--approval',
        approvalId,
        '--approve',
        '--by',
        'ann@decide.example',
        '--json',
      );
      expect(refused.code).not.toBe(0);
      expect(refused.err).toMatch(/has no decision rights for books.invoice_chase_step/);
      const notOwner = await cli(
        'policy',
        'set',
        '--org',
        'decide-co',
        '--by',
        'ann@decide.example',
        '--rights',
        'books.invoice_chase_step=role:approver',
      );
      expect(notOwner.code).not.toBe(0);
      const granted = await cli(
        'policy',
        'set',
        '--org',
        'decide-co',
        '--by',
        'boss@decide.example',
        '--rights',
        'books.invoice_chase_step=role:approver',
        '--json',
      );
      expect(granted.code).toBe(0);
      expect(JSON.parse(granted.out).decisionRights['books.invoice_chase_step']).toEqual(['role:approver']);
      const badPolicy = await cli('policy', 'set', '--org', 'decide-co', '--by', 'boss@decide.example', '--approval-expiry-ms', '5');
      expect(badPolicy.err.trim()).toBe('finance-desk: approvalExpiryMs: must be at least 60000 (one minute)');

      const both = await cli(
        'approval',
        'decide',
        '--org',
        'decide-co',
        '--approval',
        approvalId,
        '--approve',
        '--deny',
        '--by',
        'ann@decide.example',
      );
      expect(both.code).not.toBe(0);
      const ok = await cli(
        'approval',
        'decide',
        '--org',
        'decide-co',
        '--approval',
        approvalId,
        '--approve',
        '--by',
        'ann@decide.example',
        '--json',
      );
      expect(ok.code).toBe(0);
      const decided = JSON.parse(ok.out);
      expect(decided).toMatchObject({ approvalId, status: 'approved', signatureToken: expect.stringMatching(/^fdt_/) });
      const done = await post('books.invoiceChaseStep', { id: inv.result.id, step: 2, signatureToken: decided.signatureToken });
      expect(done).toMatchObject({ ok: true, result: { step: 2 } });
      expect((await cli('verify', '--org', 'decide-co')).code).toBe(0);
    });
  });

  it('verify exits 0 on an intact chain and 1 on a break, naming seq and reason', async () => {
    const ok = spawned('verify', '--org', 'harbour-cafe');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^chain ok: \d+ events/);
    const db = openDatabase(url, { migrations });
    await db.write(async (tx) =>
      tx.run("UPDATE events SET actor = 'mallory' WHERE seq = 2 AND org_id = (SELECT id FROM organisations WHERE slug = 'harbour-cafe')"),
    );
    await db.close();
    const broken = spawned('verify', '--org', 'harbour-cafe', '--json');
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.out)).toMatchObject({ ok: false, seq: 2, reason: 'row_hash' });
    const human = spawned('verify', '--org', 'harbour-cafe');
    expect(human.out.trim()).toBe('chain broken at seq 2: row_hash mismatch');
  });
});

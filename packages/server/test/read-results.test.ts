import { board, books, payables, readSpecs, reads } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bind, bindRead } from '../src/binding.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { RawJson } from '../src/raw-json.js';
import { checkedRead, checkedResult, engines, startTestServer, type Reply, type TestServer } from './harness.js';
import { decide, freshKey, heldAndRequested, sentInvoice } from './signature-helpers.js';
import { approvedBill, bank, FUNDING, inDays } from './payables-helpers.js';

/**
 * Every GET read declares its result, and the harness checks every 200 payload
 * a test receives against it (as it checks every ok POST result). These tests show the check can
 * fail, that no read escapes it with a schema that accepts anything, and that every read a real
 * server answers conforms.
 */
const reply = (status: number, body: unknown): Reply => ({ status, headers: new Headers(), body });

describe('the harness check of read payloads', () => {
  it('refuses a payload that departs from the declaration, naming the read and the paths', () => {
    const bad = reply(200, { orgId: 'org_1', head: { seq: 'one', rowHash: 7 } });
    expect(() => checkedRead(readSpecs.snapshot.name, bad)).toThrow(
      /^snapshot: payload does not match its declared result schema: head\.seq: .*; head\.rowHash: /,
    );
    // The read is found by the path before `?`.
    const events = reply(200, { events: [{ seq: 1 }], nextCursor: 1.5 });
    expect(() => checkedRead(`${readSpecs.events.name}?cursor=0&limit=5`, events)).toThrow(/^events: .*events\.0\.family: /);
    // A missing field, a wrong enum value, a null where the declaration has none.
    expect(() => checkedRead(readSpecs.orgSelf.name, reply(200, { orgId: 'org_1', slug: 's', name: 'n' }))).toThrow(/createdAt/);
    const member = { userId: 'usr_1', email: 'a@b.example', role: 'director', createdAt: 'x', decisionRights: [] };
    expect(() => checkedRead(readSpecs.orgMembers.name, reply(200, { orgId: 'o', members: [member], nextCursor: null }))).toThrow(
      /members\.0\.role/,
    );
    expect(() =>
      checkedRead(
        readSpecs.ops.name,
        reply(200, { orgId: 'o', head: null, pendingApprovals: 0, openHolds: 0, outbox: { queued: 0, undeliverable: 0 } }),
      ),
    ).toThrow(/head/);
  });

  it('passes a conforming payload, other statuses and other paths untouched', () => {
    const good = reply(200, { orgId: 'org_1', head: { seq: 3, rowHash: 'ab' } });
    expect(checkedRead(readSpecs.snapshot.name, good)).toBe(good);
    const refused = reply(400, { ok: false, error: { code: 'BAD_REQUEST', message: 'limit: must be an integer' } });
    expect(checkedRead(`${readSpecs.events.name}?limit=x`, refused)).toBe(refused);
    const other = reply(200, 'ok');
    expect(checkedRead('healthz', other)).toBe(other);
  });

  it('refuses a POST result that departs from its declaration with the same check', () => {
    const bad = reply(200, {
      ok: true,
      result: { id: 'task_1', title: 't', priority: 'someday', col: 'ready', claimedBy: null, createdAt: 'x', ledgerId: 'ab' },
    });
    expect(() => checkedResult(board.createTask.name, bad)).toThrow(/^board\.createTask: result does not match .*priority/);
  });

  it('every read declares an object result, never one that accepts anything', () => {
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) {
      const result: z.ZodType = r.result;
      expect(result, r.name).not.toBeInstanceOf(z.ZodUnknown);
      expect(result, r.name).not.toBeInstanceOf(z.ZodAny);
      // Not a schema that takes anything: a bare string, null or an empty object are refused.
      for (const value of ['text', null, {}, []])
        expect(result.safeParse(value).success, `${r.name} accepts ${JSON.stringify(value)}`).toBe(false);
    }
  });
});

describe('handlers are typed by their declared result (checked by `tsc -p tsconfig.test.json`)', () => {
  it('a read or write handler answering another shape does not compile; RawJson text still may', () => {
    // Handlers written as the real ones are (async), since their types are what this checks.
    /* eslint-disable @typescript-eslint/require-await */
    const bindings = [
      // @ts-expect-error head.seq is declared an integer, not a string
      bindRead(readSpecs.snapshot, async () => ({ orgId: 'org_1', head: { seq: 'one', rowHash: '' } })),
      // @ts-expect-error decisions is missing
      bindRead(readSpecs.decisionList, async () => ({ nextCursor: null })),
      bindRead(readSpecs.events, async () => new RawJson('{"events":[],"nextCursor":0}')),
      // @ts-expect-error priority is one of PRIORITIES
      bind(board.createTask, async () => ({
        id: 't',
        title: 't',
        priority: 'someday' as const,
        col: 'ready' as const,
        claimedBy: null,
        createdAt: 'x',
        ledgerId: 'ab',
      })),
      bind(board.claim, async () => ({
        id: 't',
        title: 't',
        priority: 'low' as const,
        col: 'claimed' as const,
        claimedBy: 'a',
        createdAt: 'x',
        ledgerId: 'ab',
        noop: true,
      })),
    ];
    /* eslint-enable @typescript-eslint/require-await */
    // Binding checks the declaration's kind at run time as well.
    expect(bindings.map((b) => b.spec.name)).toEqual([
      readSpecs.snapshot.name,
      readSpecs.decisionList.name,
      readSpecs.events.name,
      board.createTask.name,
      board.claim.name,
    ]);
  });
});

describe.each(engines)('every read a real server answers conforms to its declaration (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  let taskId: string;
  let approvalId: string;
  let fileId: string;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
    const task = await t.post(org.keys.agent, board.createTask.name, { title: 'Reconcile October' });
    taskId = task.body.result.id;
    await t.post(org.keys.agent, board.claim.name, { id: taskId });
    const invoiceId = await sentInvoice(t, org);
    const held = await heldAndRequested(t, org, books.invoiceChaseStep.name, { id: invoiceId, step: 2 });
    approvalId = held.approvalId;
    await decide(t, org, approvalId, true);
    // A payment run, so books.file has a file to answer with.
    const bill = await approvedBill(t, org, {
      payeeName: 'Harbour Timber',
      description: 'Decking',
      totalCents: 12_345,
      ...bank('062-000', '12345678', 'Harbour Timber'),
    });
    const runParams = { billIds: [bill.id], paymentDate: inDays(1), funding: FUNDING };
    const run = await heldAndRequested(t, org, payables.billScheduleRun.name, runParams);
    await decide(t, org, run.approvalId, true);
    const paid = await t.post(
      org.keys.agent,
      payables.billScheduleRun.name,
      { ...runParams, approvalId: run.approvalId },
      { 'x-idempotency-key': freshKey() },
    );
    expect(paid.body.result.status).toBe('executed');
    fileId = (await t.get(org.keys.reader, readSpecs.booksFiles.name)).body.files[0].id;
  });
  afterAll(async () => t.close());

  /** The query each read needs to answer 200; reads not listed take none. */
  const queryOf = (name: string): string => {
    const queries: Record<string, string> = {
      [readSpecs.boardContext.name]: `id=${taskId}`,
      [readSpecs.whoami.name]: `slug=${org.slug}`,
      [readSpecs.approvalWait.name]: `approvalId=${approvalId}`,
      [readSpecs.booksFile.name]: `id=${fileId}`,
    };
    return queries[name] ?? '';
  };

  it('each read in `reads` answers 200 with a payload its declared result accepts', async () => {
    for (const r of reads) {
      const q = queryOf(r.name);
      // t.get checks the payload (checkedRead) and throws naming the read on a mismatch.
      // The least key that may read it: observer (org.read), reader for books.read reads.
      const key = r.scope === 'books.read' ? org.keys.reader : org.keys.observer;
      const res = await t.get(key, q ? `${r.name}?${q}` : r.name);
      expect(res.status, r.name).toBe(200);
      expect(r.result.safeParse(res.body).success, r.name).toBe(true);
    }
  });

  it('org/whoami names the caller; approval.wait carries the proof once approved; board.context the history', async () => {
    const me = await t.get(org.keys.agent, `${readSpecs.whoami.name}?slug=${org.slug}`);
    expect(me.body).toMatchObject({ orgId: org.orgId, slug: org.slug, tier: 'agent', keyId: org.keyIds.agent });
    const wait = await t.get(org.keys.agent, `${readSpecs.approvalWait.name}?approvalId=${approvalId}`);
    expect(wait.body).toMatchObject({ approvalId, status: 'approved', signatureToken: expect.any(String) });
    const history = await t.get(org.keys.agent, `${readSpecs.boardContext.name}?id=${taskId}`);
    expect(history.body.item).toMatchObject({ id: taskId, col: 'claimed' });
    expect(history.body.history.length).toBe(2);
  });
});

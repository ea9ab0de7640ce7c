import {
  EVENT_ORIGINS,
  board,
  checkEvent,
  eventCatalogueArtifact,
  eventKinds,
  events,
  methods,
  publicRoutes,
  sourceName,
  type EventSource,
} from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg } from '../src/org/orgs.js';
import { inUnitOfWork } from '../src/write-path.js';
import { checkOrgEvents, engines, startTestServer, uniqueName, type TestServer } from './harness.js';

/**
 * The event catalogue (protocol events.ts): one declaration per kind, each
 * naming the declarations that emit it, and a checker that refuses what a declaration does not
 * describe. The harness runs the checker over every event of every test (harness.ts close()).
 */

const isOrigin = (s: EventSource): boolean => typeof s === 'string' && (EVENT_ORIGINS as readonly string[]).includes(s);

describe('the event catalogue', () => {
  it('declares every kind once', () => {
    const kinds = eventKinds.map((e) => e.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(kinds.length).toBeGreaterThan(50);
  });

  it('names only declared methods, the pairing route or an origin outside the API as emitters', () => {
    for (const e of eventKinds) {
      expect(e.emittedBy.length, e.kind).toBeGreaterThan(0);
      for (const s of e.emittedBy) {
        const known = isOrigin(s) || methods.includes(s as never) || publicRoutes.includes(s as never);
        expect(known, `${e.kind} emittedBy ${sourceName(s)}`).toBe(true);
      }
    }
  });

  it('has every non-read method emit some kind (write, new-act and signature methods all append an event)', () => {
    const emitters = new Set(eventKinds.flatMap((e) => e.emittedBy));
    const silent = methods.filter((m) => m.kind !== 'read' && !emitters.has(m)).map((m) => m.name);
    expect(silent).toEqual([]);
    const reads = methods.filter((m) => m.kind === 'read' && emitters.has(m)).map((m) => m.name);
    expect(reads).toEqual([]);
  });

  it('has every signature act emit books.signature.hold', () => {
    const signatureActs = methods.filter((m) => m.kind === 'signature');
    expect(signatureActs.length).toBeGreaterThan(0);
    for (const m of signatureActs) expect(events.signatureHold.emittedBy).toContain(m);
  });

  it('publishes each kind with its emitters by name and its payload as JSON Schema', () => {
    const artifact = eventCatalogueArtifact();
    expect(artifact.version).toBeGreaterThan(0);
    expect(artifact.events).toHaveLength(eventKinds.length);
    const send = artifact.events.find((e) => e.kind === events.invoiceSend.kind);
    expect(send).toMatchObject({ family: 'books', emittedBy: ['books.invoiceSend', 'system'] });
    expect(send?.payload).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: expect.arrayContaining(['payee', 'journalId']),
    });
    const pair = artifact.events.find((e) => e.kind === events.orgAgentPair.kind);
    expect(pair?.emittedBy).toEqual(['org/pair']);
    expect(JSON.parse(JSON.stringify(artifact))).toEqual(artifact);
  });
});

describe('checkEvent refuses what the catalogue does not describe', () => {
  const claimed = { family: 'board', kind: events.itemClaimed.kind, payload: { claimedBy: 'agt_1', col: 'claimed' } };

  it('accepts a payload as declared', () => {
    expect(checkEvent(claimed)).toEqual([]);
  });

  it.each([
    ['an unknown kind', { ...claimed, kind: 'board.item.teleported' }, 'kind board.item.teleported is not declared in the event catalogue'],
    ['another family', { ...claimed, family: 'books' }, 'family is books, declared board'],
    [
      'a key the schema does not declare',
      { ...claimed, payload: { ...claimed.payload, secret: 'x' } },
      'payload: Unrecognized key: "secret"',
    ],
    ['a missing key', { ...claimed, payload: { claimedBy: 'agt_1' } }, 'payload.col:'],
    ['a wrong type', { ...claimed, payload: { claimedBy: 7, col: 'claimed' } }, 'payload.claimedBy:'],
    ['a null payload', { ...claimed, payload: null }, 'payload:'],
  ])('refuses %s', (_what, event, problem) => {
    const problems = checkEvent(event);
    expect(problems.join('\n')).toContain(problem);
  });

  it('names the nested path that fails', () => {
    const payload = {
      runId: 'run_1',
      billIds: ['bill_1'],
      billCount: 1,
      totalCents: 100,
      paymentDate: '2026-01-01',
      fundingAccount: null,
      fileName: 'run_1.aba',
      journalId: 'jnl_1',
      bills: [{ id: 'bill_1', payee: 'A', totalCents: 100, amountCents: 100.5, heldReason: null, runId: 'run_1' }],
    };
    expect(checkEvent({ family: 'books', kind: events.billRunExecute.kind, payload })).toEqual([
      expect.stringMatching(/^payload\.bills\[0\]\.amountCents: /),
    ]);
    const fixed = { ...payload, bills: [{ ...payload.bills[0], amountCents: 100 }] };
    expect(checkEvent({ family: 'books', kind: events.billRunExecute.kind, payload: fixed })).toEqual([]);
  });
});

describe.each(engines)('the harness checks stored events against the catalogue (%s)', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  it('passes events written through the API and refuses a stored payload its declaration does not describe, naming seq, kind and path', async () => {
    // Not registered with the harness (t.org would be checked at close, and this one is broken on purpose).
    const org = await createOrg(t.db, {
      name: uniqueName('Catalogue'),
      slug: uniqueName('cat').toLowerCase().replace(/_/g, '-'),
      decisionRights: true,
    });
    const task = await t.post(org.keys.agent, board.createTask.name, { title: 'Reconcile March' });
    expect(task.status).toBe(200);
    await checkOrgEvents(t.db, org.orgId);
    await inUnitOfWork(t.db, org.orgId, 'agt_test', async (uow) => {
      // A buggy emit site: the type system would refuse this payload, so it is forced.
      await uow.emit(events.itemClaimed, {
        entityId: task.body.result.id as string,
        payload: { claimedBy: 'agt_test', col: 'done' } as never,
      });
      return {};
    });
    await expect(checkOrgEvents(t.db, org.orgId)).rejects.toThrow(
      /^event seq 3 \(item\.claimed\) of org_\S+ does not match the event catalogue: payload\.col: /,
    );
  });
});

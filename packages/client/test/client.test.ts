/**
 * @finance-desk/client against a real server on a real database, both engines.
 * Faults the server cannot be made to produce on demand (a response lost after the server handled
 * the request, an INTERNAL, a tampered ledger row) come from a fetch wrapped around the real one:
 * every request still reaches the real server unless the test says it does not.
 */
import { approval, books, booksReads, readSpecs, type EventRow } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { CreatedOrg } from '../../server/src/org/orgs.js';
import { engines, startTestServer, type TestServer } from '../../server/test/harness.js';
import { decide, sentInvoice } from '../../server/test/signature-helpers.js';
import {
  ApprovalDeniedError,
  ApprovalTimeoutError,
  ChainBrokenError,
  FinanceDesk,
  FinanceDeskError,
  backoffMs,
  isHold,
  retryAfterMs,
  type ClientOptions,
  type WaitingInfo,
} from '../src/index.js';

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly key: string | null;
}

/** A fetch that records what it sends, and lets a test replace or alter an answer. */
function recording(intercept?: (sent: Sent, n: number, real: () => Promise<Response>, init?: RequestInit) => Promise<Response>): {
  fetch: typeof fetch;
  sent: Sent[];
} {
  const sent: Sent[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const s: Sent = {
      method: init?.method ?? 'GET',
      path: url.pathname.replace('/api/v1/', ''),
      key: new Headers(init?.headers).get('x-idempotency-key'),
    };
    sent.push(s);
    const real = () => fetch(input, init);
    return intercept ? intercept(s, sent.length, real, init) : real();
  };
  return { fetch: wrapped, sent };
}

const frameResponse = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });

const draft = (payeeName = 'Harbour Cafe') => ({
  payeeName,
  description: 'October catering',
  totalCents: 110_000,
  dueDays: 14,
});

describe.each(engines)('@finance-desk/client (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  const sleeps: number[] = [];
  const client = (opts: Partial<ClientOptions> = {}, key?: string) =>
    new FinanceDesk({
      baseUrl: t.url,
      apiKey: key ?? org.keys.agent,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      ...opts,
    });

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  it('a typed write carries an idempotency key and answers its declared result; a typed read answers its payload', async () => {
    const rec = recording();
    const c = client({ fetch: rec.fetch });
    const inv = await c.call(books.invoiceDraft.name, draft());
    if (isHold(inv)) throw new Error('a draft is never held');
    expect(inv).toMatchObject({ id: expect.stringMatching(/^inv_/), status: 'draft', totalCents: 110_000, ledgerId: expect.any(String) });
    expect(rec.sent[0]?.key).toMatch(/^fdc-[0-9a-f-]{36}$/);

    const self = await c.read(readSpecs.orgSelf.name);
    expect(self).toMatchObject({ orgId: org.orgId, slug: org.slug });
    const head = (await c.read(readSpecs.snapshot.name)) as { head: { seq: number } };
    expect(head.head.seq).toBeGreaterThan(0);
    expect(rec.sent.slice(1).every((s) => s.method === 'GET' && s.key === null)).toBe(true);
    // A POST of kind read has no side effect to protect: no key.
    const chart = await c.call(booksReads.accounts.name, {});
    expect(chart.accounts.length).toBeGreaterThan(0);
    expect(rec.sent.at(-1)).toEqual({ method: 'POST', path: booksReads.accounts.name, key: null });
  });

  it('an error frame throws FinanceDeskError with code, status, field and request id, and is not retried', async () => {
    const rec = recording();
    const c = client({ fetch: rec.fetch });
    const refused = await c.call(books.invoiceDraft.name, { ...draft(), totalCents: -5 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FinanceDeskError);
    expect(refused).toMatchObject({ code: 'BAD_REQUEST', status: 400, field: 'totalCents', requestId: expect.any(String) });
    const missing = await c.read(readSpecs.boardContext.name, { id: 'tsk_nothing_here' }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(rec.sent).toHaveLength(2);
    // The low-level post never throws for an error frame.
    const low = await c.post(books.invoiceDraft.name, { ...draft(), colour: 'red' });
    expect(low.status).toBe(400);
    expect(low.frame).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST', field: 'colour' } });
  });

  it('keeps the idempotency key across a retry after a lost response: the server replays, one event', async () => {
    sleeps.length = 0;
    const rec = recording(async (s, n, real) => {
      const res = await real();
      if (n === 1) {
        // The server handled the request; its answer never reaches the client.
        await res.text();
        throw new TypeError('fetch failed (the test dropped the response)');
      }
      return res;
    });
    const c = client({ fetch: rec.fetch });
    const answer = await c.post(books.invoiceDraft.name, draft('Lost Answer Pty'));
    expect(rec.sent).toHaveLength(2);
    expect(rec.sent[0]?.key).toMatch(/^fdc-/);
    expect(rec.sent[1]?.key).toBe(rec.sent[0]?.key);
    expect(answer.idempotencyKey).toBe(rec.sent[0]?.key);
    expect(answer.frame).toMatchObject({ ok: true, code: 'IDEMPOTENT_REPLAY', result: { status: 'draft' } });
    expect(sleeps).toHaveLength(1);
    const id = (answer.frame as { result: { id: string } }).result.id;
    const rows: EventRow[] = [];
    for await (const row of client({}, org.keys.observer).events()) rows.push(row);
    expect(rows.filter((r) => r.entity_id === id)).toHaveLength(1);
  });

  it('a network error is not retried for a write without an idempotency key', async () => {
    const rec = recording(() => Promise.reject(new TypeError('fetch failed (the test cut the connection)')));
    const c = client({ fetch: rec.fetch });
    await expect(c.call(books.invoiceDraft.name, draft(), { idempotencyKey: null })).rejects.toThrow(/cut the connection/);
    expect(rec.sent).toHaveLength(1);
    expect(rec.sent[0]?.key).toBeNull();
    // A read is idempotent: retried up to maxRetries, then the error goes to the caller.
    await expect(client({ fetch: rec.fetch, maxRetries: 2 }).read(readSpecs.snapshot.name)).rejects.toThrow(/cut the connection/);
    expect(rec.sent).toHaveLength(4);
  });

  it('INTERNAL is retried for idempotent calls only; 503 is always retried', async () => {
    const internal = frameResponse(500, { ok: false, error: { code: 'INTERNAL', message: 'internal error; quote request id r1' } });
    const failFirst = () => recording(async (_s, n, real) => (n === 1 ? internal.clone() : real()));

    // A write without a key may have executed: not retried, the error goes to the caller.
    const noKey = failFirst();
    const refused = await client({ fetch: noKey.fetch })
      .call(books.invoiceDraft.name, draft(), { idempotencyKey: null })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FinanceDeskError);
    expect(refused).toMatchObject({ code: 'INTERNAL', status: 500 });
    expect(noKey.sent).toHaveLength(1);

    // A write with its key is retried under the same key and executes once.
    const keyed = failFirst();
    const inv = await client({ fetch: keyed.fetch }).call(books.invoiceDraft.name, draft());
    expect(inv).toMatchObject({ status: 'draft' });
    expect(keyed.sent).toHaveLength(2);
    expect(keyed.sent[1]?.key).toBe(keyed.sent[0]?.key);

    // A read is retried.
    const read = failFirst();
    expect(await client({ fetch: read.fetch }).read(readSpecs.orgSelf.name)).toMatchObject({ orgId: org.orgId });
    expect(read.sent).toHaveLength(2);

    // An unknown error code is treated as INTERNAL (HTTP 500).
    const odd = recording(() => Promise.resolve(frameResponse(500, { ok: false, error: { code: 'MOON_PHASE', message: 'no' } })));
    await expect(client({ fetch: odd.fetch, maxRetries: 1 }).read(readSpecs.orgSelf.name)).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(odd.sent).toHaveLength(2);

    // 503 (a server shutting down answers before it executes anything): retried even without a key.
    const closing = recording(async (_s, n, real) => (n === 1 ? new Response('Service Unavailable', { status: 503 }) : real()));
    const after503 = await client({ fetch: closing.fetch }).call(books.invoiceDraft.name, draft(), { idempotencyKey: null });
    expect(after503).toMatchObject({ status: 'draft' });
    expect(closing.sent).toHaveLength(2);

    // Other codes are never retried.
    const conflict = recording(() => Promise.resolve(frameResponse(409, { ok: false, error: { code: 'CONFLICT', message: 'lost race' } })));
    await expect(client({ fetch: conflict.fetch }).call(books.invoiceDraft.name, draft())).rejects.toMatchObject({
      code: 'CONFLICT',
      status: 409,
    });
    expect(conflict.sent).toHaveLength(1);
  });

  it('pages events over several pages, verifying the chain, and resumes from an anchor', async () => {
    const o = await t.org();
    const c = client({}, o.keys.agent);
    for (let i = 0; i < 5; i += 1) await c.call(books.invoiceDraft.name, draft(`Payee ${i}`));
    const all = (await t.get(o.keys.observer, `${readSpecs.events.name}?limit=500`)).body.events as EventRow[];
    expect(all.length).toBeGreaterThanOrEqual(5);

    const rec = recording();
    const rows: EventRow[] = [];
    for await (const row of client({ fetch: rec.fetch }, o.keys.observer).events({ pageSize: 2 })) rows.push(row);
    expect(rows).toEqual(all);
    expect(rec.sent.filter((s) => s.path === readSpecs.events.name).length).toBe(Math.floor(all.length / 2) + 1);

    const anchor = { seq: 2, rowHash: all[1]!.row_hash };
    const rest: EventRow[] = [];
    for await (const row of client({}, o.keys.observer).events({ anchor, pageSize: 2 })) rest.push(row);
    expect(rest).toEqual(all.slice(2));

    // An anchor that is not the real row 2: the first row after it does not link.
    const wrong = { seq: 2, rowHash: all[0]!.row_hash };
    const broken = await (async () => {
      for await (const _row of client({}, o.keys.observer).events({ anchor: wrong })) void _row;
    })().catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(ChainBrokenError);
    expect(broken).toMatchObject({ seq: 3, reason: 'prev_hash' });
  });

  it('detects a tampered row on the wire, naming its seq, after yielding the rows before it', async () => {
    const o = await t.org();
    const c = client({}, o.keys.agent);
    for (let i = 0; i < 4; i += 1) await c.call(books.invoiceDraft.name, draft(`Tamper ${i}`));
    const rec = recording(async (s, _n, real) => {
      const res = await real();
      if (s.path !== readSpecs.events.name) return res;
      const page = (await res.json()) as { events: EventRow[]; nextCursor: number };
      const events = page.events.map((e) =>
        e.seq === 3 ? { ...e, payload: { ...(e.payload as Record<string, unknown>), totalCents: 1 } } : e,
      );
      return frameResponse(200, { ...page, events });
    });
    const seen: number[] = [];
    const broken = await (async () => {
      for await (const row of client({ fetch: rec.fetch }, o.keys.observer).events({ pageSize: 2 })) seen.push(row.seq);
    })().catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(ChainBrokenError);
    expect(broken).toMatchObject({ seq: 3, reason: 'row_hash' });
    expect(seen).toEqual([1, 2]);
  });

  it('callWithApproval drives hold → request → wait → a human approves → retry with a fresh key → result', async () => {
    const id = await sentInvoice(t, org);
    const rec = recording();
    const waits: WaitingInfo[] = [];
    const result = await client({ fetch: rec.fetch }).callWithApproval(
      books.invoiceChaseStep.name,
      { id, step: 2 },
      {
        onWaiting: (w) => {
          waits.push(w);
          if (w.round === 1) setTimeout(() => void decide(t, org, w.approvalId, true), 150);
        },
      },
    );
    expect(result).toMatchObject({ id, step: 2, ledgerId: expect.any(String) });
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(waits[0]).toMatchObject({
      approvalId: expect.stringMatching(/.+/),
      summary: expect.stringContaining('Harbour Cafe'),
      expiresAt: expect.any(String),
      actionClass: books.invoiceChaseStep.actionClass,
      round: 1,
    });
    const acts = rec.sent.filter((s) => s.path === books.invoiceChaseStep.name);
    expect(acts).toHaveLength(2);
    expect(acts[0]?.key).toMatch(/^fdc-/);
    expect(acts[1]?.key).toMatch(/^fdc-/);
    expect(acts[1]?.key).not.toBe(acts[0]?.key);
    expect(rec.sent.map((s) => s.path)).toEqual([
      books.invoiceChaseStep.name,
      approval.request.name,
      ...waits.map(() => readSpecs.approvalWait.name),
      books.invoiceChaseStep.name,
    ]);
    // The act is done: the ledger's last row carries the returned ledgerId.
    const last = ((await t.get(org.keys.observer, `${readSpecs.events.name}?limit=500`)).body.events as EventRow[]).at(-1);
    expect(last?.entity_id).toBe(id);
    expect(last?.row_hash.startsWith(result.ledgerId)).toBe(true);
  });

  it('callWithApproval raises ApprovalDeniedError when the human rejects, and does not retry the act', async () => {
    const id = await sentInvoice(t, org);
    const rec = recording();
    const denied = await client({ fetch: rec.fetch })
      .callWithApproval(
        books.invoiceChaseStep.name,
        { id, step: 2 },
        {
          onWaiting: (w) => {
            if (w.round === 1) setTimeout(() => void decide(t, org, w.approvalId, false, 'not this customer'), 150);
          },
        },
      )
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(ApprovalDeniedError);
    expect(denied).toMatchObject({ approvalStatus: 'denied', reason: 'not this customer', code: 'GOVERNANCE_NOT_READY' });
    expect(rec.sent.filter((s) => s.path === books.invoiceChaseStep.name)).toHaveLength(1);
  });

  it('callWithApproval also runs the loop from the refusal to approve a held bill, which carries error.approval', async () => {
    const o = await t.org();
    const c = client({}, o.keys.agent);
    const bill = await c.call(books.billCapture.name, {
      payeeName: 'New Supplier Pty Ltd',
      description: 'Fit-out',
      totalCents: 900_000,
      dueDays: 14,
    });
    if (isHold(bill)) throw new Error('a capture is never held');
    expect(bill.heldReason).toBeTruthy();
    const waits: WaitingInfo[] = [];
    const approved = await c.callWithApproval(
      books.billApprove.name,
      { id: bill.id },
      {
        onWaiting: (w) => {
          waits.push(w);
          if (w.round === 1) setTimeout(() => void decide(t, o, w.approvalId, true), 100);
        },
      },
    );
    expect(approved).toMatchObject({ id: bill.id, status: 'approved' });
    expect(waits[0]).toMatchObject({ actionClass: books.billApprove.actionClass });
  });

  it('callWithApproval gives up after maxWaitMs with the approval still pending', async () => {
    const id = await sentInvoice(t, org);
    const waits: WaitingInfo[] = [];
    const started = Date.now();
    const timedOut = await client()
      .callWithApproval(books.invoiceChaseStep.name, { id, step: 2 }, { maxWaitMs: 1500, pollMs: 200, onWaiting: (w) => waits.push(w) })
      .catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(ApprovalTimeoutError);
    expect(timedOut).toMatchObject({ approvalStatus: 'pending', approvalId: waits[0]?.approvalId });
    // 1.5 s in rounds of at most 200 ms: several rounds, numbered in order, each reported.
    expect(waits.length).toBeGreaterThanOrEqual(2);
    expect(waits.map((w) => w.round)).toEqual(waits.map((_w, i) => i + 1));
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('an abort signal ends the approval loop while it waits', async () => {
    const id = await sentInvoice(t, org);
    // The long-poll itself is played by the wrapped fetch (hold and request reach the server):
    // a wait aborted on the wire leaves the test server's close() hanging for about a minute.
    const rec = recording(async (s, _n, real, init) => {
      if (s.path !== readSpecs.approvalWait.name) return real();
      return new Promise<Response>((_resolve, reject) => {
        const signal = init?.signal;
        if (!signal) return reject(new Error('the wait was sent without the caller’s signal'));
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    });
    const ac = new AbortController();
    const started = Date.now();
    const aborted = await client({ fetch: rec.fetch })
      .callWithApproval(
        books.invoiceChaseStep.name,
        { id, step: 2 },
        {
          signal: ac.signal,
          onWaiting: () => setTimeout(() => ac.abort(), 100),
        },
      )
      .catch((e: unknown) => e);
    expect(aborted).toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(rec.sent.map((s) => s.path)).toEqual([books.invoiceChaseStep.name, approval.request.name, readSpecs.approvalWait.name]);
  });

  it('params and results are typed from the declarations (checked by tsc -p tsconfig.test.json)', () => {
    const typed = async (c: FinanceDesk) => {
      // @ts-expect-error `colour` is not a param of books.invoiceDraft
      await c.call(books.invoiceDraft.name, { ...draft(), colour: 'red' });
      // @ts-expect-error `totalCents` is an integer of cents, not a string
      await c.call(books.invoiceDraft.name, { ...draft(), totalCents: '100' });
      // @ts-expect-error no such method
      await c.call('books.noSuchMethod', {});
      // @ts-expect-error no such read
      await c.read('no.such.read');
      // A method that is never held answers its declared result, no isHold check needed.
      const r = await c.call(books.invoiceDraft.name, draft());
      expectTypeOf(r.totalCents).toEqualTypeOf<number>();
      // A signature act's declared result includes the hold shape: isHold first.
      const chase = await c.call(books.invoiceChaseStep.name, { id: r.id, step: 2 });
      // @ts-expect-error the answer may be a hold, which has no step
      void chase.step;
      if (!isHold(chase)) expectTypeOf(chase.step).toEqualTypeOf<number>();
      const a = await c.callWithApproval(books.invoiceChaseStep.name, { id: 'inv_x', step: 2 });
      expectTypeOf(a.ledgerId).toEqualTypeOf<string>();
      await c.read(readSpecs.events.name, { cursor: 5, limit: 2 });
    };
    expect(typeof typed).toBe('function');
  });
});

describe.each(engines)('@finance-desk/client under a rate limit (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;
  beforeAll(async () => {
    // One request a second, burst of one: a second request at once is RATE_LIMITED, Retry-After 1.
    t = await startTestServer(engine, { ratePerSecond: 1, rateBurst: 1 });
    org = await t.org();
  });
  afterAll(async () => t.close());

  it('waits as Retry-After asks, then succeeds under the same idempotency key', async () => {
    const sleeps: number[] = [];
    const rec = recording();
    const c = new FinanceDesk({
      baseUrl: t.url,
      apiKey: org.keys.agent,
      fetch: rec.fetch,
      sleep: async (ms) => {
        sleeps.push(ms);
        await new Promise((r) => setTimeout(r, ms));
      },
    });
    await c.call(books.invoiceDraft.name, draft());
    const second = await c.call(books.invoiceDraft.name, draft('Second Pty'));
    expect(second).toMatchObject({ status: 'draft' });
    expect(sleeps.length).toBeGreaterThanOrEqual(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(1000);
    const posts = rec.sent.slice(1);
    expect(posts.length).toBe(sleeps.length + 1);
    expect(new Set(posts.map((s) => s.key)).size).toBe(1);

    // With no retries left, the caller gets RATE_LIMITED and how long to wait.
    const impatient = new FinanceDesk({ baseUrl: t.url, apiKey: org.keys.agent, maxRetries: 0 });
    await impatient.read(readSpecs.orgSelf.name).catch(() => undefined);
    const limited = await impatient.read(readSpecs.orgSelf.name).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(FinanceDeskError);
    expect(limited).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfterMs: expect.any(Number) });
    expect((limited as FinanceDeskError).retryAfterMs).toBeGreaterThanOrEqual(1000);
  });
});

describe('retry arithmetic', () => {
  it('backoff doubles up to the cap, jittered within its upper half', () => {
    const b = { baseMs: 100, maxMs: 1000 };
    expect([0, 1, 2, 3, 4, 9].map((n) => backoffMs(n, b, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([0, 1, 2, 3, 4, 9].map((n) => backoffMs(n, b, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
  });

  it('Retry-After in seconds or as an HTTP date, and the message hint: the larger wins', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('2', undefined, now)).toBe(2000);
    expect(retryAfterMs(null, 'rate limit exceeded for this key; retry in 3 seconds', now)).toBe(3000);
    expect(retryAfterMs('1', 'rate limit exceeded for this key; retry in 3 seconds', now)).toBe(3000);
    expect(retryAfterMs('4', 'retry in 3 seconds', now)).toBe(4000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', undefined, now)).toBe(5000);
    expect(retryAfterMs(null, 'rate limit exceeded', now)).toBeUndefined();
    expect(retryAfterMs('soon', undefined, now)).toBeUndefined();
  });
});

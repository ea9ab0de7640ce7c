import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TIME_ZONE, localDate } from '../src/clock.js';
import type { CreatedOrg } from '../src/org/orgs.js';
import { engines, startTestServer, type TestServer } from './harness.js';

const draft = { payeeName: 'Harbour Cafe', description: 'October catering', totalCents: 110_000, dueDays: 30 };

describe.each(engines)('invoiceDraft and invoiceSend (%s)', (engine) => {
  let t: TestServer;
  let org: CreatedOrg;

  beforeAll(async () => {
    t = await startTestServer(engine);
    org = await t.org();
  });
  afterAll(async () => t.close());

  const lastEvent = async () => (await t.get(org.keys.observer, 'events?limit=500')).body.events.at(-1);

  it('draft returns id, status draft and ledgerId; event books/books.invoice.draft', async () => {
    const r = await t.post(org.keys.agent, 'books.invoiceDraft', draft);
    expect(r.body.result).toMatchObject({ status: 'draft', totalCents: 110_000, dueDays: 30, issuedOn: null });
    expect(r.body.result.id).toMatch(/^inv_/);
    const e = await lastEvent();
    expect(e).toMatchObject({
      family: 'books',
      kind: 'books.invoice.draft',
      entity_id: r.body.result.id,
      payload: { payee: 'Harbour Cafe', totalCents: 110_000, dueDays: 30, description: 'October catering' },
    });
    expect(e.row_hash.slice(0, 8)).toBe(r.body.result.ledgerId);
  });

  it('send moves draft → sent, dated today and due dueDays later', async () => {
    const id = (await t.post(org.keys.agent, 'books.invoiceDraft', draft)).body.result.id;
    const r = await t.post(org.keys.agent, 'books.invoiceSend', { id });
    expect(r.status).toBe(200);
    const today = localDate(new Date().toISOString(), DEFAULT_TIME_ZONE);
    const due = new Date(Date.parse(`${today}T00:00:00Z`) + 30 * 86_400_000).toISOString().slice(0, 10);
    expect(r.body.result).toMatchObject({ id, status: 'sent', issuedOn: today, dueOn: due });
    expect(await lastEvent()).toMatchObject({ kind: 'books.invoice.send', entity_id: id });
  });

  it('sending a sent invoice again is a no-op with the ledgerId of the send', async () => {
    const id = (await t.post(org.keys.agent, 'books.invoiceDraft', draft)).body.result.id;
    const sent = await t.post(org.keys.agent, 'books.invoiceSend', { id });
    const seq = (await lastEvent()).seq;
    const again = await t.post(org.keys.agent, 'books.invoiceSend', { id });
    expect(again.status).toBe(200);
    expect(again.body.result).toMatchObject({ id, status: 'sent', noop: true, ledgerId: sent.body.result.ledgerId });
    expect((await lastEvent()).seq).toBe(seq);
  });

  it('sending an unknown invoice is NOT_FOUND; a bad id is BAD_REQUEST', async () => {
    const r = await t.post(org.keys.agent, 'books.invoiceSend', { id: 'inv_nope' });
    expect(r.body.error).toEqual({ code: 'NOT_FOUND', message: 'invoice inv_nope not found' });
    const bad = await t.post(org.keys.agent, 'books.invoiceSend', { id: 'has space' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^id: /);
  });

  it('sending a void invoice is CONFLICT naming the state', async () => {
    const id = (await t.post(org.keys.agent, 'books.invoiceDraft', draft)).body.result.id;
    await t.db.write(async (tx) => tx.run("UPDATE invoices SET status = 'void' WHERE id = ?", [id]));
    const r = await t.post(org.keys.agent, 'books.invoiceSend', { id });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toBe(`invoice ${id} is void; only a draft invoice can be sent`);
  });
});

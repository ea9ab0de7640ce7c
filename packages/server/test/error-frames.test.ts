import { firstField } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestServer, type TestServer } from './harness.js';
import { decide, freshKey } from './signature-helpers.js';

/**
 * One hold shape: the refusal to approve a held bill carries the approval to file as data
 * (`error.approval`), and a refused parameter is named in `error.field`, so that no client parses
 * prose.
 */
describe('firstField', () => {
  it.each([
    ['totalCents: must be an integer greater than 0; colour: unknown field', 'totalCents'],
    ['lines[0].amountCents: must be at least 1', 'lines[0].amountCents'],
    ['file.content: not a bank statement', 'file.content'],
    ['params: must be a JSON object', undefined],
    ['body: not valid JSON', undefined],
    ['approval apr_1 is still pending a human decision', undefined],
    ['content-type: not a media type this server reads', undefined],
  ])('%s → %s', (message, field) => {
    expect(firstField(message)).toBe(field);
  });
});

describe.each(engines)('error frames (%s)', (engine) => {
  let t: TestServer;

  beforeAll(async () => {
    t = await startTestServer(engine);
  });
  afterAll(async () => t.close());

  it('names the first offending parameter of a POST in error.field', async () => {
    const o = await t.org();
    const r = await t.post(o.keys.agent, 'books.invoiceDraft', {
      payeeName: 'Acme',
      description: 'x',
      totalCents: 0,
      dueDays: 7,
      colour: 1,
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('totalCents: '),
      field: 'totalCents',
    });
    const unknown = await t.post(o.keys.agent, 'books.invoiceDraft', {
      payeeName: 'Acme',
      description: 'x',
      totalCents: 100,
      dueDays: 7,
      colour: 1,
    });
    expect(unknown.body.error.field).toBe('colour');
  });

  it('names the query parameter of a GET read, and leaves field out where no parameter is at fault', async () => {
    const o = await t.org();
    const r = await t.get(o.keys.reader, 'events?limit=0');
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe('limit');
    const notFound = await t.post(o.keys.agent, 'books.invoiceSend', { id: 'inv_00000000000000000000000000' });
    expect(notFound.status).toBe(404);
    expect(notFound.body.error).not.toHaveProperty('field');
    const badJson = await t.raw('/api/v1/books.invoiceDraft', {
      method: 'POST',
      headers: { authorization: `Bearer ${o.keys.agent}`, 'content-type': 'application/json' },
      body: '{',
    });
    expect(badJson.status).toBe(400);
    expect(badJson.body.error).not.toHaveProperty('field');
  });

  it('the refusal to approve a held bill carries error.approval: filing it as given and retrying with the proof approves the bill', async () => {
    const o = await t.org();
    const cap = await t.post(o.keys.agent, 'books.billCapture', {
      payeeName: 'New Supplier Pty Ltd',
      description: 'Fit-out',
      totalCents: 900_000,
      dueDays: 14,
    });
    expect(cap.body.result.heldReason).toBeTruthy();
    const refused = await t.post(o.keys.agent, 'books.billApprove', { id: cap.body.result.id });
    expect(refused.status).toBe(423);
    const approval = refused.body.error.approval;
    expect(refused.body.error.code).toBe('GOVERNANCE_NOT_READY');
    expect(approval).toEqual({
      actionClass: 'books.bill_approve',
      payloadHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      subject: { kind: 'books.signature', subjectId: cap.body.result.id, summary: expect.any(String) },
    });
    // The message still names the payload hash to file, and the structured hash is the one it names.
    expect(refused.body.error.message).toContain(approval.payloadHash);

    const req = await t.post(o.keys.agent, 'approval.request', approval);
    expect(req.status, JSON.stringify(req.body)).toBe(200);
    const decided = await decide(t, o, req.body.result.approvalId, true);
    const done = await t.post(
      o.keys.agent,
      'books.billApprove',
      { id: cap.body.result.id, signatureToken: decided.signatureToken },
      { 'x-idempotency-key': freshKey() },
    );
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.result.status).toBe('approved');
  });
});

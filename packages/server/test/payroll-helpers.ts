/**
 * Shared steps of the payroll tests (payroll.test.ts, stp.test.ts): an employee taken through
 * every onboarding step and the human's approval of the contract, and a pay run signed through
 * the signature loop (hold → approval.request → the human approves → retry with the proof).
 */
import { expect } from 'vitest';
import type { CreatedOrg } from '../src/org/orgs.js';
import type { TestServer } from './harness.js';
import { decide, freshKey, heldAndRequested } from './signature-helpers.js';

export const FUND = { fundName: 'AustralianSuper', fundAbn: '65 714 394 898', memberNumber: 'M-123456' };
export const BASE = {
  email: 'staff@harbourside.example',
  startDate: '2026-07-01',
  employmentBasis: 'full_time',
  payFrequency: 'fortnightly',
};

async function ok(t: TestServer, o: CreatedOrg, method: string, params: Record<string, unknown>) {
  const r = await t.post(o.keys.agent, method, params);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.result;
}

/** An active employee (BASE with `start` over it), resident, with the given TFN and threshold claim. */
export async function activeEmployee(
  t: TestServer,
  o: CreatedOrg,
  start: Record<string, unknown>,
  tax: { tfn?: string; tft?: boolean } = {},
): Promise<string> {
  const e = await ok(t, o, 'books.onboardingStart', { ...BASE, ...start });
  await ok(t, o, 'books.onboardingAdvance', {
    id: e.id,
    step: 'tax_declaration',
    taxFileNumber: tax.tfn ?? '876543210',
    residency: 'resident',
    claimsTaxFreeThreshold: tax.tft ?? true,
  });
  await ok(t, o, 'books.onboardingAdvance', { id: e.id, step: 'super', ...FUND });
  const params = { id: e.id, step: 'contract', title: 'Joiner' };
  const { approvalId } = await heldAndRequested(t, o, 'books.onboardingAdvance', params);
  await decide(t, o, approvalId, true);
  const done = await t.post(o.keys.agent, 'books.onboardingAdvance', { ...params, approvalId }, { 'x-idempotency-key': freshKey() });
  expect(done.body.result.status).toBe('active');
  return e.id as string;
}

/** A drafted pay run signed with a human's proof; the hold frame and the signed run. */
export async function signPayRun(t: TestServer, o: CreatedOrg, id: string) {
  const { hold, approvalId } = await heldAndRequested(t, o, 'books.payrollSign', { id });
  await decide(t, o, approvalId, true);
  const done = await t.post(o.keys.agent, 'books.payrollSign', { id, approvalId }, { 'x-idempotency-key': freshKey() });
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  return { hold, result: done.body.result };
}

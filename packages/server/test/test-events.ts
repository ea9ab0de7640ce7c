import { eventKind, eventKinds, events, type EventKindSpec } from '@finance-desk/protocol';
import { z } from 'zod';

/**
 * Test only: an event a test writes straight through `inUnitOfWork` to exercise a ledger API
 * (a payment applied, leave accrued, a journal on a chosen date) with no method behind it. Not in
 * the published catalogue; the harness accepts it beside the catalogue's kinds (harness.ts
 * checkOrgEvents), so every other event a test writes is still checked.
 */
export const testFixture = eventKind({
  family: 'books',
  kind: 'books.test.fixture',
  summary: 'Test only: the one event of a unit of work a test runs directly against a ledger API.',
  // `journals`: what the write path binds when the unit posts a journal (protocol bindings.ts).
  payload: z.record(z.string(), z.union([z.string(), z.number().int(), events.journalBindings])).nullable(),
  emittedBy: ['system'],
});

/** The catalogue plus the test fixture, by kind. */
export const testCatalogue: ReadonlyMap<string, EventKindSpec> = new Map([...eventKinds, testFixture].map((e) => [e.kind, e]));

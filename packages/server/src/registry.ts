import { approval, board, books, methods, readSpecs, type MethodSpec, type ReadSpec } from '@finance-desk/protocol';
import type { z } from 'zod';
import * as boardDomain from './domain/board/board.js';
import * as bills from './domain/payables/bills.js';
import { invoiceChaseStep } from './domain/receivables/chase.js';
import * as invoices from './domain/receivables/invoices.js';
import { requestApproval, type HoldFinder } from './governance/approvals.js';
import { openHold } from './governance/signature.js';
import type { Principal } from './principal.js';
import type { Database } from './storage/types.js';
import type { Uow, WriteResult } from './write-path.js';
import { readHandlers } from './reads.js';

/** Binds each declared method (protocol/methods) to its domain handler, once. */
export type WriteHandler<S extends MethodSpec> = (params: z.infer<S['params']>, uow: Uow) => Promise<WriteResult>;

export interface MethodBinding {
  readonly spec: MethodSpec;
  readonly write: (params: unknown, uow: Uow) => Promise<WriteResult>;
}

function bind<S extends MethodSpec>(spec: S, handler: WriteHandler<S>): MethodBinding {
  return { spec, write: handler as (params: unknown, uow: Uow) => Promise<WriteResult> };
}

/** An open hold, or for PB-B1 a held bill (D7). */
const findHold: HoldFinder = async (uow, actionClass, subjectId, payloadHash) =>
  (await openHold(uow, actionClass, subjectId, payloadHash)) ??
  (actionClass === 'books.bill_approve' ? bills.pbB1Hold(uow, subjectId, payloadHash) : null);

const bindings: readonly MethodBinding[] = [
  bind(books.invoiceDraft, invoices.invoiceDraft),
  bind(books.invoiceSend, invoices.invoiceSend),
  bind(books.invoiceChaseStep, invoiceChaseStep),
  bind(books.billCapture, bills.billCapture),
  bind(books.billApprove, bills.billApprove),
  bind(books.billHold, bills.billHold),
  bind(books.billReturn, bills.billReturn),
  bind(approval.request, (params, uow) => requestApproval(params, uow, findHold)),
  bind(board.createTask, boardDomain.createTask),
  bind(board.claim, boardDomain.claim),
];

export const methodRegistry: ReadonlyMap<string, MethodBinding> = new Map(bindings.map((b) => [b.spec.name, b]));

/** Declared but without a handler here: NOT_FOUND "not deployed" (seed §7). */
export const declaredMethods: ReadonlySet<string> = new Set(methods.map((m) => m.name));

export { RawJson } from './raw-json.js';

export interface ReadContext {
  readonly db: Database;
  readonly principal: Principal;
}

export interface ReadBinding {
  readonly spec: ReadSpec;
  readonly run: (query: unknown, ctx: ReadContext) => Promise<unknown>;
}

export const readRegistry: ReadonlyMap<string, ReadBinding> = new Map(
  readHandlers.map((b) => [b.spec.name, b]),
);

export { readSpecs };

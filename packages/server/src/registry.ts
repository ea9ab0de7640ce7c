import { approval, board, books, methods } from '@finance-desk/protocol';
import * as boardDomain from './domain/board/board.js';
import * as bills from './domain/payables/bills.js';
import { requestApproval, type HoldFinder } from './governance/approvals.js';
import { actionClassOf, openHold } from './governance/signature.js';
import { bind, type MethodBinding, type ReadBinding } from './binding.js';
import { readHandlers } from './reads.js';
import { receivablesBindings } from './domain/receivables/bindings.js';
import { payablesBindings } from './domain/payables/bindings.js';
import { reconciliationBindings } from './domain/reconciliation/bindings.js';
import { bankingBindings } from './domain/banking/bindings.js';
import { booksReadBindings } from './domain/reports/bindings.js';
import { assetsBindings } from './domain/assets/bindings.js';
import { peopleBindings } from './domain/people/bindings.js';
import { taxBindings } from './domain/tax/bindings.js';
import { payrollBindings } from './domain/payroll/bindings.js';
import { contactsBindings } from './domain/contacts/bindings.js';
import { chartBindings } from './domain/gl/bindings.js';
import { repeatingBindings } from './domain/repeating/bindings.js';
import { quotesBindings } from './domain/quotes/bindings.js';
import { askBindings } from './domain/ask/bindings.js';
import { correctionsBindings } from './domain/corrections/bindings.js';
import { creditsBindings } from './domain/credits/bindings.js';
import { attachmentBindings } from './domain/attachments/bindings.js';
import { currenciesBindings } from './domain/currencies/bindings.js';

export type { MethodBinding, ReadBinding, ReadContext } from './binding.js';

/** An open hold, or for the bill-approval rule a held bill (`heldReason` set). */
const findHold: HoldFinder = async (uow, actionClass, subjectId, payloadHash) =>
  (await openHold(uow, actionClass, subjectId, payloadHash)) ??
  (actionClass === actionClassOf(books.billApprove) ? bills.pbB1Hold(uow, subjectId, payloadHash) : null);

const coreBindings: readonly MethodBinding[] = [
  bind(approval.request, (params, uow) => requestApproval(params, uow, findHold)),
  bind(board.createTask, boardDomain.createTask),
  bind(board.claim, boardDomain.claim),
];

/** Each area lists its own bindings (domain/<area>/bindings.ts); one name, one binding. */
const bindings: readonly MethodBinding[] = [
  ...coreBindings,
  ...receivablesBindings,
  ...payablesBindings,
  ...reconciliationBindings,
  ...correctionsBindings,
  ...creditsBindings,
  ...attachmentBindings,
  ...bankingBindings,
  ...taxBindings,
  ...booksReadBindings,
  ...assetsBindings,
  ...peopleBindings,
  ...payrollBindings,
  ...contactsBindings,
  ...chartBindings,
  ...repeatingBindings,
  ...quotesBindings,
  ...currenciesBindings,
  ...askBindings,
];

export const methodRegistry: ReadonlyMap<string, MethodBinding> = new Map(bindings.map((b) => [b.spec.name, b]));
if (methodRegistry.size !== bindings.length) throw new Error('a method is bound twice');

/** Declared but without a handler here: NOT_FOUND "not deployed". */
export const declaredMethods: ReadonlySet<string> = new Set(methods.map((m) => m.name));

export { RawJson } from './raw-json.js';

export const readRegistry: ReadonlyMap<string, ReadBinding> = new Map(readHandlers.map((b) => [b.spec.name, b]));

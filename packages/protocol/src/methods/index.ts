import { boardMethods } from './board.js';
import { approvalMethods } from './approval.js';
import { booksMethods } from './books.js';
import { booksReadMethods } from './books-reads.js';
import { payablesMethods } from './payables.js';
import { receivablesMethods } from './receivables.js';
import { reconciliationMethods } from './reconciliation.js';
import { bankAccountMethods } from './bank-accounts.js';
import { assetsMethods } from './assets.js';
import { peopleMethods } from './people.js';
import { taxMethods } from './tax.js';
import { payrollMethods } from './payroll.js';
import { contactsMethods } from './contacts.js';
import { chartMethods } from './chart.js';
import { askMethods } from './ask.js';
import { correctionsMethods } from './corrections.js';
import { creditsMethods } from './credits.js';
import { repeatingMethods } from './repeating.js';
import { quotesMethods } from './quotes.js';
import { attachmentMethods } from './attachments.js';
import { currenciesMethods } from './currencies.js';
import type { z } from 'zod';
import type { MethodSpec } from './types.js';

export * as books from './books.js';
export * as board from './board.js';
export * as approval from './approval.js';
export * as receivables from './receivables.js';
export * as payables from './payables.js';
export * as reconciliation from './reconciliation.js';
export * as bankAccounts from './bank-accounts.js';
export {
  BANK_ACCOUNT_KINDS,
  bankAccountCreate,
  bankAccountUpdate,
  type BankAccountCreate,
  type BankAccountKind,
  type BankAccountUpdate,
  type DirectEntryField,
} from './bank-accounts.js';
export * as booksReads from './books-reads.js';
export * as assets from './assets.js';
export { ASSET_METHODS, FIXED_ASSET_ACCOUNT, TAX_TREATMENTS, type AssetMethod, type TaxTreatment } from './assets.js';
export * as people from './people.js';
export * as tax from './tax.js';
export * as payroll from './payroll.js';
export * as contacts from './contacts.js';
export * as chart from './chart.js';
export * as budgets from './budgets.js';
export * as tracking from './tracking.js';
export * as ask from './ask.js';
export * as corrections from './corrections.js';
export * as credits from './credits.js';
export * as repeating from './repeating.js';
export { REPEATING_ACTIVE_MAX, templateProblems, type RepeatingAction, type RepeatingFrequency, type RepeatingKind } from './repeating.js';
export * as attachments from './attachments.js';
export * as quotes from './quotes.js';
export * as currencies from './currencies.js';
export { ASK_NOTICE, ASK_QUESTION_CHARS_MAX } from './ask.js';
export * as readSpecs from './reads.js';
export * as org from './org.js';
export {
  AGENT_STATUSES,
  BAS_FREQUENCIES,
  KEY_STATUSES,
  agentName,
  orgPair,
  orgProfilePatch,
  pairingCodeCreate,
  pairingLimits,
  publicRoutes,
  type OrgProfilePatch,
  type PairingCodeCreate,
  type PublicRouteSpec,
} from './org.js';
import { reads } from './reads.js';
export { reads, NOT_DEPLOYED_READS } from './reads.js';
export { ALWAYS_AREA, AREAS, OPT_IN_AREAS, areaOf, isArea, methodAreas, type Area } from './areas.js';
export { ARTIFACT_FILES, ARTIFACTS_READ, artifactReads, artifactsIndex, type ArtifactFile } from './artifacts-reads.js';
export { MEETING_KINDS, MEETINGS_RANGE_DAYS_MAX, type MeetingKind } from './reads.js';
export { COST_ROLLUP_RANGE_DAYS_MAX } from './reads.js';
export type { MethodKind, MethodSpec, ReadSpec } from './types.js';
export { PRIORITIES } from './board.js';

/** Every declaration in one tuple whose element types keep each method's literal name and kind. */
const declared = [
  ...booksMethods,
  ...receivablesMethods,
  ...quotesMethods,
  ...payablesMethods,
  ...reconciliationMethods,
  ...correctionsMethods,
  ...creditsMethods,
  ...attachmentMethods,
  ...bankAccountMethods,
  ...taxMethods,
  ...booksReadMethods,
  ...assetsMethods,
  ...peopleMethods,
  ...payrollMethods,
  ...contactsMethods,
  ...chartMethods,
  ...repeatingMethods,
  ...currenciesMethods,
  ...askMethods,
  ...boardMethods,
  ...approvalMethods,
] as const satisfies readonly MethodSpec[];

/** Every POST method of the contract, declared once. */
export const methods: readonly MethodSpec[] = declared;

/** Any one declaration, with its literal name, kind and exact params/result schemas. */
export type DeclaredMethod = (typeof declared)[number];
/** The name of a declared POST method (`books.invoiceDraft`, …). */
export type MethodName = DeclaredMethod['name'];
/** Declarations by name, as types: `MethodsByName['books.invoiceDraft']['params']`. */
export type MethodsByName = { readonly [S in DeclaredMethod as S['name']]: S };
/**
 * The same declarations keyed by name, typed per name (the typed client indexes params and
 * results through this). The objects are the ones in `methods`.
 */
export const methodsByName: MethodsByName = Object.fromEntries(declared.map((m) => [m.name, m])) as unknown as MethodsByName;
/**
 * Every POST method's declaration in one flat record keyed by its wire name:
 * `methodSpecs['books.billScheduleRun'].actionClass`. The one way to name a declaration; the area
 * namespaces (`books`, `payables`, `booksReads`, …) stay exported for existing code.
 */
export const methodSpecs: MethodsByName = methodsByName;

/** What a caller sends for method `M`: the params schema's input type (defaults optional). */
export type MethodParams<M extends MethodName> = z.input<MethodsByName[M]['params']>;
/** What method `M` answers in `result` on success: the result schema's output type. */
export type MethodResult<M extends MethodName> = z.output<MethodsByName[M]['result']>;

/** Any one GET read declaration, with its literal name. */
export type DeclaredRead = (typeof reads)[number];
/** The name of a declared GET read (`events`, `approval.wait`, …). */
export type ReadName = DeclaredRead['name'];
/** Read declarations by name, as types. */
export type ReadsByName = { readonly [S in DeclaredRead as S['name']]: S };
/** Every GET read's declaration keyed by its wire name: `readsByName['contacts.list'].query`. */
export const readsByName: ReadsByName = Object.fromEntries(reads.map((r) => [r.name, r])) as unknown as ReadsByName;

/** `family.method`, both parts identifiers (anything else is a malformed name: BAD_REQUEST). */
export const METHOD_NAME = /^[a-z][a-zA-Z0-9]{0,39}\.[a-z][a-zA-Z0-9]{0,59}$/;
/** The query a caller may send to read `N` (values as the query schema accepts them: strings). */
export type ReadQuery<N extends ReadName> = z.input<ReadsByName[N]['query']>;
/** The query of read `N` as the server parses it (integers as numbers, defaults filled in). */
export type ReadQueryParsed<N extends ReadName> = z.output<ReadsByName[N]['query']>;
/**
 * What read `N` answers: its declared result when the declaration has one, else `unknown`
 * (every read declares one now; the fallback keeps a new read typed before it does).
 */
export type ReadResult<N extends ReadName> = ReadsByName[N] extends { readonly result: infer R extends z.ZodType } ? z.output<R> : unknown;

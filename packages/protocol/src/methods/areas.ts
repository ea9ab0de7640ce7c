import { approvalMethods } from './approval.js';
import { artifactReads, artifactsIndex } from './artifacts-reads.js';
import { askMethods } from './ask.js';
import { attachmentMethods } from './attachments.js';
import { assetsMethods } from './assets.js';
import { bankAccountMethods } from './bank-accounts.js';
import { boardMethods } from './board.js';
import * as books from './books.js';
import { chartMethods } from './chart.js';
import { currenciesMethods } from './currencies.js';
import { repeatingMethods } from './repeating.js';
import { quotesMethods } from './quotes.js';
import { booksReadMethods } from './books-reads.js';
import { contactsMethods } from './contacts.js';
import { correctionsMethods, openingBalances } from './corrections.js';
import { billCreditNote, creditAllocate, creditPrepayment, creditRefund } from './credits.js';
import { orgAgents, orgKeys, orgMembers, orgProfile } from './org.js';
import { payablesMethods } from './payables.js';
import { payrollMethods } from './payroll.js';
import { peopleMethods } from './people.js';
import { receivablesMethods } from './receivables.js';
import { reconciliationMethods } from './reconciliation.js';
import * as r from './reads.js';
import { taxMethods } from './tax.js';

/**
 * The areas of the API: each POST method and each GET read belongs to exactly one. A host that
 * needs only part of the API (an MCP host loading a subset of tools, `--toolsets receivables`)
 * names areas. `approval` holds what a held signature act needs to complete (approval.request,
 * approval.wait, and who may decide), so every subset includes it.
 */
export const AREAS = [
  'books',
  'receivables',
  'payables',
  'reconciliation',
  'bank-accounts',
  'corrections',
  'tax',
  'assets',
  'people',
  'payroll',
  'contacts',
  'ask',
  'board',
  'org',
  'approval',
  'setup',
] as const;
export type Area = (typeof AREAS)[number];

/** The area every subset includes: the approval loop. */
export const ALWAYS_AREA: Area = 'approval';

/**
 * Areas a host loads only when it names them. `setup` is what an organisation does once or rarely
 * (the chart, opening balances, budgets, tracking categories): a model running the books day to day
 * would carry its tools' descriptions on every turn for nothing.
 */
export const OPT_IN_AREAS: readonly Area[] = ['setup'];

/** Methods done once or rarely when the books are set up (see OPT_IN_AREAS). */
const SETUP: readonly Named[] = [openingBalances, ...chartMethods];

type Named = { readonly name: string };

/**
 * Declarations by area. Most areas are a declaration file's own list; the core books file holds
 * the core contract's invoice and bill methods, which belong with receivables and payables.
 */
const BY_AREA: Readonly<Record<Area, readonly Named[]>> = {
  books: [
    ...booksReadMethods,
    ...currenciesMethods,
    ...repeatingMethods,
    ...attachmentMethods,
    r.events,
    r.snapshot,
    r.booksFiles,
    r.booksFile,
    artifactsIndex,
    ...artifactReads.map((a) => a.spec),
  ],
  receivables: [books.invoiceDraft, books.invoiceSend, books.invoiceChaseStep, ...receivablesMethods, ...quotesMethods],
  payables: [books.billCapture, books.billApprove, books.billHold, books.billReturn, ...payablesMethods, billCreditNote],
  reconciliation: reconciliationMethods,
  'bank-accounts': bankAccountMethods,
  corrections: correctionsMethods.filter((m) => m !== openingBalances),
  tax: taxMethods,
  assets: assetsMethods,
  people: peopleMethods,
  payroll: payrollMethods,
  contacts: [...contactsMethods, creditPrepayment, creditAllocate, creditRefund, r.contactsList],
  ask: [...askMethods, r.costRollup],
  board: [...boardMethods, r.boardReady, r.boardContext],
  org: [r.directory, r.ops, r.whoami, r.orgSelf, orgProfile, orgMembers, orgAgents, orgKeys, r.meetingsList],
  approval: [...approvalMethods, r.approvalWait, r.decisionList, r.policy, r.hierarchy],
  setup: SETUP,
};

/** Declared name (`books.invoiceDraft`, `org/profile`) → its area. */
export const methodAreas: ReadonlyMap<string, Area> = new Map(AREAS.flatMap((area) => BY_AREA[area].map((d) => [d.name, area] as const)));

/** The area of a declared method or read; undefined for a name that is not declared. */
export function areaOf(name: string): Area | undefined {
  return methodAreas.get(name);
}

export function isArea(value: string): value is Area {
  return (AREAS as readonly string[]).includes(value);
}

/**
 * An open receivable, payable or claim as at a date: the contract between the areas that own
 * documents (receivables, payables, expenses) and those that read them (reconciliation
 * suggestions, aged reports, the property test). `outstandingCents` is always positive: what is
 * still owed to us (invoices) or by us (bills, claims), from the control account's lines.
 */
export interface OpenItem {
  readonly id: string;
  readonly kind: 'invoice' | 'bill' | 'claim';
  readonly party: string;
  readonly reference: string;
  /**
   * Other words a bank line may quote for it: an invoice's number (INV-0042) and the
   * document's own reference. Match suggestions score them as they score `reference`.
   */
  readonly quoted?: readonly string[];
  readonly issuedOn: string;
  /** The date of the document's posting (issue, approval): no payment may be dated before it. */
  readonly postedOn: string;
  readonly dueOn: string;
  readonly totalCents: number;
  readonly outstandingCents: number;
}

/** A party's key: names that differ only in case or spacing are the same party (aged reports group by it). */
export const partyKey = (name: string): string => name.trim().replace(/\s+/g, ' ').toLowerCase();

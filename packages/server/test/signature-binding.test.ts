import { books, methods } from '@finance-desk/protocol';
import { describe, expect, it } from 'vitest';
import { bind, bindSignature } from '../src/binding.js';
import { actionClassOf, signatureHandler, type SignatureAct } from '../src/governance/signature.js';
import { methodRegistry } from '../src/registry.js';

/**
 * Signature acts take their name and action class from the declaration: a
 * `kind: 'signature'` method cannot be bound as an ordinary write, nor an ordinary write as a
 * signature act, and nothing repeats the literals.
 */
const act = (spec: (typeof methods)[number]): SignatureAct<object, null> => ({
  spec,
  load: () => Promise.resolve(null),
  subjectId: () => 'x',
  needsProof: () => true,
  summary: () => 'x',
  state: () => null,
  execute: () => Promise.resolve({ id: 'x' } as never),
});

describe('binding signature acts from their declaration', () => {
  it('every declared signature act is bound, by the engine, under its own declaration', () => {
    const declared = methods.filter((m) => m.kind === 'signature');
    expect(declared.map((m) => m.name).sort()).toEqual([
      'books.billApprove',
      'books.billScheduleRun',
      'books.employeeUpdate',
      'books.invoiceChaseStep',
      'books.matchHoldResolve',
      'books.onboardingAdvance',
      'books.payrollSign',
      'books.stpFinalise',
      'books.superPay',
      'books.taxSignLodge',
    ]);
    for (const m of declared) expect(methodRegistry.get(m.name)?.spec).toBe(m);
  });

  it('a signature declaration cannot be bound with bind(), nor an ordinary write with bindSignature()', () => {
    expect(() => bind(books.billApprove, () => Promise.resolve({} as never))).toThrow(/signature act; bind it with bindSignature/);
    expect(() => signatureHandler(act(books.invoiceDraft))).toThrow(/not declared as a signature act/);
    expect(() => bindSignature({ spec: books.invoiceDraft, run: () => Promise.resolve({}) })).toThrow(/not declared as a signature act/);
  });

  it('the action class is the declaration’s', () => {
    expect(actionClassOf(books.billApprove)).toBe('books.bill_approve');
    expect(actionClassOf(books.invoiceChaseStep)).toBe('books.invoice_chase_step');
    expect(() => actionClassOf(books.invoiceDraft)).toThrow();
  });
});

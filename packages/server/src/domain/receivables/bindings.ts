import { books, receivables } from '@finance-desk/protocol';
import { bind, bindSignature, bindQuery, type MethodBinding } from '../../binding.js';
import { invoiceChaseStep } from './chase.js';
import { invoiceCreditNote } from './credit-notes.js';
import { invoiceDraft, invoiceSend } from './invoices.js';
import { listInvoices, readInvoice } from './invoices-read.js';
import { invoiceRecordPayment } from './payments.js';
import { invoicePromise } from './promises.js';
import { statementRun } from './statements.js';
import { invoiceVoid } from './void.js';
import { invoiceWriteOff } from './write-off.js';

/** Methods of this area, bound once (see registry.ts). */
export const receivablesBindings: readonly MethodBinding[] = [
  bind(books.invoiceDraft, invoiceDraft),
  bind(books.invoiceSend, invoiceSend),
  bindSignature(invoiceChaseStep),
  bind(receivables.invoiceRecordPayment, invoiceRecordPayment),
  bind(receivables.invoiceCreditNote, invoiceCreditNote),
  bind(receivables.invoiceVoid, invoiceVoid),
  bind(receivables.invoiceWriteOff, invoiceWriteOff),
  bind(receivables.invoicePromise, invoicePromise),
  bind(receivables.statementRun, statementRun),
  bindQuery(receivables.invoices, listInvoices),
  bindQuery(receivables.invoiceRead, readInvoice),
];

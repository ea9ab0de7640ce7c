import { booksReads } from '@finance-desk/protocol';
import { bindQuery, type MethodBinding } from '../../binding.js';
import { listAccounts } from './accounts-read.js';
import { listJournals } from './journals-read.js';
import { runReport } from './reports.js';

/** Methods of this area, bound once (see registry.ts). */
export const booksReadBindings: readonly MethodBinding[] = [
  bindQuery(booksReads.accounts, listAccounts),
  bindQuery(booksReads.journals, listJournals),
  bindQuery(booksReads.reports, runReport),
];

import type { FastifyInstance } from 'fastify';
import { DomainError } from '../errors.js';
import { chainStatus } from './console-data.js';
import { pathId, type ConsoleOptions } from './console-http.js';
import { render, signedIn } from './console-pages.js';
import { activityActors, activityFilterOf } from './activity.js';
import { orgToday } from '../clock.js';
import {
  ACTIVITY_PAGE,
  activityOf,
  beforeSeqOf,
  queryField,
  ownerBank,
  ownerBills,
  ownerInvoice,
  ownerInvoices,
  ownerOverview,
  ownerQuotes,
  ownerReports,
  requireBooksViewer,
  type Query,
} from './owner-data.js';
import { activityBody, bankBody, billsBody, invoiceBody, invoicesBody, overviewBody, quotesBody, reportsBody } from './owner-views.js';

/**
 * The owner's read-only view of the books: GET pages only, under /console/books,
 * for owners and approvers (owner-data.ts OWNER_VIEW_ROLES). Each page reads through the API's own
 * domain functions with the session's organisation, so another organisation's invoice is 404 and
 * the figures are the API's. A bad filter or period is a 400 page naming the field.
 */
const query = (req: { query?: unknown }): Query => (req.query ?? undefined) as Query;

export function registerOwnerConsole(app: FastifyInstance, o: ConsoleOptions): void {
  app.get(
    '/console/books',
    signedIn(o, async (_req, reply, s) => {
      requireBooksViewer(s);
      const chain = await chainStatus(o.db, s.orgId);
      const overview = await ownerOverview(o.db, s);
      return render(o, reply, s, { status: 200, title: 'Books', body: overviewBody(overview, chain), current: 'books' });
    }),
  );
  app.get(
    '/console/books/invoices',
    signedIn(o, async (req, reply, s) => {
      requireBooksViewer(s);
      const v = await ownerInvoices(o.db, s, query(req));
      return render(o, reply, s, { status: 200, title: 'Invoices', body: invoicesBody(v), current: 'books' });
    }),
  );
  app.get(
    '/console/books/invoices/:id',
    signedIn(o, async (req, reply, s) => {
      requireBooksViewer(s);
      const v = await ownerInvoice(o.db, s, pathId(req));
      return render(o, reply, s, { status: 200, title: `Invoice ${v.number ?? v.invoice.id}`, body: invoiceBody(v), current: 'books' });
    }),
  );
  app.get(
    '/console/books/quotes',
    signedIn(o, async (req, reply, s) => {
      requireBooksViewer(s);
      const v = await ownerQuotes(o.db, s, query(req));
      return render(o, reply, s, { status: 200, title: 'Quotes', body: quotesBody(v), current: 'books' });
    }),
  );
  app.get(
    '/console/books/bills',
    signedIn(o, async (req, reply, s) => {
      requireBooksViewer(s);
      const v = await ownerBills(o.db, s, query(req));
      return render(o, reply, s, { status: 200, title: 'Bills', body: billsBody(v), current: 'books' });
    }),
  );
  app.get(
    '/console/books/bank',
    signedIn(o, async (req, reply, s) => {
      requireBooksViewer(s);
      const v = await ownerBank(o.db, s, query(req));
      return render(o, reply, s, { status: 200, title: 'Bank', body: bankBody(v), current: 'books' });
    }),
  );
  app.get(
    '/console/books/reports',
    signedIn(o, async (req, reply, s) => {
      requireBooksViewer(s);
      try {
        const r = await ownerReports(o.db, s, query(req));
        const form = { from: r.period.from, to: r.period.to, compare: r.compare ?? '', error: null };
        return render(o, reply, s, { status: 200, title: 'Reports', body: reportsBody(form, r), current: 'books' });
      } catch (error) {
        // A mistyped period re-shows the picker with the message and what was typed.
        if (!(error instanceof DomainError) || error.code !== 'BAD_REQUEST') throw error;
        const typed = (name: string) => {
          const v = (req.query as Record<string, unknown> | undefined)?.[name];
          return typeof v === 'string' ? v.slice(0, 40) : '';
        };
        const form = { from: typed('from'), to: typed('to'), compare: typed('compare'), error: error.message };
        return render(o, reply, s, { status: 400, title: 'Reports', body: reportsBody(form, null), current: 'books' });
      }
    }),
  );
  app.get(
    '/console/books/activity',
    signedIn(o, async (req, reply, s) => {
      requireBooksViewer(s);
      const q = query(req);
      const actors = await activityActors(o.db.reader, s.orgId);
      // What was typed, kept to re-show in the form (cut: it is echoed into the page).
      const typed = (name: string) => {
        const v = (req.query as Record<string, unknown> | undefined)?.[name];
        return typeof v === 'string' && v !== '' ? v.slice(0, 40) : null;
      };
      try {
        const before = beforeSeqOf(q);
        const filter = activityFilterOf(queryField(q, 'kind'), queryField(q, 'who'));
        const today = await orgToday(o.db, s.orgId);
        const { items, nextBefore, searchedFrom } = await activityOf(o.db.reader, s.orgId, {
          limit: ACTIVITY_PAGE,
          viewerId: s.userId,
          today,
          ...filter,
          ...(before === undefined ? {} : { beforeSeq: before }),
        });
        const view = { kind: typed('kind'), who: typed('who'), actors, error: null };
        return render(o, reply, s, {
          status: 200,
          title: 'Activity',
          body: activityBody(items, before ?? null, nextBefore, view, searchedFrom),
          current: 'books',
        });
      } catch (error) {
        // A bad filter or page re-shows the form with the message: a 400 naming the field.
        if (!(error instanceof DomainError) || error.code !== 'BAD_REQUEST') throw error;
        const view = { kind: typed('kind'), who: typed('who'), actors, error: error.message };
        return render(o, reply, s, { status: 400, title: 'Activity', body: activityBody([], null, null, view, null), current: 'books' });
      }
    }),
  );
}

import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { registerConsoleApi } from './console-api.js';
import { consoleGuard, type ConsoleOptions } from './console-http.js';
import { registerConsolePages } from './console-pages.js';
import { registerOrgConsole } from './org-pages.js';
import { registerOwnerConsole } from './owner-pages.js';
import { registerFilesConsole } from './files-pages.js';
import { registerBankAccountsConsole } from './bank-accounts-pages.js';
import { registerChartConsole } from './chart-pages.js';
import { registerOwnerLedger } from './owner-ledger.js';
import { registerOAuthConsole } from './oauth-pages.js';

export type { ConsoleOptions } from './console-http.js';

/**
 * The human lane: the approval console at /console and its JSON API at /console/api.
 * Registered as an encapsulated plugin, so its guard (no API keys, no cross-site writes,
 * security headers) applies to its routes only. Bodies arrive as text from the app's one
 * content-type parser; forms are read with URLSearchParams, JSON with JSON.parse.
 */
export async function consolePlugin(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  // Cookie parsing (req.cookies) and setCookie for the console's routes only: the agent API
  // never reads cookies. No signing secret: see setSessionCookie in console-http.ts.
  await app.register(fastifyCookie);
  app.addHook('onRequest', consoleGuard);
  registerConsolePages(app, options);
  registerConsoleApi(app, options);
  // Organisation profile and agents.
  registerOrgConsole(app, options);
  // The owner's read-only view of the books.
  registerOwnerConsole(app, options);
  // An account's general ledger, linked from the reports.
  registerOwnerLedger(app, options);
  // Payment and lodgement files.
  registerFilesConsole(app, options);
  // Bank, credit-card and loan accounts.
  registerBankAccountsConsole(app, options);
  // The chart of accounts: everyone reads, owners change.
  registerChartConsole(app, options);
  // The consent step of remote MCP connectors (OAuth; docs/console.md).
  registerOAuthConsole(app, options);
}

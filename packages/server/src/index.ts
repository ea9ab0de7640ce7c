export { buildApp } from './http/app.js';
export { startServer, type RunningServer } from './server.js';
export { loadConfig, type Config } from './config.js';
export { openDatabase } from './storage/open.js';
export { migrations, type Migration } from './schema.js';
export type { Database } from './storage/types.js';
export { createOrg, issueOrgKey, revokeOrgKey, orgBySlug } from './org/orgs.js';
export { verifyStoredChain } from './ledger/verify.js';

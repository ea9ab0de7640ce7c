import { Command, CommanderError } from 'commander';
import { loadConfig } from '../config.js';
import { DomainError } from '../errors.js';
import { verifyStoredChain } from '../ledger/verify.js';
import { createOrg, issueOrgKey, orgBySlug, revokeOrgKey } from '../org/orgs.js';
import { startServer } from '../server.js';
import { openDatabase } from '../storage/open.js';
import type { Database } from '../storage/types.js';

/** The operator's CLI (D10). Every command migrates first and reads DATABASE_URL. */
class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

async function withDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = openDatabase(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
  try {
    await db.migrate();
    return await fn(db);
  } finally {
    await db.close();
  }
}

function print(json: boolean, value: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

function program(): Command {
  const cli = new Command('finance-desk')
    .description('Finance Desk: the books API for AI agents, with a hash-chained ledger')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  cli
    .command('serve')
    .description('run the API (migrates the database first)')
    .action(async () => {
      const config = loadConfig();
      const server = await startServer(config);
      server.app.log.info(`finance-desk listening on ${server.url} (${server.db.caps.engine})`);
      const stop = () => {
        server.close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });

  const org = cli.command('org').description('organisations');
  org
    .command('create')
    .description('create an organisation with its owner and one key per tier')
    .requiredOption('--name <name>', 'organisation name')
    .option('--slug <slug>', 'url-safe identifier (default: from the name)')
    .option('--owner-email <email>', 'owner sign-in email (default: owner@<slug>.example)')
    .option('--no-decision-rights', 'the owner gets no decision rights (signature acts are refused)')
    .option('--json', 'print JSON')
    .action(async (o: { name: string; slug?: string; ownerEmail?: string; decisionRights: boolean; json?: boolean }) => {
      const created = await withDb((db) =>
        createOrg(db, {
          name: o.name,
          decisionRights: o.decisionRights,
          ...(o.slug ? { slug: o.slug } : {}),
          ...(o.ownerEmail ? { ownerEmail: o.ownerEmail } : {}),
        }),
      );
      const { keyIds: _ids, ...out } = created;
      print(
        o.json === true,
        out,
        [
          `organisation ${created.slug} (${created.orgId})`,
          `observer key: ${created.keys.observer}`,
          `reader key:   ${created.keys.reader}`,
          `agent key:    ${created.keys.agent}`,
          `owner: ${created.owner.email} / ${created.owner.password}`,
          'Keys and password are shown once; store them now.',
        ].join('\n'),
      );
    });

  const key = cli.command('key').description('API keys');
  key
    .command('issue')
    .requiredOption('--org <slug>')
    .requiredOption('--tier <tier>', 'observer | reader | agent')
    .option('--agent <name>', 'bind the key to a named agent (events name the agent)')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; tier: string; agent?: string; json?: boolean }) => {
      const issued = await withDb((db) => issueOrgKey(db, o.org, o.tier, o.agent ?? null));
      const out = { keyId: issued.keyId, key: issued.key, tier: issued.tier, ...(issued.agentId ? { agentId: issued.agentId } : {}) };
      print(o.json === true, out, `${issued.tier} key ${issued.keyId}: ${issued.key}`);
    });
  key
    .command('revoke')
    .requiredOption('--org <slug>')
    .requiredOption('--key-id <id>')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; keyId: string; json?: boolean }) => {
      const r = await withDb((db) => revokeOrgKey(db, o.org, o.keyId));
      print(o.json === true, { keyId: o.keyId, revoked: true, already: !r.revoked }, `key ${o.keyId} revoked`);
    });

  cli
    .command('verify')
    .description("recompute an organisation's chain; exit 1 on a break")
    .requiredOption('--org <slug>')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; json?: boolean }) => {
      const verdict = await withDb(async (db) => verifyStoredChain(db.reader, (await orgBySlug(db.reader, o.org)).id));
      if (verdict.ok) {
        print(o.json === true, verdict, `chain ok: ${verdict.rows} events, head seq ${verdict.head.seq} ${verdict.head.rowHash}`);
        return;
      }
      print(o.json === true, verdict, `chain broken at seq ${verdict.seq}: ${verdict.reason} mismatch`);
      throw new CliFailure('', 1);
    });
  return cli;
}

export async function main(argv: readonly string[]): Promise<number> {
  try {
    await program().parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof CliFailure) {
      if (error.message) process.stderr.write(`finance-desk: ${error.message}\n`);
      return error.exitCode;
    }
    const message = error instanceof DomainError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`finance-desk: ${message.split('\n', 1)[0]}\n`);
    return 2;
  }
}

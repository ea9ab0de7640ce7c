import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { McpCommandError, runStdioCommand, stdioCommandConfig, type StdioCommandConfig } from '@finance-desk/mcp';
import { Command, CommanderError } from 'commander';
import type { z } from 'zod';
import { outboxCounts, requeueUndeliverable } from '../adapters/outbox.js';
import { loadConfig } from '../config.js';
import { DomainError } from '../errors.js';
import { decideApproval } from '../governance/approvals.js';
import { loadPolicy } from '../governance/policy.js';
import { policyPatchSchema, setPolicy } from '../governance/policy-admin.js';
import { addUser, userByEmail } from '../human/users.js';
import {
  createBankAccount,
  listBankAccounts,
  parseBankAccountCreate,
  parseBankAccountUpdate,
  updateBankAccount,
} from '../domain/banking/accounts.js';
import { verifyStoredChain } from '../ledger/verify.js';
import {
  chart,
  formatIssues,
  isCalendarDate,
  pairingCodeCreate,
  textProblem,
  validate,
  type ChainBreakReason,
} from '@finance-desk/protocol';
import { accountArchive, accountCreate, accountUpdate } from '../domain/gl/accounts.js';
import { runRepeating } from '../domain/repeating/sweep.js';
import { runDigests, setWeeklyDigest } from '../human/digest-sweep.js';
import { inUnitOfWork, type Uow } from '../write-path.js';
import { keptTablesDrift } from '../domain/kept-tables.js';
import { createOrg, issueOrgKey, orgBySlug, orgInputProblem, revokeOrgKey, type OrgInputProblem } from '../org/orgs.js';
import { createPairingCode, revokeAgent } from '../org/pairing.js';
import { loadProfile, parseProfilePatch, setProfile } from '../org/profile.js';
import { migrations } from '../schema.js';
import { startServer } from '../server.js';
import { openMigrated, whereOf } from '../storage/open.js';
import { copyOrganisations, CopyRefused } from '../ops/org-copy.js';
import { exportOrganisation } from '../ops/export.js';
import { writeAuditPack } from '../ops/audit-pack.js';
import { checkpointNow, signerFrom, verifyExtends, type Signer } from '../ledger/checkpoints.js';
import { backupSqlite, describeProblems, restoreSqlite, sqlitePathOf } from '../storage/backup.js';
import type { Database } from '../storage/types.js';

/** The operator's CLI (docs/operations.md, "The operator CLI"). Every command migrates first and reads DATABASE_URL. */
class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/**
 * Where a run of the CLI reads its settings and writes its output: the process's own, or a
 * caller's (tests run commands in-process this way, without a process per command).
 */
export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIo: CliIo = {
  env: process.env,
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

type ChartAccountResult = Awaited<ReturnType<typeof accountCreate>>;

async function withDbOf<T>(io: CliIo, fn: (db: Database) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env);
  const db = await openMigrated(config.databaseUrl, {
    migrations,
    sqliteSynchronous: config.sqliteSynchronous,
    poolSize: config.databasePoolSize,
  });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** The `org create` flag that carries each createOrg field, for refusals that name what to fix. */
const ORG_FLAGS: Readonly<Record<OrgInputProblem['field'], string>> = {
  name: '--name',
  slug: '--slug',
  ownerEmail: '--owner-email',
  timeZone: '--time-zone',
};

/** `verify`'s words for each break reason (the JSON form carries the reason code itself). */
const BREAK_WORDS: Record<ChainBreakReason, string> = {
  prev_hash: 'prev_hash mismatch',
  row_hash: 'row_hash mismatch',
  payload: 'payload is not canonical JSON (hashes recomputed over foreign bytes)',
};

function printTo(io: CliIo, json: boolean, value: unknown, human: string): void {
  io.stdout(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/** `org profile` flags as a profile patch; "none" clears the ABN or legal name; the schema judges the rest. */
interface ProfileFlags {
  name?: string;
  legalName?: string;
  abn?: string;
  gstRegistered?: string;
  gstBasis?: string;
  basFrequency?: string;
  fyStartMonth?: string;
  invoicePrefix?: string;
  invoiceNextNumber?: string;
  lockDate?: string;
  paymentAccountName?: string;
  paymentBsb?: string;
  paymentAccountNumber?: string;
}

function profilePatchFromFlags(o: ProfileFlags): Record<string, unknown> {
  const cleared = (v: string) => (v.trim().toLowerCase() === 'none' ? null : v);
  const yesNo: Record<string, boolean> = { yes: true, no: false, true: true, false: false };
  const patch: Record<string, unknown> = {};
  if (o.name !== undefined) patch.name = o.name;
  if (o.legalName !== undefined) patch.legalName = cleared(o.legalName);
  if (o.abn !== undefined) patch.abn = cleared(o.abn);
  if (o.gstRegistered !== undefined) patch.gstRegistered = yesNo[o.gstRegistered.toLowerCase()] ?? o.gstRegistered;
  if (o.gstBasis !== undefined) patch.gstBasis = o.gstBasis;
  if (o.basFrequency !== undefined) patch.basFrequency = o.basFrequency;
  if (o.fyStartMonth !== undefined)
    patch.financialYearStartMonth = /^\d{1,2}$/.test(o.fyStartMonth) ? Number(o.fyStartMonth) : o.fyStartMonth;
  // Invoice numbering and the lock date ("none" unlocks).
  if (o.invoicePrefix !== undefined) patch.invoicePrefix = o.invoicePrefix;
  if (o.invoiceNextNumber !== undefined) {
    patch.invoiceNextNumber = /^\d{1,9}$/.test(o.invoiceNextNumber) ? Number(o.invoiceNextNumber) : o.invoiceNextNumber;
  }
  if (o.lockDate !== undefined) patch.lockDate = cleared(o.lockDate);
  if (o.paymentAccountName !== undefined) patch.paymentAccountName = cleared(o.paymentAccountName);
  if (o.paymentBsb !== undefined) patch.paymentBsb = cleared(o.paymentBsb);
  if (o.paymentAccountNumber !== undefined) patch.paymentAccountNumber = cleared(o.paymentAccountNumber);
  return patch;
}

function program(io: CliIo): Command {
  const print = (json: boolean, value: unknown, human: string) => printTo(io, json, value, human);
  const withDb = <T>(fn: (db: Database) => Promise<T>) => withDbOf(io, fn);
  const configuredSigner = () => configuredSignerOf(io.env);
  const cli = new Command('finance-desk')
    .description('Finance Desk: the books API for AI agents, with a hash-chained ledger')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) });

  cli
    .command('serve')
    .description('run the API (migrates the database first)')
    .action(async () => {
      const config = loadConfig(io.env);
      const server = await startServer(config);
      server.app.log.info(`finance-desk listening on ${server.url} (${server.db.caps.engine})`);
      // SIGTERM/SIGINT: stop accepting, answer late arrivals with 503 and the
      // error frame, let in-flight requests and their commits finish (bounded by SHUTDOWN_GRACE_MS),
      // stop the outbox, close the database. A second signal exits at once.
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) process.exit(1);
        stopping = true;
        server.app.log.info(`${signal}: shutting down`);
        server.close().then(
          () => process.exit(0),
          (error: unknown) => {
            process.stderr.write(`finance-desk: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
            process.exit(1);
          },
        );
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });

  cli
    .command('mcp')
    .description(
      'serve MCP over stdio for an agent host, calling the API at FINANCE_DESK_URL with the key in FINANCE_DESK_API_KEY (stdout carries only MCP messages)',
    )
    .option(
      '--toolsets <list>',
      'load only these toolsets, comma-separated, e.g. receivables,payables, or all (default: FINANCE_DESK_TOOLSETS, else every toolset but setup)',
    )
    .action(async (o: { toolsets?: string }) => {
      // The same command as @finance-desk/mcp's bin (`npx -y @finance-desk/mcp`): one code path.
      let config: StdioCommandConfig;
      try {
        config = stdioCommandConfig(io.env, o.toolsets !== undefined ? { toolsets: o.toolsets } : {});
      } catch (error) {
        if (error instanceof McpCommandError) throw new CliFailure(error.message, 2);
        throw error;
      }
      await runStdioCommand(config);
    });

  const org = cli.command('org').description('organisations');
  org
    .command('create')
    .description('create an organisation with its owner and one key per tier')
    .requiredOption('--name <name>', 'organisation name')
    .option('--slug <slug>', 'url-safe identifier (default: from the name)')
    .option('--owner-email <email>', 'owner sign-in email (default: owner@<slug>.example)')
    .option('--no-decision-rights', 'the owner gets no decision rights (signature acts are refused)')
    .option('--time-zone <iana>', 'IANA time zone the books keep their dates in (default: Australia/Sydney)')
    .option('--json', 'print JSON')
    .action(async (o: { name: string; slug?: string; ownerEmail?: string; timeZone?: string; decisionRights: boolean; json?: boolean }) => {
      const input = {
        name: o.name,
        decisionRights: o.decisionRights,
        ...(o.slug !== undefined ? { slug: o.slug } : {}),
        ...(o.ownerEmail !== undefined ? { ownerEmail: o.ownerEmail } : {}),
        ...(o.timeZone !== undefined ? { timeZone: o.timeZone } : {}),
      };
      // Checked before the database is opened, naming the flag (a one-line reason, non-zero
      // exit); nothing is created.
      const problem = orgInputProblem(input);
      if (problem) throw new CliFailure(`${ORG_FLAGS[problem.field]}: ${problem.reason}`, 2);
      const created = await withDb((db) => createOrg(db, input));
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
    .option('--label <label>', 'what the console and emails call what this key does (1 to 64 characters), e.g. "Xero sync"')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; tier: string; agent?: string; label?: string; json?: boolean }) => {
      const issued = await withDb((db) => issueOrgKey(db, o.org, o.tier, o.agent ?? null, o.label ?? null));
      const out = {
        keyId: issued.keyId,
        key: issued.key,
        tier: issued.tier,
        ...(issued.agentId ? { agentId: issued.agentId } : {}),
        ...(o.label === undefined ? {} : { label: o.label.trim() }),
      };
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

  org
    .command('profile')
    .description('show or set the organisation profile; each change is one event')
    .requiredOption('--org <slug>')
    .option('--name <name>', 'trading name')
    .option('--legal-name <name>', 'legal name ("none" clears it)')
    .option('--abn <abn>', 'ABN, 11 digits passing the check ("none" clears it)')
    .option('--gst-registered <yes|no>', 'registered for GST')
    .option('--gst-basis <basis>', 'accrual | cash (the default basis of books.taxPrepare)')
    .option('--bas-frequency <f>', 'monthly | quarterly')
    .option('--fy-start-month <n>', 'first month of the financial year, 1 to 12 (default 7)')
    .option('--invoice-prefix <prefix>', 'what invoice numbers start with (default INV-; "" for none)')
    .option('--invoice-next-number <n>', 'the number the next invoice takes (above every number already used)')
    .option('--lock-date <date>', 'YYYY-MM-DD: nothing posts on or before it; not in the future ("none" unlocks)')
    .option('--payment-account-name <name>', 'name of the account invoices ask customers to pay into ("none" clears it)')
    .option('--payment-bsb <bsb>', 'BSB of that account, NNN-NNN ("none" clears it)')
    .option('--payment-account-number <n>', 'its account number, 1 to 9 digits ("none" clears it)')
    .option('--json', 'print JSON')
    .action(async (o: ProfileFlags & { org: string; json?: boolean }) => {
      const patch = parseProfilePatch(profilePatchFromFlags(o));
      const out = await withDb(async (db) => {
        const orgId = (await orgBySlug(db.reader, o.org)).id;
        if (Object.keys(patch).length === 0) return loadProfile(db.reader, orgId);
        // The operator's CLI is the system on the ledger (actor "").
        const { ledgerId: _l, noop: _n, ...profile } = await setProfile(db, { orgId, actor: '', patch });
        return profile;
      });
      print(
        o.json === true,
        out,
        Object.entries(out)
          .map(([k, v]) => `${k}: ${v === null ? '—' : String(v)}`)
          .join('\n'),
      );
    });

  const agent = cli.command('agent').description('agents: pairing codes and revocation');
  agent
    .command('pair')
    .description('create a one-time pairing code for a named agent; the agent exchanges it at POST /api/v1/org/pair')
    .requiredOption('--org <slug>')
    .requiredOption('--name <name>', "the agent's name")
    .requiredOption('--tier <tier>', 'observer | reader | agent')
    .option('--secret <secret>', 'a person-chosen secret (checked for strength: WEAK_SECRET); default 256 random bits')
    .option('--ttl-minutes <n>', 'minutes until the code expires (default 60, at most 10080)')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; name: string; tier: string; secret?: string; ttlMinutes?: string; json?: boolean }) => {
      const parsed = validate(pairingCodeCreate, {
        agentName: o.name,
        tier: o.tier,
        ...(o.secret !== undefined ? { secret: o.secret } : {}),
        ...(o.ttlMinutes !== undefined ? { ttlMinutes: /^\d{1,9}$/.test(o.ttlMinutes) ? Number(o.ttlMinutes) : o.ttlMinutes } : {}),
      });
      if (!parsed.ok) throw new DomainError('BAD_REQUEST', parsed.message);
      const created = await withDb(async (db) =>
        createPairingCode(db, { orgId: (await orgBySlug(db.reader, o.org)).id, actor: '', request: parsed.value }),
      ).catch((error: unknown) => {
        // The one place a person chooses a secret on the CLI: name the error code in the reason.
        if (error instanceof DomainError && error.code === 'WEAK_SECRET') throw new CliFailure(`WEAK_SECRET: ${error.message}`, 2);
        throw error;
      });
      const out = {
        code: created.code,
        codeId: created.codeId,
        expiresAt: created.expiresAt,
        agentName: created.agentName,
        tier: created.tier,
      };
      print(
        o.json === true,
        out,
        `pairing code for ${out.agentName} (${out.tier}), expires ${out.expiresAt}: ${out.code}\nShown once; give it to the agent now.`,
      );
    });
  agent
    .command('revoke')
    .description('revoke an agent and every key it holds (one event)')
    .requiredOption('--org <slug>')
    .requiredOption('--agent <id>', 'the agent id (agt_…)')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; agent: string; json?: boolean }) => {
      const r = await withDb(async (db) => revokeAgent(db, { orgId: (await orgBySlug(db.reader, o.org)).id, agentId: o.agent, actor: '' }));
      const out = { agentId: r.agentId, name: r.name, revokedAt: r.revokedAt, keyIds: r.keyIds, already: r.noop };
      print(
        o.json === true,
        out,
        r.noop ? `agent ${r.agentId} was already revoked` : `agent ${r.agentId} (${r.name}) revoked with ${r.keyIds.length} key(s)`,
      );
    });

  // The organisation's own chart (the account create, update and archive methods) for owners:
  // the same checks and one event each, the operator's CLI as the system on the ledger (actor "").
  const account = cli.command('account').description("the organisation's chart of accounts");
  const chartAct = async (
    o: { org: string; json?: boolean },
    spec: typeof chart.accountCreate | typeof chart.accountUpdate | typeof chart.accountArchive,
    act: typeof accountCreate | typeof accountUpdate | typeof accountArchive,
    input: Record<string, unknown>,
  ) => {
    const parsed = validate(spec.params as z.ZodType, input);
    if (!parsed.ok) throw new DomainError('BAD_REQUEST', parsed.message);
    const fn = act as (p: unknown, uow: Uow) => Promise<ChartAccountResult>;
    const a = await withDb(async (db) => inUnitOfWork(db, (await orgBySlug(db.reader, o.org)).id, '', (uow) => fn(parsed.value, uow)));
    print(
      o.json === true,
      a,
      `${a.noop === true ? 'no change: ' : ''}${a.code} ${a.name} (${a.type}${a.taxCode ? `, ${a.taxCode}` : ''}${a.archived ? ', archived' : ''})`,
    );
  };
  const bool = (v: string | undefined) => (v === undefined ? undefined : v === 'true' ? true : v === 'false' ? false : v);
  account
    .command('create')
    .description('add an account to the chart (one event); the same account again changes nothing')
    .requiredOption('--org <slug>')
    .requiredOption('--code <code>', '4 digits, unused in the chart')
    .requiredOption('--name <name>', "the account's name")
    .requiredOption('--type <type>', 'asset | liability | equity | revenue | expense')
    .option('--tax-code <code>', 'its default tax code (GST, GST_FREE, BAS_EXCLUDED, …)')
    .option('--reconcilable <bool>', 'true | false (default false)')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; code: string; name: string; type: string; taxCode?: string; reconcilable?: string; json?: boolean }) =>
      chartAct(o, chart.accountCreate, accountCreate, {
        code: o.code,
        name: o.name,
        type: o.type,
        ...(o.taxCode !== undefined ? { taxCode: o.taxCode } : {}),
        ...(o.reconcilable !== undefined ? { reconcilable: bool(o.reconcilable) } : {}),
      }),
    );
  account
    .command('update')
    .description("rename an account or change its type (before postings), default tax code ('' clears) or reconcilable (one event)")
    .requiredOption('--org <slug>')
    .requiredOption('--code <code>', 'the account code')
    .option('--name <name>', 'new name')
    .option('--type <type>', 'asset | liability | equity | revenue | expense')
    .option('--tax-code <code>', "new default tax code; '' clears it")
    .option('--reconcilable <bool>', 'true | false')
    .option('--json', 'print JSON')
    .action(
      async (o: { org: string; code: string; name?: string; type?: string; taxCode?: string; reconcilable?: string; json?: boolean }) =>
        chartAct(o, chart.accountUpdate, accountUpdate, {
          code: o.code,
          ...(o.name !== undefined ? { name: o.name } : {}),
          ...(o.type !== undefined ? { type: o.type } : {}),
          ...(o.taxCode !== undefined ? { taxCode: o.taxCode === '' ? null : o.taxCode } : {}),
          ...(o.reconcilable !== undefined ? { reconcilable: bool(o.reconcilable) } : {}),
        }),
    );
  account
    .command('archive')
    .description('archive an account with a zero balance and no open documents (one event); it then refuses postings')
    .requiredOption('--org <slug>')
    .requiredOption('--code <code>', 'the account code')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; code: string; json?: boolean }) =>
      chartAct(o, chart.accountArchive, accountArchive, { code: o.code }),
    );

  const bank = cli.command('bank-account').description('bank, credit-card and loan accounts');
  bank
    .command('add')
    .description('add a bank, credit-card or loan account and its chart account (one event); agents feed lines into it by its code')
    .requiredOption('--org <slug>')
    .requiredOption('--kind <kind>', 'bank | credit_card | loan')
    .requiredOption('--name <name>', "the account's name (also the chart account's)")
    .option('--bsb <bsb>', 'BSB, NNN-NNN (with --number)')
    .option('--number <digits>', 'account number, 1 to 9 digits (with --bsb)')
    .option('--account-code <code>', "chart code in the kind's range (default: the next free one; 1000 gives the default account a record)")
    .option('--bank-code <abc>', 'direct entry: APCA bank code, e.g. WBC')
    .option('--apca-user-id <digits>', 'direct entry: the 6-digit user id the bank issued')
    .option('--user-name <name>', 'direct entry: the user name the bank knows (up to 26)')
    .option('--remitter-name <name>', 'direct entry: the remitter name payees see (up to 16)')
    .option('--account-title <title>', "direct entry: the self-balancing record's account title (up to 32)")
    .option('--json', 'print JSON')
    .action(
      async (
        o: {
          org: string;
          kind: string;
          name: string;
          bsb?: string;
          number?: string;
          accountCode?: string;
          json?: boolean;
        } & DirectEntryFlags,
      ) => {
        const input = parseBankAccountCreate({
          kind: o.kind,
          name: o.name,
          ...(o.bsb !== undefined ? { bsb: o.bsb } : {}),
          ...(o.number !== undefined ? { accountNumber: o.number } : {}),
          ...(o.accountCode !== undefined ? { accountCode: o.accountCode } : {}),
          ...directEntryFlags(o, false),
        });
        // The operator's CLI is the system on the ledger (actor "").
        const created = await withDb(async (db) =>
          createBankAccount(db, { orgId: (await orgBySlug(db.reader, o.org)).id, actor: '', input }),
        );
        const a = created.account;
        print(
          o.json === true,
          { ...a, ...(created.noop ? { noop: true } : {}) },
          `${created.noop ? 'already there: ' : ''}${a.kind} account ${a.accountCode} ${a.name}${a.id ? ` (${a.id})` : ''}`,
        );
      },
    );
  bank
    .command('update')
    .description("change a bank account record's BSB, number or direct-entry details (one event); an empty value ('') clears a field")
    .requiredOption('--org <slug>')
    .requiredOption('--id <bac_id>', 'the record (books.bankAccounts id)')
    .option('--bsb <bsb>', 'BSB, NNN-NNN')
    .option('--number <digits>', 'account number, 1 to 9 digits')
    .option('--bank-code <abc>', 'APCA bank code, e.g. WBC')
    .option('--apca-user-id <digits>', 'the 6-digit Direct Entry user id')
    .option('--user-name <name>', 'the Direct Entry user name (up to 26)')
    .option('--remitter-name <name>', 'the remitter name payees see (up to 16)')
    .option('--account-title <title>', "the self-balancing record's account title (up to 32)")
    .option('--json', 'print JSON')
    .action(async (o: { org: string; id: string; bsb?: string; number?: string; json?: boolean } & DirectEntryFlags) => {
      const clear = (v: string) => (v === '' ? null : v);
      const patch = parseBankAccountUpdate({
        ...(o.bsb !== undefined ? { bsb: clear(o.bsb) } : {}),
        ...(o.number !== undefined ? { accountNumber: clear(o.number) } : {}),
        ...directEntryFlags(o, true),
      });
      const done = await withDb(async (db) =>
        updateBankAccount(db, { orgId: (await orgBySlug(db.reader, o.org)).id, actor: '', id: o.id, patch }),
      );
      const a = done.account;
      print(
        o.json === true,
        { ...done },
        done.noop
          ? `no change: ${a.accountCode} ${a.name}`
          : `changed ${done.changed.join(', ')} of ${a.accountCode} ${a.name}${a.directEntry ? ' (can fund bank files)' : ''}`,
      );
    });
  bank
    .command('list')
    .description('list the bank accounts with their ledger balances and unreconciled lines')
    .requiredOption('--org <slug>')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; json?: boolean }) => {
      const accounts = await withDb(async (db) => listBankAccounts(db.reader, (await orgBySlug(db.reader, o.org)).id));
      const human = accounts
        .map(
          (a) =>
            `${a.accountCode}  ${a.kind.padEnd(11)}  ${a.name}  balance ${a.ledgerBalanceCents} cents, ${a.unreconciledLines} unreconciled${a.isDefault ? '  (default)' : ''}`,
        )
        .join('\n');
      print(o.json === true, { accounts }, human);
    });

  const user = cli.command('user').description('people on the human lane');
  user
    .command('add')
    .requiredOption('--org <slug>')
    .requiredOption('--email <email>')
    .requiredOption('--role <role>', 'owner | approver | bookkeeper')
    .option('--password <password>', 'at least 12 characters (default: generated and printed once)')
    .option('--name <name>', 'the name the console and emails show for them (default: their email)')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; email: string; role: string; password?: string; name?: string; json?: boolean }) => {
      const added = await withDb(async (db) =>
        addUser(db, {
          orgId: (await orgBySlug(db.reader, o.org)).id,
          email: o.email,
          role: o.role,
          ...(o.password ? { password: o.password } : {}),
          ...(o.name === undefined ? {} : { name: o.name }),
        }),
      );
      print(o.json === true, added, `user ${added.email} (${added.role}) ${added.userId}; password: ${added.password}`);
    });

  user
    .command('digest')
    .description("turn a person's weekly digest email on or off (owners receive it until they turn it off)")
    .requiredOption('--org <slug>')
    .requiredOption('--email <email>')
    .option('--on', 'send it')
    .option('--off', 'stop sending it')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; email: string; on?: boolean; off?: boolean; json?: boolean }) => {
      if (o.on === o.off) throw new DomainError('BAD_REQUEST', 'give exactly one of --on or --off');
      const out = await withDb(async (db) => {
        const org = await orgBySlug(db.reader, o.org);
        const who = await userByEmail(db.reader, org.id, o.email);
        if (!who) throw new DomainError('NOT_FOUND', `user ${o.email} not found in ${o.org}`);
        return setWeeklyDigest(db, org.id, who.id, o.on === true ? 'on' : 'off');
      });
      print(o.json === true, out, `${o.email}: weekly digest ${out.weeklyDigest}${out.noop ? ' (already)' : ''}`);
    });

  const approval = cli.command('approval').description('human decisions on held acts');
  approval
    .command('decide')
    .requiredOption('--org <slug>')
    .requiredOption('--approval <id>')
    .option('--approve', 'approve the request')
    .option('--deny', 'deny the request')
    .option('--reason <text>', 'why (recorded in the ledger)')
    .requiredOption('--by <email>', 'the deciding user (needs decision rights for the class)')
    .option('--json', 'print JSON')
    .action(
      async (o: { org: string; approval: string; approve?: boolean; deny?: boolean; reason?: string; by: string; json?: boolean }) => {
        if (o.approve === o.deny) throw new DomainError('BAD_REQUEST', 'give exactly one of --approve or --deny');
        const out = await withDb(async (db) => {
          const org = await orgBySlug(db.reader, o.org);
          const who = await userByEmail(db.reader, org.id, o.by);
          if (!who) throw new DomainError('NOT_FOUND', `user ${o.by} not found in ${o.org}`);
          return decideApproval(db, {
            orgId: org.id,
            approvalId: o.approval,
            user: { id: who.id, role: who.role },
            approve: o.approve === true,
            reason: o.reason ?? null,
          });
        });
        const { ledgerId: _l, ...shown } = out;
        print(
          o.json === true,
          shown,
          `approval ${out.approvalId} ${out.status}${out.signatureToken ? `; signatureToken ${out.signatureToken}` : ''}`,
        );
      },
    );

  const policy = cli.command('policy').description('governance policy: approval floors, approval expiry, decision rights');
  policy
    .command('show')
    .requiredOption('--org <slug>')
    .action(async (o: { org: string }) => {
      const p = await withDb(async (db) => loadPolicy(db.reader, (await orgBySlug(db.reader, o.org)).id));
      print(true, p, '');
    });
  policy
    .command('set')
    .requiredOption('--org <slug>')
    .requiredOption('--by <email>', 'an owner of the organisation')
    .option('--bill-approval-floor-cents <n>', 'bills above this total are held for approval', Number)
    .option('--materiality-floor-cents <n>', 'matchHoldResolve floor', Number)
    .option('--approval-expiry-ms <n>', 'how long an approval stays valid', Number)
    .option(
      '--rights <class=who,...>',
      'decision rights for a class (user ids or role:NAME); repeatable',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--json', 'print JSON')
    .action(
      async (o: {
        org: string;
        by: string;
        billApprovalFloorCents?: number;
        materialityFloorCents?: number;
        approvalExpiryMs?: number;
        rights: string[];
        json?: boolean;
      }) => {
        const rights: Record<string, string[]> = {};
        for (const r of o.rights) {
          const [cls = '', who = ''] = r.split('=', 2);
          rights[cls] = who
            ? who
                .split(',')
                .map((w) => w.trim())
                .filter(Boolean)
            : [];
        }
        const parsed = policyPatchSchema.safeParse(
          {
            billApprovalFloorCents: o.billApprovalFloorCents,
            materialityFloorCents: o.materialityFloorCents,
            approvalExpiryMs: o.approvalExpiryMs,
            ...(o.rights.length ? { decisionRights: rights } : {}),
          },
          { reportInput: true },
        );
        if (!parsed.success) throw new DomainError('BAD_REQUEST', formatIssues(parsed.error.issues));
        const after = await withDb(async (db) => {
          const org = await orgBySlug(db.reader, o.org);
          const who = await userByEmail(db.reader, org.id, o.by);
          if (!who) throw new DomainError('NOT_FOUND', `user ${o.by} not found in ${o.org}`);
          return setPolicy(db, { orgId: org.id, user: { id: who.id, role: who.role }, patch: parsed.data });
        });
        print(o.json === true, after, `policy updated (ledger #${after.ledgerId})`);
      },
    );

  cli
    .command('outbox')
    .description('effects waiting after commit (emails, payment files)')
    .command('retry')
    .description('re-queue what could not be delivered (attempts spent), after fixing the cause')
    .requiredOption('--org <slug>')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; json?: boolean }) => {
      const result = await withDb(async (db) => {
        const org = await orgBySlug(db.reader, o.org);
        const requeued = await requeueUndeliverable(db, org.id);
        return { requeued, ...(await outboxCounts(db.reader, org.id)) };
      });
      print(
        o.json === true,
        result,
        `${result.requeued} re-queued; ${result.queued} queued, ${result.undeliverable} undeliverable (a running server delivers them on its next sweep)`,
      );
    });

  // Online backup and restore of the SQLite engine (storage/backup.ts).
  cli
    .command('backup')
    .description(
      'copy the running SQLite database to FILE, consistent while serving; checks the copy (PostgreSQL: use pg_dump, docs/operations.md "Backups")',
    )
    .requiredOption('--to <file>', 'the backup file to write (must not exist)')
    .option('--force', 'overwrite FILE if it exists')
    .option('--json', 'print JSON')
    .action(async (o: { to: string; force?: boolean; json?: boolean }) => {
      const path = sqlitePathOf(loadConfig(io.env).databaseUrl);
      if (!path)
        throw new CliFailure(
          'backup: DATABASE_URL is PostgreSQL; back it up with pg_dump --format=custom (docs/operations.md "Backups")',
          2,
        );
      const report = await backupSqlite(path, o.to, migrations, o.force === true);
      const events = report.organisations.reduce((n, org) => n + org.events, 0);
      print(
        o.json === true,
        report,
        `backup ok: ${report.file} (${report.bytes} bytes, sha256 ${report.sha256}); ${report.organisations.length} organisations, ${events} events, every chain verified`,
      );
    });
  cli
    .command('restore')
    .description('replace the SQLite database with a backup (stop the server first); checks the backup before and the database after')
    .requiredOption('--from <file>', 'a file written by `finance-desk backup`')
    .option('--json', 'print JSON')
    .action(async (o: { from: string; json?: boolean }) => {
      const path = sqlitePathOf(loadConfig(io.env).databaseUrl);
      if (!path) throw new CliFailure('restore: DATABASE_URL is PostgreSQL; restore with pg_restore (docs/operations.md "Backups")', 2);
      const result = await restoreSqlite(o.from, path, migrations, new Date().toISOString());
      if (!result.ok) {
        print(o.json === true, result, `restored, but the database does not check out: ${describeProblems(result)}`);
        throw new CliFailure('', 1);
      }
      const events = result.organisations.reduce((n, org) => n + org.events, 0);
      print(
        o.json === true,
        result,
        `restored ${o.from} to ${path}: ${result.organisations.length} organisations, ${events} events, every chain verified` +
          (result.previous ? `; the previous database is kept as ${result.previous}` : ''),
      );
    });

  cli
    .command('export')
    .description("write an organisation's journals (from..to), invoices, bills and reports as CSV files")
    .requiredOption('--org <slug>')
    .requiredOption('--from <date>', 'first day, YYYY-MM-DD')
    .requiredOption('--to <date>', 'last day, YYYY-MM-DD (reports as at this date)')
    .option('--dir <dir>', 'a new or empty directory (default export-<slug>-<from>-<to>)')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; from: string; to: string; dir?: string; json?: boolean }) => {
      checkPeriodFlags(o);
      const dir = o.dir ?? `export-${o.org}-${o.from}-${o.to}`;
      const report = await withDb(async (db) => {
        const org = await orgBySlug(db.reader, o.org);
        return exportOrganisation(db, { orgId: org.id, orgSlug: org.slug, from: o.from, to: o.to, dir });
      });
      print(o.json === true, report, report.files.map((f) => `${f.file}: ${f.rows} rows`).join('\n'));
    });

  // Organisations moved to another database (ops/org-copy.ts; docs/operations.md "Moving organisations between databases").
  cli
    .command('copy')
    .description(
      "copy organisations (all, or each --org) from DATABASE_URL to another database, any engine to any, as of one snapshot; verifies each chain and every table's rows on the target before committing; the source is only read",
    )
    .requiredOption('--to <url>', 'the target database: sqlite:<file> or postgres://… (migrated first)')
    .option('--org <slug>', 'an organisation to copy (repeat for several; default: every organisation)', collectFlag, [] as string[])
    .option('--json', 'print JSON')
    .action(async (o: { to: string; org: string[]; json?: boolean }) => {
      if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(o.to)) throw new CliFailure('--to: must be sqlite:<file> or a postgres:// URL', 2);
      const config = loadConfig(io.env);
      if (o.to === config.databaseUrl) throw new CliFailure('--to: is DATABASE_URL itself; copy to another database', 2);
      const report = await withDb(async (source) => {
        const target = await openMigrated(o.to, {
          migrations,
          sqliteSynchronous: config.sqliteSynchronous,
          poolSize: 2,
          setting: '--to',
        });
        try {
          return await copyOrganisations(source, target, o.org);
        } catch (error) {
          if (error instanceof CopyRefused) throw new CliFailure(`copy: ${error.message}`, 1);
          throw error;
        } finally {
          await target.close();
        }
      });
      const int = (n: number) => n.toLocaleString('en-AU');
      const lines = [
        `copied ${report.organisations.length} organisation${report.organisations.length === 1 ? '' : 's'} to ${whereOf(o.to)}: ${int(report.rows)} rows in ${report.seconds.toFixed(1)} s (${int(report.rowsPerSecond)} rows/s)`,
        ...report.organisations.map(
          (org) =>
            `${org.slug} (${org.orgId}): ${int(org.events)} events, chain verified on the target, head seq ${org.head.seq} ${org.head.rowHash}; ${int(org.rows)} rows` +
            (org.outboxQueued > 0 ? `; ${org.outboxQueued} outbox message(s) not yet delivered are in both databases` : ''),
        ),
        `rows per table: ${Object.entries(report.tables)
          .map(([t, n]) => `${t} ${int(n)}`)
          .join(', ')}`,
        'the source is unchanged (nothing is deleted from it); point the servers of these organisations at the target',
      ];
      print(o.json === true, report, lines.join('\n'));
    });

  // Repeating invoices and bills (domain/repeating): the server's sweep, run now for one organisation.
  cli
    .command('repeating')
    .description('repeating invoices and bills')
    .command('run')
    .description("make an organisation's repeating invoices and bills that are due as of its today (as the server's sweep does)")
    .requiredOption('--org <slug>')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; json?: boolean }) => {
      const outcome = await withDb(async (db) => runRepeating(db, { orgId: (await orgBySlug(db.reader, o.org)).id }));
      const lines = [
        ...outcome.created.map((r) => `${r.scheduleId} ${r.dueOn}: ${r.kind} ${r.documentId}`),
        ...outcome.failed.map((f) => `${f.scheduleId} ${f.dueOn}: failed: ${f.message}`),
      ];
      print(o.json === true, outcome, lines.length > 0 ? lines.join('\n') : `${o.org}: nothing due`);
      if (outcome.failed.length > 0) throw new CliFailure(`repeating: ${outcome.failed.length} schedule(s) failed`, 1);
    });

  // The weekly digest (human/digest-sweep.ts): the server's sweep, run now.
  cli
    .command('digest')
    .description('the weekly digest email')
    .command('run')
    .description("queue the weekly digests that are due (from 07:00 Monday in each organisation's time zone), as the server's sweep does")
    .option('--org <slug>', 'only this organisation')
    .option('--json', 'print JSON')
    .action(async (o: { org?: string; json?: boolean }) => {
      const sent = await withDb(async (db) =>
        runDigests(db, {
          ...(o.org !== undefined ? { orgId: (await orgBySlug(db.reader, o.org)).id } : {}),
          log: (error) => io.stderr(`digest failed: ${error instanceof Error ? error.message : String(error)}\n`),
        }),
      );
      print(
        o.json === true,
        { sent },
        sent.length > 0 ? sent.map((d) => `${d.orgId} week of ${d.weekFrom}: ${d.recipients} recipient(s)`).join('\n') : 'no digest due',
      );
    });

  // Signed checkpoints (ledger/checkpoints.ts; protocol checkpoint.ts).
  const checkpoint = cli.command('checkpoint').description('signed checkpoints of each chain (C2SP signed notes, Ed25519)');
  checkpoint
    .command('keygen')
    .description('print a new signing key (set it as CHECKPOINT_SIGNING_KEY) and its verifier key')
    .option('--name <name>', 'the key name (CHECKPOINT_KEY_NAME)', 'finance-desk.invalid')
    .option('--json', 'print JSON')
    .action((o: { name: string; json?: boolean }) => {
      const seed = randomBytes(32).toString('base64');
      const signer = signerFrom(o.name, seed);
      print(
        o.json === true,
        { signingKey: seed, keyName: o.name, verifierKey: signer.vkey },
        `CHECKPOINT_KEY_NAME=${o.name}\nCHECKPOINT_SIGNING_KEY=${seed}\nverifier key (give it to auditors): ${signer.vkey}`,
      );
    });
  checkpoint
    .command('key')
    .description('print the verifier key of the configured signing key')
    .action(() => {
      print(false, null, configuredSigner().vkey);
    });
  checkpoint
    .command('sign')
    .description("sign an organisation's head now and print the checkpoint")
    .requiredOption('--org <slug>')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; json?: boolean }) => {
      const signer = configuredSigner();
      const done = await withDb(async (db) => checkpointNow(db, signer, (await orgBySlug(db.reader, o.org)).id, new Date().toISOString()));
      if (!done) throw new CliFailure(`checkpoint: ${o.org} has no events yet`, 2);
      if (o.json === true) print(true, done, '');
      else io.stdout(done.note);
    });

  cli
    .command('audit-pack')
    .description(
      'write one .tar.gz an auditor checks offline: events, journals, approvals, documents, checkpoints and a standalone verifier',
    )
    .requiredOption('--org <slug>')
    .requiredOption('--from <date>', 'first day of the journals, YYYY-MM-DD')
    .requiredOption('--to <date>', 'last day of the journals, YYYY-MM-DD')
    .option('--out <file>', 'the archive to write (default audit-pack-<slug>-<from>-<to>.tar.gz)')
    .option(
      '--full-history',
      'carry every event from genesis (default: from the last checkpoint signed before --from, whose signature vouches for the past)',
    )
    .option('--json', 'print JSON')
    .action(async (o: { org: string; from: string; to: string; out?: string; fullHistory?: boolean; json?: boolean }) => {
      checkPeriodFlags(o);
      const c = loadConfig(io.env).checkpoint;
      const vkey = c ? signerFrom(c.keyName, c.seed).vkey : null;
      const out = o.out ?? `audit-pack-${o.org}-${o.from}-${o.to}.tar.gz`;
      const history = o.fullHistory === true ? 'full' : 'since-checkpoint';
      const report = await withDb(async (db) => {
        const org = await orgBySlug(db.reader, o.org);
        return writeAuditPack(db, {
          orgId: org.id,
          orgSlug: org.slug,
          from: o.from,
          to: o.to,
          out,
          vkey,
          now: new Date().toISOString(),
          history,
        });
      });
      const from = report.start
        ? `from the checkpoint signed at seq ${report.start.seq}`
        : `from genesis${report.fullHistoryReason ? ` (${report.fullHistoryReason})` : ''}`;
      print(
        o.json === true,
        report,
        `${report.file} (sha256 ${report.sha256}): ${report.events} events ${from}, ${report.journals} journals, ${report.approvals} approvals, ${report.documents} documents, ${report.checkpoints} checkpoints\n` +
          `check it: npx @finance-desk/protocol verify-pack ${report.file} --key "<verifier key>" (or tar -xzf it, then in its folder: node verify.mjs --key "<verifier key>")`,
      );
    });

  cli
    .command('verify')
    .description("recompute an organisation's chain; exit 1 on a break; with --checkpoint, also that the chain extends a signed checkpoint")
    .requiredOption('--org <slug>')
    .option('--checkpoint <file>', 'a signed checkpoint (a C2SP note) this chain must extend')
    .option('--vkey <key>', 'the verifier key to check it with (default: the configured signing key)')
    .option('--kept', 'also compare every table kept beside the ledger with a rebuild from its rows; exit 1 naming the rows that differ')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; checkpoint?: string; vkey?: string; kept?: boolean; json?: boolean }) => {
      if (o.kept === true) {
        if (o.checkpoint !== undefined) throw new CliFailure('--kept: check a checkpoint and the kept tables in two runs', 2);
        const { chain, tables } = await withDb(async (db) => {
          const orgId = (await orgBySlug(db.reader, o.org)).id;
          // One snapshot: the kept rows and the rows they are kept from as of one instant.
          return { chain: await verifyStoredChain(db, orgId), tables: await db.read((q) => keptTablesDrift(q, orgId)) };
        });
        const kept = tables.map((t) => ({ table: t.table, rows: t.drift.length, drift: t.drift.slice(0, KEPT_DRIFT_SHOWN) }));
        const ok = chain.ok && kept.every((t) => t.rows === 0);
        print(
          o.json === true,
          { ok, chain, kept },
          [
            chain.ok
              ? `chain ok: ${chain.rows} events, head seq ${chain.head.seq} ${chain.head.rowHash}`
              : `chain broken at seq ${chain.seq}: ${BREAK_WORDS[chain.reason]}`,
            ...kept.map((t) =>
              t.rows === 0 ? `${t.table}: ok` : [`${t.table}: ${t.rows} rows differ`, ...t.drift.map((d) => `  ${d}`)].join('\n'),
            ),
          ].join('\n'),
        );
        if (!ok) throw new CliFailure('', 1);
        return;
      }
      if (o.checkpoint !== undefined) {
        const note = readCheckpointFile(o.checkpoint);
        const vkey = o.vkey ?? configuredSigner().vkey;
        const name = vkey.split('+', 1)[0] ?? '';
        const verdict = await withDb(async (db) => verifyExtends(db, (await orgBySlug(db.reader, o.org)).id, note, vkey, name));
        if (verdict.ok) {
          print(
            o.json === true,
            verdict,
            `chain ok and extends the checkpoint at seq ${verdict.checkpointSeq}: ${verdict.rows} events, head seq ${verdict.head.seq} ${verdict.head.rowHash}`,
          );
          return;
        }
        print(o.json === true, verdict, `NOT OK: ${verdict.reason}`);
        throw new CliFailure('', 1);
      }
      const verdict = await withDb(async (db) => verifyStoredChain(db, (await orgBySlug(db.reader, o.org)).id));
      if (verdict.ok) {
        print(o.json === true, verdict, `chain ok: ${verdict.rows} events, head seq ${verdict.head.seq} ${verdict.head.rowHash}`);
        return;
      }
      print(o.json === true, verdict, `chain broken at seq ${verdict.seq}: ${BREAK_WORDS[verdict.reason]}`);
      throw new CliFailure('', 1);
    });
  return cli;
}

/** The differing rows `verify --kept` prints per table (it counts them all). */
const KEPT_DRIFT_SHOWN = 20;

/** A repeatable flag's values, in the order given (commander calls it once per occurrence). */
function collectFlag(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--from` and `--to`: calendar dates, in order; a refusal names the flag. */
function checkPeriodFlags(o: { from: string; to: string }): void {
  for (const [flag, value] of [
    ['--from', o.from],
    ['--to', o.to],
  ] as const) {
    if (!isCalendarDate(value)) throw new CliFailure(`${flag}: must be a date YYYY-MM-DD, got "${value.slice(0, 40)}"`, 2);
  }
  if (o.to < o.from) throw new CliFailure(`--to: must be on or after --from (${o.from})`, 2);
}

/** The signer CHECKPOINT_SIGNING_KEY configures, or a refusal naming the setting. */
function configuredSignerOf(env: NodeJS.ProcessEnv): Signer {
  const c = loadConfig(env).checkpoint;
  if (!c) throw new CliFailure('CHECKPOINT_SIGNING_KEY: not set (make one with finance-desk checkpoint keygen)', 2);
  return signerFrom(c.keyName, c.seed);
}

function readCheckpointFile(path: string): string {
  let text: string;
  try {
    if (statSync(path).size > 64 * 1024) throw new CliFailure(`--checkpoint: ${path} is larger than a checkpoint can be (64 KiB)`, 2);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof CliFailure) throw error;
    throw new CliFailure(`--checkpoint: cannot read ${path}`, 2);
  }
  return text;
}

/**
 * The API's text rules for arguments: names, emails and reasons become stored text,
 * so an argument with a control or bidi character is refused naming its option. Line breaks
 * are allowed (a multi-line --reason); a name with one is refused by the service's own checks.
 */
function argumentProblem(argv: readonly string[]): string | null {
  for (const [i, arg] of argv.entries()) {
    const problem = textProblem(arg, { multiline: true });
    if (!problem) continue;
    const option = arg.startsWith('--') ? arg.split('=', 1)[0] : argv[i - 1]?.startsWith('--') ? argv[i - 1] : `argument ${i + 1}`;
    return `${option}: ${problem}`;
  }
  return null;
}

/** Run one command and return its exit code (bin/finance-desk.js exits with it). */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  try {
    const problem = argumentProblem(argv);
    if (problem) throw new CliFailure(problem, 2);
    await program(io).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof CliFailure) {
      if (error.message) io.stderr(`finance-desk: ${error.message}\n`);
      return error.exitCode;
    }
    const message = error instanceof DomainError || error instanceof Error ? error.message : String(error);
    io.stderr(`finance-desk: ${message.split('\n', 1)[0]}\n`);
    return 2;
  }
}

interface DirectEntryFlags {
  bankCode?: string;
  apcaUserId?: string;
  userName?: string;
  remitterName?: string;
  accountTitle?: string;
}

/** The direct-entry flags given, as fields; with `clear`, an empty value clears the field (null). */
function directEntryFlags(o: DirectEntryFlags, clear: boolean): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const k of ['bankCode', 'apcaUserId', 'userName', 'remitterName', 'accountTitle'] as const) {
    const v = o[k];
    if (v !== undefined) out[k] = clear && v === '' ? null : v;
  }
  return out;
}

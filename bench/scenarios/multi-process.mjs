// PostgreSQL with several `serve` processes on one database: the bare route, invoiceDraft for one
// organisation at full speed and paced at half of it, then invoiceDraft over many organisations.
// Afterwards every organisation's chain must verify and hold each of its acknowledged writes.
import { randomBytes } from 'node:crypto';
import {
  HALF_LOAD,
  TARGETS,
  cannonGroups,
  connectionGroups,
  newLedger,
  newTally,
  only200,
  pacedGroups,
  summarise,
  timedPhase,
} from '../harness/load.mjs';
import { cpu, failedChecks, int, log, ms, notRunReason, pct, table } from '../harness/report.mjs';
import {
  ORG_SLUG,
  freePort,
  mapLimit,
  pendingCleanup,
  prepareStorage,
  runCli,
  serverEnv,
  startServer,
  verifyOrg,
} from '../harness/server.mjs';

export const name = 'multi-process';

/** Its BENCH_SCENARIOS name. Its own tables; the single-process rows keep their layout. */
export const ID = 'postgres-4p';

const scenarioOf = (settings) => ({
  id: ID,
  label: `PostgreSQL, ${settings.pgProcesses} server processes, one database`,
  engine: 'postgres',
});

/**
 * BENCH_PG_PROCESSES `serve` processes on one fresh database, load from this process spread
 * evenly over them (connectionGroups):
 *   bare          the bare route at full speed: what HTTP alone reaches with these processes here;
 *   one org       invoiceDraft at full speed, every connection writing to one organisation;
 *   one org, half invoiceDraft paced at half the rate just measured → p99 at half load;
 *   N orgs        invoiceDraft at full speed over BENCH_PG_ORGS organisations, each its own key.
 * Afterwards every organisation's chain is verified with `finance-desk verify` and must hold each
 * of its acknowledged writes.
 */
async function runMultiProcess(settings) {
  const scenario = scenarioOf(settings);
  const processes = settings.pgProcesses;
  const storage = await prepareStorage({ engine: 'postgres' }, settings);
  const dropStorage = () => storage.cleanup();
  pendingCleanup.add(dropStorage);
  const servers = [];
  try {
    const cliEnv = serverEnv(storage, 0);
    // The first `org create` migrates the database (alone), so the servers start on a migrated schema.
    const slugs = [ORG_SLUG, ...Array.from({ length: settings.pgOrgs }, (_, i) => `${ORG_SLUG}-${i + 1}`)];
    log(`${scenario.label}: creating ${slugs.length} organisations`);
    const createOrg = async (slug) => {
      const created = JSON.parse(await runCli(['org', 'create', '--name', `Bench ${slug}`, '--slug', slug, '--json'], cliEnv));
      return { slug, agent: created.keys.agent };
    };
    const orgs = [await createOrg(slugs[0]), ...(await mapLimit(slugs.slice(1), 2, createOrg))];
    const before = await mapLimit(slugs, 2, (slug) => verifyOrg(cliEnv, slug));

    const ports = [];
    for (let i = 0; i < processes; i += 1) ports.push(await freePort());
    log(`${scenario.label}: starting ${processes} servers`);
    const metricsToken = randomBytes(24).toString('hex');
    const started = await Promise.allSettled(
      ports.map(async (port) => ({
        ...(await startServer({ ...serverEnv(storage, port), METRICS_TOKEN: metricsToken }, port)),
        metricsToken,
      })),
    );
    for (const s of started) {
      if (s.status === 'fulfilled') {
        servers.push(s.value);
        pendingCleanup.add(s.value.stop);
      }
    }
    const failedStart = started.find((s) => s.status === 'rejected');
    if (failedStart) throw failedStart.reason;

    const ledger = newLedger(slugs);
    const one = [orgs[0]];
    const many = orgs.slice(1);
    const oneGroups = connectionGroups(processes, 1, settings.connections);
    const manyGroups = connectionGroups(processes, many.length, settings.connections);
    const [bare, write] = TARGETS;
    const tallies = { bare: newTally(), one: newTally(), halfBare: newTally(), half: newTally(), many: newTally() };
    const full = (orgList, groups, target, seconds) => (latencies) =>
      cannonGroups({ servers, orgs: orgList, groups, target, seconds, latencies, ledger, pipelining: settings.pipelining });
    const warm = settings.warmupSeconds;
    if (settings.warmupSeconds > 0) {
      log(`${scenario.label}: warm-up, ${settings.warmupSeconds} s bare and ${settings.warmupSeconds} s invoiceDraft (one organisation)`);
      await timedPhase(servers, tallies.bare, false, full(one, oneGroups, bare, warm));
      await timedPhase(servers, tallies.one, false, full(one, oneGroups, write, warm));
    }
    log(`${scenario.label}: bare route, ${settings.seconds} s, ${settings.connections} connections`);
    await timedPhase(servers, tallies.bare, true, full(one, oneGroups, bare, settings.seconds));
    log(`${scenario.label}: invoiceDraft, one organisation, ${settings.seconds} s, ${settings.connections} connections`);
    await timedPhase(servers, tallies.one, true, full(one, oneGroups, write, settings.seconds));
    const oneMax = summarise(tallies.one);

    const rate = Math.max(1, Math.round(HALF_LOAD * oneMax.reqPerSec));
    // The bare route at the same pace first: the latency floor of HTTP and the load generator.
    const pace = (target, tally) =>
      timedPhase(servers, tally, true, (latencies) =>
        pacedGroups({ servers, orgs: one, groups: oneGroups, target, rate, seconds: settings.seconds, latencies, ledger }),
      );
    log(`${scenario.label}: bare route paced at ${int(rate)} req/s (half of invoiceDraft's maximum), ${settings.seconds} s`);
    const pacedBare = await pace(bare, tallies.halfBare);
    log(`${scenario.label}: invoiceDraft, one organisation, half load: ${int(rate)} req/s paced, ${settings.seconds} s`);
    const paced = await pace(write, tallies.half);

    if (settings.warmupSeconds > 0) {
      log(`${scenario.label}: warm-up, ${settings.warmupSeconds} s invoiceDraft over ${many.length} organisations`);
      await timedPhase(servers, tallies.many, false, full(many, manyGroups, write, warm));
    }
    log(`${scenario.label}: invoiceDraft, ${many.length} organisations, ${settings.seconds} s, ${settings.connections} connections`);
    await timedPhase(servers, tallies.many, true, full(many, manyGroups, write, settings.seconds));

    const exits = [];
    for (const server of servers) {
      exits.push(await server.stop());
      pendingCleanup.delete(server.stop);
    }
    const serverTail = servers.map((s, i) => `--- server ${i + 1}:\n${s.output()}`).join('\n');
    servers.length = 0;

    const after = await mapLimit(slugs, 2, (slug) => verifyOrg(cliEnv, slug));
    const chains = slugs.map((slug, i) => {
      const verdict = after[i];
      const { acked, slack } = ledger.get(slug);
      const appended = verdict.ok && before[i].ok ? verdict.rows - before[i].rows : null;
      return { slug, verdict, acked, slack, appended, covers: appended !== null && appended >= acked && appended - acked <= slack };
    });
    const results = {
      bare: summarise(tallies.bare),
      one: oneMax,
      halfBare: { ...summarise(tallies.halfBare), offered: pacedBare.offered, maxLagMs: pacedBare.maxLagMs },
      half: { ...summarise(tallies.half), offered: paced.offered, maxLagMs: paced.maxLagMs },
      many: summarise(tallies.many),
    };
    const checks = {
      all200: Object.values(results).every(only200),
      chainsOk: chains.every((c) => c.verdict.ok === true),
      chainsCoverWrites: chains.every((c) => c.covers),
      cleanExit: exits.every((e) => e.code === 0 || e.signal === 'SIGTERM'),
    };
    return {
      scenario,
      processes,
      groups: { one: oneGroups.length, many: manyGroups.length },
      orgCount: many.length,
      results,
      chains,
      checks,
      serverTail,
    };
  } finally {
    for (const server of servers) {
      await server.stop().catch(() => undefined);
      pendingCleanup.delete(server.stop);
    }
    await storage.cleanup();
    pendingCleanup.delete(dropStorage);
  }
}

/** Runs when selected (BENCH_SCENARIOS, and a PostgreSQL URL is needed). */
export async function run(settings) {
  const multi = await runMultiProcess(settings);
  const r = multi.results;
  log(
    `${multi.scenario.label}: bare ${int(r.bare.reqPerSec)} req/s; invoiceDraft one org ${int(r.one.reqPerSec)}/s (p99 ${ms(r.one.p99)} ms), ` +
      `half load ${int(r.half.offered)}/s offered → p99 ${ms(r.half.p99)} ms; ${multi.orgCount} orgs ${int(r.many.reqPerSec)}/s; ` +
      checkText(multi),
  );
  return multi;
}

// ---------------------------------------------------------------------------------------------
// Report

function multiTable(m, settings) {
  if (!m) return `_${notRunReason(scenarioOf(settings), settings)}._`;
  const r = m.results;
  // The bare route writes nothing: a commit counted in its phase is a write left over from the
  // phase before, so it shows none.
  const phase = (name, orgs, offered, x) => [
    name,
    String(orgs),
    offered,
    int(x.reqPerSec),
    ms(x.p50),
    ms(x.p99),
    `${int(x.non2xx + x.warm.non2xx)} / ${int(x.errors + x.warm.errors)}`,
    cpu(x.serverCpu),
    x.cpuMicrosPerReq === null ? '—' : x.cpuMicrosPerReq.toFixed(1),
    x.unitsPerCommit === null || orgs === '—' ? '—' : x.unitsPerCommit.toFixed(1),
    cpu(x.loaderCpu),
  ];
  return table(
    [
      'Phase',
      'orgs',
      'offered req/s',
      '2xx/s',
      'p50 ms',
      'p99 ms',
      'non-2xx / errors',
      'server CPU (all processes)',
      'server CPU µs/req',
      'writes per commit',
      'load-generator CPU',
    ],
    [
      phase('POST /bench/bare, full speed', '—', 'max', r.bare),
      phase('books.invoiceDraft, one organisation, full speed', 1, 'max', r.one),
      phase(
        'POST /bench/bare, paced at the half-load rate below',
        '—',
        `${int(r.halfBare.offered)} (latest send ${ms(r.halfBare.maxLagMs)} ms)`,
        r.halfBare,
      ),
      phase(
        `books.invoiceDraft, one organisation, **half load** (paced)`,
        1,
        `${int(r.half.offered)} (${pct(r.half.offered / r.one.reqPerSec)} of max; latest send ${ms(r.half.maxLagMs)} ms)`,
        r.half,
      ),
      phase(`books.invoiceDraft, ${m.orgCount} organisations, full speed`, m.orgCount, 'max', r.many),
    ],
  );
}

function multiChainTable(m) {
  if (!m) return '';
  return table(
    ['Organisation', 'writes acknowledged', 'events appended', 'may exceed by (in flight at a stop)', '`verify --org`'],
    m.chains.map((c) => {
      const v = c.verdict;
      const verdict = v.ok ? `ok, head seq ${v.head.seq}` : `**broken** ${v.reason ?? v.error ?? ''} at seq ${v.seq ?? '?'}`;
      return [
        c.slug,
        int(c.acked),
        c.appended === null ? '—' : int(c.appended),
        int(c.slack),
        c.covers ? verdict : `**${verdict}; does not cover the acknowledged writes**`,
      ];
    }),
  );
}

function checkText(m) {
  if (!m) return '';
  const failed = failedChecks(m.checks);
  return failed.length === 0
    ? `Checks: every response a 200 (warm-ups included), every organisation's chain verified and holding each acknowledged write.`
    : `Checks: **FAILED: ${failed.join(', ')}**`;
}

/** Its bullet of the document's Method section. */
export function method(_outcome, { settings: s }) {
  return `- **PostgreSQL with ${s.pgProcesses} server processes** (\`${ID}\`): one fresh database, ${s.pgOrgs + 1} organisations
  created first with the CLI (which migrates it), then ${s.pgProcesses} \`finance-desk serve\` processes on it,
  each with its own pool (the server's default, 10 connections). The ${s.connections} connections are spread
  evenly: connection i goes to organisation i mod orgs on process ⌊i / orgs⌋ mod processes, one
  autocannon instance per (process, organisation) pair, all running at once in the parent; the
  percentiles are exact over every response of every instance. Phases, in order: the bare route at
  full speed (the HTTP ceiling of these processes on this machine), invoiceDraft for one
  organisation at full speed, the bare route and then invoiceDraft at half of that rate (paced, as
  above), then invoiceDraft over
  ${s.pgOrgs} other organisations (each with its own agent key, so each of its connections reaches every
  process) at full speed. Warm-ups of ${s.warmupSeconds} s before the full-speed phases (counted for errors, not for
  speed). Server CPU sums the ${s.pgProcesses} processes. **writes per commit**: the processes'
  \`fd_group_commit_units\` (GET /metrics) over the measured seconds — how many writes shared each
  organisation's commit, i.e. each hold of its head lock. Afterwards \`finance-desk verify\` checks every
  organisation's chain, which must hold each of its acknowledged writes (and at most one more per
  connection per autocannon run, for requests in flight when a run stops).`;
}

/** Its section of the document (the naive baseline's follows it, as a subsection). */
export function render(multi, { settings: s }) {
  return `## PostgreSQL: ${s.pgProcesses} server processes on one database

${multiTable(multi, s)}

${multi ? `invoiceDraft ÷ bare with ${multi.processes} processes: ${pct(multi.results.one.reqPerSec / multi.results.bare.reqPerSec)} (one organisation), ${pct(multi.results.many.reqPerSec / multi.results.bare.reqPerSec)} (${multi.orgCount} organisations). ${checkText(multi)}` : ''}

${multi ? `### Chains after the run\n\n${multiChainTable(multi)}` : ''}`;
}

/** The tables printed on stdout at the end of the run (none when it did not run). */
export function tables(multi, { settings }) {
  return multi ? [multiTable(multi, settings), multiChainTable(multi)] : [];
}

/** Its lines of the Goals section: the PostgreSQL goals, beside the naive baseline when it ran. */
export function goals(m, { settings, outcomes }) {
  const naive = outcomes.naive;
  const verdict = (ok) => `**${ok ? 'met' : 'not met'}**`;
  const notMeasured = (why) => `not measured in this run (${why})`;
  const naiveOne = naive?.find((p) => p.orgs === 1);
  const naiveMany = naive?.find((p) => m && p.orgs === m.orgCount);
  const vsNaive = (x, p) => (p ? `; naive chain append ${int(p.unitsPerSec)}/s, service ÷ naive ${(x / p.unitsPerSec).toFixed(2)} ×` : '');
  const procs = m ? `${m.processes} server processes` : '';
  const lines = [];
  lines.push(
    `PostgreSQL, one organisation, 4 server processes: ≥ 5 000 writes/s — ` +
      (m
        ? `${verdict(m.processes >= 4 && m.results.one.reqPerSec >= 5000)} (${int(m.results.one.reqPerSec)} writes/s with ${procs}${vsNaive(m.results.one.reqPerSec, naiveOne)})`
        : notMeasured(ID)),
  );
  // "p99 ≤ 20 ms at half that load": half of 5 000/s. Measured at half the maximum reached, it
  // counts only when that is at least 2 500/s; a low p99 at a lower rate does not meet the goal.
  const halfGoalRate = 2500;
  const pgHalfText = (h) => {
    const below = h.offered < halfGoalRate ? `, below the ${int(halfGoalRate)}/s that is half the goal's 5 000/s` : '';
    return `p99 ${ms(h.p99)} ms, p50 ${ms(h.p50)} ms at ${int(h.offered)} req/s offered — half the maximum measured${below} — ${int(h.reqPerSec)}/s answered, ${procs}; the bare route at the same pace: p99 ${ms(m.results.halfBare.p99)} ms`;
  };
  lines.push(
    `PostgreSQL, one organisation: p99 ≤ 20 ms at half of 5 000 writes/s — ` +
      (m
        ? `${verdict(m.results.half.p99 <= 20 && m.results.half.offered >= halfGoalRate)} (${pgHalfText(m.results.half)})`
        : notMeasured(ID)),
  );
  lines.push(
    `PostgreSQL, ${m ? m.orgCount : settings.pgOrgs} organisations: ≥ 8 000 writes/s — ` +
      (m
        ? `${verdict(m.orgCount >= 8 && m.results.many.reqPerSec >= 8000)} (${int(m.results.many.reqPerSec)} writes/s with ${procs}${vsNaive(m.results.many.reqPerSec, naiveMany)})`
        : notMeasured(ID)),
  );
  return lines;
}

/** Its bullets of "How to read this" (the half-load one covers the single-process half load too). */
export function notes({ settings: s }) {
  return `- **PostgreSQL with ${s.pgProcesses} processes** is the multi-process goals' setting. Its bare row is the ceiling these
  processes reach for plain HTTP+JSON on this machine, load generator and PostgreSQL sharing the
  same cores; a writes/s goal above that ceiling cannot be met here whatever the write path does.
  **service ÷ naive** compares the service with the naive chain append on the same PostgreSQL
  server in the same run (one statement per round trip under the head lock): below 1 × the
  service's write path is slower than the simplest correct append, so its shape, not the
  database, is the limit.
- **Half load** latencies are measured with a paced (open) load, not a closed loop: they are the
  latency a request sees when the server has headroom, plus any queueing the pacing causes.`;
}

/** What to log when a check failed (nothing when all passed). */
export function failures(multi) {
  if (!multi || failedChecks(multi.checks).length === 0) return [];
  return [
    `${multi.scenario.label} failed checks: ${JSON.stringify(multi.checks)}`,
    ...Object.entries(multi.results).map(
      ([phase, r]) => `${phase} status codes: ${JSON.stringify(r.statusCodes)} warm-up ${JSON.stringify(r.warm.statusCodes)}`,
    ),
    `servers' output tails:\n${multi.serverTail}`,
  ];
}

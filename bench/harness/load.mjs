// Load on the server: the routes and their bodies, autocannon runs with every response's status
// and latency kept, tallies over warm-up and measured slices, load spread over several processes
// and organisations, and paced (open) load for the half-load latency.
import http from 'node:http';
import autocannon from 'autocannon';
import { cpuSecondsOf } from './server.mjs';

/** "Half load" (the latency goals): this share of the maximum measured just before. */
export const HALF_LOAD = 0.5;

export const BODY = JSON.stringify({
  params: { payeeName: 'Bench Pty Ltd', description: 'Consulting', totalCents: 123456, dueDays: 14 },
});
/**
 * billCapture from one supplier with bank details, never approved: every bill is held NEW_PAYEE
 * (the bill-approval rule) after the payee's approved-bank reads, the path a bill from a new supplier takes.
 */
export const BILL_BODY = JSON.stringify({
  params: {
    payeeName: 'Bench Supplies Pty Ltd',
    description: 'Parts',
    totalCents: 54321,
    dueDays: 14,
    payeeBsb: '062-000',
    payeeAccountNumber: '12345678',
    payeeAccountName: 'Bench Supplies',
  },
});

/**
 * The single-process scenarios' routes. bare and write (invoiceDraft) carry the same body and are
 * the goals' ratio; bill (billCapture) is measured beside them. The multi-process scenario and the
 * paced half load use the first two.
 */
export const TARGETS = [
  { id: 'bare', label: 'POST /bench/bare', path: '/bench/bare', auth: false, body: BODY },
  { id: 'write', label: 'POST books.invoiceDraft', path: '/api/v1/books.invoiceDraft', auth: true, body: BODY },
  { id: 'bill', label: 'POST books.billCapture', path: '/api/v1/books.billCapture', auth: true, body: BILL_BODY },
];

/** One autocannon run; every response's status and latency (ms, full precision) is recorded. */
export function cannon(opts, onResponse) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
    if (onResponse) instance.on('response', (_client, statusCode, _bytes, responseTime) => onResponse(statusCode, responseTime));
  });
}

/** autocannon's options for `target` on `server`, with the run's connections and pipelining. */
export function requestOptions(server, target, agentKey, { connections, pipelining }) {
  const headers = { 'content-type': 'application/json' };
  if (target.auth) headers.authorization = `Bearer ${agentKey}`;
  return {
    url: `${server.url}${target.path}`,
    method: 'POST',
    headers,
    body: target.body,
    connections,
    pipelining,
    timeout: 10,
  };
}

/** Running totals for one route across its warm-up and measured slices. */
export function newTally() {
  return {
    seconds: 0,
    ok: 0,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: {},
    latencies: [],
    serverCpuSeconds: 0,
    loaderCpuSeconds: 0,
    cpuKnown: true,
    commitUnits: 0,
    commits: 0,
    commitsKnown: true,
    warm: { ok: 0, non2xx: 0, errors: 0, timeouts: 0, statusCodes: {} },
  };
}

function addCounts(into, r, codes) {
  into.ok += r['2xx'] ?? 0;
  into.non2xx += r.non2xx ?? 0;
  into.errors += r.errors ?? 0;
  into.timeouts += r.timeouts ?? 0;
  for (const [code, n] of Object.entries(codes)) into.statusCodes[code] = (into.statusCodes[code] ?? 0) + n;
}

/** One autocannon run of `seconds` against one server, added to `tally` (to its warm-up counts unless `measured`). */
export async function slice(server, opts, tally, seconds, measured) {
  const codes = {};
  const latencies = measured ? tally.latencies : null;
  const onResponse = (status, ms) => {
    codes[status] = (codes[status] ?? 0) + 1;
    if (latencies) latencies.push(ms);
  };
  const cpuBefore = cpuSecondsOf(server.pid);
  const selfBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const r = await cannon({ ...opts, duration: seconds }, onResponse);
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuAfter = cpuSecondsOf(server.pid);
  const self = process.cpuUsage(selfBefore);
  if (!measured) {
    addCounts(tally.warm, r, codes);
    return;
  }
  addCounts(tally, r, codes);
  tally.seconds += wall;
  if (cpuBefore === null || cpuAfter === null) tally.cpuKnown = false;
  else tally.serverCpuSeconds += cpuAfter - cpuBefore;
  tally.loaderCpuSeconds += (self.user + self.system) / 1e6;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

export function summarise(t) {
  const sorted = Float64Array.from(t.latencies).sort();
  return {
    reqPerSec: t.ok / t.seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    ok: t.ok,
    non2xx: t.non2xx,
    errors: t.errors,
    timeouts: t.timeouts,
    statusCodes: t.statusCodes,
    warm: t.warm,
    serverCpu: t.cpuKnown ? t.serverCpuSeconds / t.seconds : null,
    // Server CPU time per acknowledged request: the cost of a request with the waiting taken out.
    cpuMicrosPerReq: t.cpuKnown && t.ok > 0 ? (t.serverCpuSeconds / t.ok) * 1e6 : null,
    loaderCpu: t.loaderCpuSeconds / t.seconds,
    // Writes per group commit (the servers' fd_group_commit_units over the measured seconds).
    unitsPerCommit: t.commitsKnown && t.commits > 0 ? t.commitUnits / t.commits : null,
  };
}

/** Only 200s, warm-up included, and no socket error or timeout. */
export function only200(r) {
  return (
    r.non2xx + r.errors + r.timeouts + r.warm.non2xx + r.warm.errors + r.warm.timeouts === 0 &&
    [...Object.keys(r.statusCodes), ...Object.keys(r.warm.statusCodes)].every((code) => code === '200')
  );
}

// ---------------------------------------------------------------------------------------------
// Load over several server processes and organisations, and paced load for the half-load
// latency

/**
 * Spread `connections` over processes × organisations: connection i serves organisation i mod
 * orgs on process ⌊i / orgs⌋ mod processes, so that each organisation's connections reach every
 * process (its head is contended across processes, as in production behind a load balancer) and
 * each process gets the same share. Returns one group per (process, organisation) pair in use.
 */
export function connectionGroups(processes, orgs, connections) {
  const groups = new Map();
  for (let i = 0; i < connections; i += 1) {
    const org = i % orgs;
    const proc = Math.floor(i / orgs) % processes;
    const key = `${proc}/${org}`;
    if (!groups.has(key)) groups.set(key, { proc, org, connections: 0 });
    groups.get(key).connections += 1;
  }
  return [...groups.values()];
}

/** Acknowledged writes per organisation, and how many more its chain may hold (see the checks). */
export function newLedger(slugs) {
  return new Map(slugs.map((slug) => [slug, { acked: 0, slack: 0 }]));
}

function emptyCounts() {
  return { '2xx': 0, non2xx: 0, errors: 0, timeouts: 0 };
}

/**
 * One autocannon instance per group, all at once for `seconds`, in this process. Every response's
 * status and latency is recorded, so the percentiles are exact over all instances together.
 */
export async function cannonGroups({ servers, orgs, groups, target, seconds, latencies, ledger, pipelining }) {
  const codes = {};
  const counts = emptyCounts();
  const onResponse = (status, ms) => {
    codes[status] = (codes[status] ?? 0) + 1;
    if (latencies) latencies.push(ms);
  };
  await Promise.all(
    groups.map(async (g) => {
      const base = requestOptions(servers[g.proc], target, orgs[g.org].agent, { connections: g.connections, pipelining });
      const r = await cannon({ ...base, duration: seconds }, onResponse);
      for (const k of Object.keys(counts)) counts[k] += r[k] ?? 0;
      if (target.auth) {
        const entry = ledger.get(orgs[g.org].slug);
        entry.acked += r['2xx'] ?? 0;
        // A request in flight when autocannon stops may commit uncounted: one per connection.
        entry.slack += g.connections * pipelining;
      }
    }),
  );
  return { counts, codes };
}

/**
 * Paced load: requests at evenly spaced instants, `rate` per second for `seconds`, over the same
 * connection groups (a keep-alive pool of g.connections sockets per group), request k on connection
 * k mod connections. Latency runs from the request's scheduled instant, not from when a socket
 * became free, so time queued behind a slow server counts (no coordinated omission).
 *
 * Not autocannon's overallRate: it lets each connection send its per-second quota back to back at
 * the top of every second, a burst at full speed followed by idling, so its latencies at "half
 * load" are those of full load. The run drains: every request sent is answered (or fails) before
 * this returns, so every acknowledged write is counted and no slack is needed.
 */
export async function pacedGroups({ servers, orgs, groups, target, rate, seconds, latencies, ledger }) {
  const codes = {};
  const counts = emptyCounts();
  const slots = groups.flatMap((g, gi) => Array.from({ length: g.connections }, () => gi));
  const agents = groups.map((g) => new http.Agent({ keepAlive: true, maxSockets: g.connections }));
  const body = Buffer.from(BODY);
  const total = Math.max(1, Math.round(rate * seconds));
  const intervalMs = 1000 / rate;
  let maxLagMs = 0;
  const inflight = new Set();

  const fire = (k, scheduled) => {
    const gi = slots[k % slots.length];
    const g = groups[gi];
    const server = new URL(servers[g.proc].url);
    const headers = { 'content-type': 'application/json', 'content-length': body.length };
    if (target.auth) headers.authorization = `Bearer ${orgs[g.org].agent}`;
    const done = new Promise((resolve) => {
      const req = http.request(
        { host: server.hostname, port: server.port, path: target.path, method: 'POST', headers, agent: agents[gi] },
        (res) => {
          res.on('data', () => undefined);
          res.on('error', () => {
            counts.errors += 1;
            resolve();
          });
          res.on('end', () => {
            const status = res.statusCode;
            codes[status] = (codes[status] ?? 0) + 1;
            if (status >= 200 && status < 300) {
              counts['2xx'] += 1;
              if (target.auth) ledger.get(orgs[g.org].slug).acked += 1;
            } else counts.non2xx += 1;
            if (latencies) latencies.push(performance.now() - scheduled);
            resolve();
          });
        },
      );
      req.setTimeout(10_000, () => {
        counts.timeouts += 1;
        req.destroy(new Error('timeout'));
      });
      req.on('error', () => {
        counts.errors += 1;
        resolve();
      });
      req.end(body);
    });
    inflight.add(done);
    done.then(() => inflight.delete(done));
  };

  const start = performance.now();
  let issued = 0;
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor((now - start) / intervalMs) + 1);
      for (; issued < due; issued += 1) {
        const scheduled = start + issued * intervalMs;
        maxLagMs = Math.max(maxLagMs, now - scheduled);
        fire(issued, scheduled);
      }
      if (issued >= total) resolve();
      else setTimeout(tick, Math.max(0, Math.min(1, start + issued * intervalMs - performance.now())));
    };
    tick();
  });
  while (inflight.size > 0) await Promise.all([...inflight]);
  for (const a of agents) a.destroy();
  return { counts, codes, offered: total / seconds, maxLagMs };
}

/**
 * The servers' group commits so far (`fd_group_commit_units` from /metrics, summed over the
 * processes): writes and commits. Null if a server does not serve it.
 */
async function commitsOf(servers) {
  let units = 0;
  let commits = 0;
  for (const server of servers) {
    if (!server.metricsToken) return null;
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${server.metricsToken}` } });
    const text = await res.text();
    const sum = /^fd_group_commit_units_sum (\d+(?:\.\d+)?)/m.exec(text);
    const count = /^fd_group_commit_units_count (\d+)/m.exec(text);
    if (res.status !== 200 || !sum || !count) return null;
    units += Number(sum[1]);
    commits += Number(count[1]);
  }
  return { units, commits };
}

/** Run one phase of load against `servers`, adding its counts, wall time and CPU to `tally`. */
export async function timedPhase(servers, tally, measured, run) {
  const commitsBefore = measured ? await commitsOf(servers) : null;
  const cpuBefore = servers.map((s) => cpuSecondsOf(s.pid));
  const selfBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const out = await run(measured ? tally.latencies : null);
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuAfter = servers.map((s) => cpuSecondsOf(s.pid));
  const self = process.cpuUsage(selfBefore);
  if (!measured) {
    addCounts(tally.warm, out.counts, out.codes);
    return out;
  }
  addCounts(tally, out.counts, out.codes);
  const commitsAfter = commitsBefore ? await commitsOf(servers) : null;
  if (commitsBefore && commitsAfter) {
    tally.commitUnits += commitsAfter.units - commitsBefore.units;
    tally.commits += commitsAfter.commits - commitsBefore.commits;
  } else tally.commitsKnown = false;
  tally.seconds += wall;
  if ([...cpuBefore, ...cpuAfter].some((c) => c === null)) tally.cpuKnown = false;
  else tally.serverCpuSeconds += cpuAfter.reduce((a, c, i) => a + c - cpuBefore[i], 0);
  tally.loaderCpuSeconds += (self.user + self.system) / 1e6;
  return out;
}

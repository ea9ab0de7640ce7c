/**
 * Seq per organisation is gapless and never forks, also with many server processes on one
 * database. Four `finance-desk serve` processes (each migrating on start, concurrently) share one
 * fresh PostgreSQL database; 400 writes to one hot organisation and 400 spread over eight others
 * are all in flight at once. Afterwards every organisation's ledger, read back over HTTP, must run
 * seq 1..N with no gap or duplicate, verify as a chain whose head is the snapshot head, and hold
 * every acknowledged write; `finance-desk verify` must agree.
 */
import { verifyChain, type EventRow } from '@finance-desk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from './harness.js';
import { createScratchDatabase, freePorts, runCli, spawnServe, stopServe, waitHealthy, type ServeProcess } from './multiprocess.js';

const pgUrl = process.env.TEST_DATABASE_URL;
if (!pgUrl) {
  console.warn(
    '[finance-desk tests] multi-process concurrency test SKIPPED: TEST_DATABASE_URL is not set ' +
      '(it needs a PostgreSQL server shared by several serve processes).',
  );
}

const PROCESSES = 4;
/** FD_MP_HOT_WRITES: the nightly `npm run hostile` raises it. */
const HOT_WRITES = Number(process.env.FD_MP_HOT_WRITES ?? 1000);
const SPREAD_ORGS = 8;
const WRITES_PER_SPREAD_ORG = 50;

interface Org {
  slug: string;
  orgId: string;
  keys: { observer: string; reader: string; agent: string };
}

type Method = 'books.invoiceDraft' | 'board.createTask';

interface WriteOutcome {
  org: Org;
  method: Method;
  via: number;
  status: number;
  body: unknown;
  error?: string;
  /** Set when acknowledged: HTTP 200 and ok true. */
  ack?: { id: string; ledgerId: string };
}

const EXPECTED_KIND: Record<Method, string> = {
  'books.invoiceDraft': 'books.invoice.draft',
  'board.createTask': 'item.created',
};

/** Request ids and other per-call noise out of an error text, so that failures group by cause. */
function normalise(text: string): string {
  return text
    .replace(/\b(req|org|inv|task|key|usr)_[0-9a-z]{10,}/g, '$1_…')
    .replace(/, \d+\)/g, ', N)')
    .slice(0, 300);
}

/** The server's log line(s) for the request id quoted in an INTERNAL error body, condensed. */
function serverLogFor(p: ServeProcess, body: string): string | null {
  const reqId = /req_[0-9a-z]+/.exec(body)?.[0];
  if (!reqId) return null;
  const lines = p
    .output()
    .split('\n')
    .filter((l) => l.includes(reqId));
  return lines.length ? lines.map(condenseLogLine).join(' | ') : null;
}

function condenseLogLine(line: string): string {
  try {
    const j = JSON.parse(line) as {
      level?: number;
      msg?: string;
      err?: { type?: string; message?: string; code?: string; detail?: string };
    };
    const e = j.err;
    return `level ${j.level} ${j.msg ?? ''} ${e ? `${e.type}: ${e.message} [${e.code ?? ''}] ${e.detail ?? ''}` : ''}`.trim();
  } catch {
    return line.slice(0, 500);
  }
}

/** A serve process's output grouped by message, with counts; '' when it printed nothing. */
function summariseOutput(output: string): string {
  const lines = output.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === 0) return '';
  const counts = new Map<string, number>();
  for (const l of lines) {
    const key = normalise(condenseLogLine(l));
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)
    .map(([k, n]) => `  ${n}× ${k}`)
    .join('\n');
}

describe.skipIf(!pgUrl)('many server processes on one PostgreSQL database', () => {
  let drop: (() => Promise<void>) | undefined;
  let env: NodeJS.ProcessEnv;
  const servers: ServeProcess[] = [];
  let hot: Org;
  const spread: Org[] = [];
  const outcomes: WriteOutcome[] = [];

  beforeAll(async () => {
    const scratch = await createScratchDatabase(pgUrl as string);
    drop = scratch.drop;
    env = {
      DATABASE_URL: scratch.url,
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      LOG_LEVEL: 'warn',
      // Rate limits stay per process; no shared limiter between them.
      REDIS_URL: '',
    };

    // Organisations first, one after another (the first command also migrates the database). The
    // operator's command, run in this process: the processes under test are the servers, and a
    // process per command cost about two seconds of start-up each.
    const orgs: Org[] = [];
    for (let i = 0; i <= SPREAD_ORGS; i += 1) {
      const slug = i === 0 ? 'mp-hot' : `mp-spread-${i}`;
      const r = await runCliInProcess(scratch.url, 'org', 'create', '--name', `MP ${slug}`, '--slug', slug, '--json');
      if (r.code !== 0) throw new Error(`org create ${slug} failed (exit ${r.code}): ${r.err}${r.out}`);
      const o = JSON.parse(r.out) as Org;
      expect(o.slug).toBe(slug);
      orgs.push(o);
    }
    hot = orgs[0] as Org;
    spread.push(...orgs.slice(1));

    // Four servers at once: each runs migrations on start, concurrently with the others.
    const ports = await freePorts(PROCESSES);
    ports.forEach((port, i) => servers.push(spawnServe(i, port, env)));
    await Promise.all(servers.map((s) => waitHealthy(s, 60_000)));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => stopServe(s, 10_000)));
    for (const s of servers) {
      const summary = summariseOutput(s.output());
      if (summary) console.warn(`[serve #${s.index} port ${s.port}, exit ${JSON.stringify(s.exited())}] output:\n${summary}`);
    }
    if (drop) await drop();
  }, 60_000);

  function server(i: number): ServeProcess {
    return servers[i % servers.length] as ServeProcess;
  }

  async function write(org: Org, method: Method, via: number, n: number): Promise<WriteOutcome> {
    const params =
      method === 'books.invoiceDraft'
        ? { payeeName: `Payee ${org.slug} ${n}`, description: `mp write ${n}`, totalCents: 100 + n, dueDays: 14 }
        : { title: `mp task ${org.slug} ${n}` };
    const outcome: WriteOutcome = { org, method, via, status: 0, body: null };
    try {
      const res = await fetch(`${server(via).url}/api/v1/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${org.keys.agent}`, 'content-type': 'application/json' },
        body: JSON.stringify({ params }),
      });
      outcome.status = res.status;
      const text = await res.text();
      try {
        outcome.body = JSON.parse(text);
      } catch {
        outcome.body = text;
      }
      const b = outcome.body as { ok?: boolean; result?: { id?: unknown; ledgerId?: unknown } };
      if (res.status === 200 && b?.ok === true && typeof b.result?.id === 'string' && typeof b.result?.ledgerId === 'string') {
        outcome.ack = { id: b.result.id, ledgerId: b.result.ledgerId };
      }
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- fetch's cause is an Error, whose String() is its message
      outcome.error = error instanceof Error ? `${error.name}: ${error.message} ${String(error.cause ?? '')}` : String(error);
    }
    return outcome;
  }

  async function getJson<T>(via: number, org: Org, path: string): Promise<T> {
    const res = await fetch(`${server(via).url}/api/v1/${path}`, {
      headers: { authorization: `Bearer ${org.keys.observer}` },
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET ${path} via serve #${via % PROCESSES} → ${res.status}: ${text}`);
    return JSON.parse(text) as T;
  }

  async function readLedger(org: Org, via: number): Promise<EventRow[]> {
    const rows: EventRow[] = [];
    let cursor = 0;
    for (let page = 0; ; page += 1) {
      const r = await getJson<{ events: EventRow[]; nextCursor: number }>(via + page, org, `events?cursor=${cursor}&limit=500`);
      rows.push(...r.events);
      if (r.events.length === 0) break;
      expect(r.nextCursor).toBe(r.events[r.events.length - 1]?.seq);
      cursor = r.nextCursor;
    }
    return rows;
  }

  it(`${HOT_WRITES} concurrent writes to one organisation and ${SPREAD_ORGS * WRITES_PER_SPREAD_ORG} spread over ${SPREAD_ORGS}, across ${PROCESSES} processes, are all acknowledged`, async () => {
    const jobs: Array<() => Promise<WriteOutcome>> = [];
    for (let n = 0; n < HOT_WRITES; n += 1) jobs.push(() => write(hot, 'books.invoiceDraft', n, n));
    for (let n = 0; n < WRITES_PER_SPREAD_ORG; n += 1) {
      spread.forEach((org, k) => {
        const method: Method = (n + k) % 2 === 0 ? 'books.invoiceDraft' : 'board.createTask';
        jobs.push(() => write(org, method, n + k, n));
      });
    }
    // Interleave hot and spread so that both are in flight together from the first request.
    const hotJobs = jobs.slice(0, HOT_WRITES);
    const spreadJobs = jobs.slice(HOT_WRITES);
    const interleaved: Array<() => Promise<WriteOutcome>> = [];
    for (let i = 0; i < Math.max(hotJobs.length, spreadJobs.length); i += 1) {
      if (hotJobs[i]) interleaved.push(hotJobs[i] as () => Promise<WriteOutcome>);
      if (spreadJobs[i]) interleaved.push(spreadJobs[i] as () => Promise<WriteOutcome>);
    }
    const started = Date.now();
    outcomes.push(...(await Promise.all(interleaved.map((job) => job()))));
    const elapsed = Date.now() - started;
    console.info(`[multiprocess] ${outcomes.length} writes over ${PROCESSES} processes in ${elapsed} ms`);

    const failed = outcomes.filter((o) => !o.ack);
    if (failed.length > 0) {
      const byKind = new Map<string, number>();
      for (const f of failed) {
        const key = `${f.method} ${f.org === hot ? 'hot' : 'spread'} → ${f.status} ${normalise(f.error ?? JSON.stringify(f.body))}`;
        byKind.set(key, (byKind.get(key) ?? 0) + 1);
      }
      const samples = failed.slice(0, 5).map((f) => {
        const body = f.error ?? JSON.stringify(f.body);
        const logged = serverLogFor(server(f.via), body);
        return `  ${f.method} ${f.org.slug} via serve #${f.via % PROCESSES}: ${f.status} ${body.slice(0, 500)}${logged ? `\n    server log: ${logged}` : ''}`;
      });
      console.error(
        `[multiprocess] ${failed.length} of ${outcomes.length} writes NOT acknowledged:\n` +
          [...byKind].map(([k, n]) => `  ${n}× ${k}`).join('\n') +
          `\nsamples:\n${samples.join('\n')}`,
      );
    }
    expect(outcomes).toHaveLength(HOT_WRITES + SPREAD_ORGS * WRITES_PER_SPREAD_ORG);
    expect(failed.length, `${failed.length} writes not acknowledged (details on stderr above)`).toBe(0);
    // Every server is still up after the storm.
    expect(servers.map((s) => s.exited())).toEqual(servers.map(() => null));
  }, 120_000);

  it('every organisation: seq 1..N gapless and unduplicated, chain verifies to the snapshot head, every acknowledged write present', async () => {
    expect(outcomes.length).toBeGreaterThan(0);
    const all = [hot, ...spread];
    for (const [i, org] of all.entries()) {
      const acked = outcomes.filter((o) => o.org === org && o.ack);
      const rows = await readLedger(org, i);
      const n = 1 + acked.length;

      // Gapless, no duplicates, exactly one event per acknowledged write plus org.created.
      const seqs = rows.map((r) => r.seq);
      expect(new Set(seqs).size, `${org.slug}: duplicate seq`).toBe(seqs.length);
      expect(seqs, `${org.slug}: seq must run 1..${n}`).toEqual(Array.from({ length: n }, (_, k) => k + 1));
      expect(rows[0]).toMatchObject({ seq: 1, family: 'org', kind: 'org.created', entity_id: org.orgId, prev_hash: '' });

      // The chain verifies, and its head is what every process reports as the snapshot head.
      const verdict = verifyChain(rows);
      expect(verdict, `${org.slug}: chain`).toMatchObject({ ok: true, rows: n });
      if (!verdict.ok) continue;
      for (let p = 0; p < PROCESSES; p += 1) {
        const snap = await getJson<{ orgId: string; head: { seq: number; rowHash: string } }>(p, org, 'snapshot');
        expect(snap, `${org.slug}: snapshot via serve #${p}`).toEqual({ orgId: org.orgId, head: verdict.head });
      }

      // Every acknowledged write is in the ledger: its ledgerId is a row_hash prefix and its id
      // an entity_id, on one and the same row of the expected kind.
      const hashPrefixes = new Set(rows.map((r) => r.row_hash.slice(0, 8)));
      const byEntity = new Map<string, EventRow[]>();
      for (const r of rows) byEntity.set(r.entity_id, [...(byEntity.get(r.entity_id) ?? []), r]);
      const missing: string[] = [];
      for (const o of acked) {
        const ack = o.ack as { id: string; ledgerId: string };
        expect(ack.ledgerId).toMatch(/^[0-9a-f]{8}$/);
        if (!hashPrefixes.has(ack.ledgerId)) missing.push(`ledgerId ${ack.ledgerId} (${o.method} ${ack.id})`);
        const own = byEntity.get(ack.id) ?? [];
        if (own.length !== 1) {
          missing.push(`entity ${ack.id}: ${own.length} events`);
          continue;
        }
        const row = own[0] as EventRow;
        if (!row.row_hash.startsWith(ack.ledgerId) || row.kind !== EXPECTED_KIND[o.method]) {
          missing.push(`entity ${ack.id}: row seq ${row.seq} kind ${row.kind} hash ${row.row_hash} ≠ ledgerId ${ack.ledgerId}`);
        }
      }
      expect(missing, `${org.slug}: acknowledged writes missing from the ledger`).toEqual([]);

      if (org === hot) {
        // The hot chain really was built by all processes interleaved, not one after another.
        const viaOf = new Map(acked.map((o) => [(o.ack as { id: string }).id, o.via % PROCESSES]));
        const order = rows.slice(1).map((r) => viaOf.get(r.entity_id));
        const switches = order.filter((v, k) => k > 0 && v !== order[k - 1]).length;
        console.info(`[multiprocess] hot chain: ${rows.length} events, ${switches} switches between processes`);
        expect(new Set(order).size).toBe(PROCESSES);
        expect(switches).toBeGreaterThan(PROCESSES);
      }
    }
  }, 120_000);

  it('finance-desk verify --org exits 0 for every organisation', async () => {
    // The hot organisation's chain is verified by the command as its own process, as an operator
    // runs it next to the servers; the others by the same command in this process.
    for (const org of [hot, ...spread]) {
      const r =
        org === hot
          ? await runCli(env, ['verify', '--org', org.slug, '--json'])
          : await runCliInProcess(env.DATABASE_URL as string, 'verify', '--org', org.slug, '--json');
      expect(r.code, `verify ${org.slug}: ${r.err}${r.out}`).toBe(0);
      const expected = 1 + outcomes.filter((o) => o.org === org && o.ack).length;
      expect(JSON.parse(r.out), `verify ${org.slug}`).toMatchObject({ ok: true, rows: expected });
    }
  }, 120_000);
});

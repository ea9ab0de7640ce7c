/**
 * One of the hostile suites: kill -9 under write load. A `finance-desk serve`
 * process takes writes from 8 clients and is killed with SIGKILL mid-stream, FD_KILL9_CYCLES times
 * (default 3 here; the nightly `npm run hostile` runs 20), on SQLite with synchronous=FULL (the
 * default). After every crash the server restarts on the same file; every write it had
 * acknowledged must be on the ledger, and the chain must verify.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts, runCli, spawnServe, stopServe, waitHealthy, type ServeProcess } from './multiprocess.js';

const CYCLES = Number(process.env.FD_KILL9_CYCLES ?? 3);

describe(`kill -9 under write load, ${CYCLES} times`, () => {
  let dir: string;
  let serve: ServeProcess | null = null;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'fd-kill9-'));
  });
  afterAll(async () => {
    if (serve) await stopServe(serve);
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'loses no acknowledged write and leaves a chain that verifies',
    async () => {
      const env = {
        DATABASE_URL: `sqlite:${join(dir, 'fd.db')}`,
        SQLITE_SYNCHRONOUS: 'FULL',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_BURST: '100000',
        RATE_LIMIT_PER_SECOND: '100000',
        EMAIL_OUTBOX_DIR: join(dir, 'out'),
      };
      const created = await runCli(env, ['org', 'create', '--name', 'Crash Test Pty Ltd', '--json']);
      expect(created.code).toBe(0);
      const org = JSON.parse(created.out) as { slug: string; keys: { agent: string } };
      const acked = new Set<string>();
      let attempted = 0;
      for (let cycle = 0; cycle < CYCLES; cycle += 1) {
        const [port] = await freePorts(1);
        serve = spawnServe(cycle, port as number, env);
        await waitHealthy(serve);
        const url = serve.url;
        let dead = false;
        const worker = async (w: number) => {
          for (let i = 0; !dead; i += 1) {
            attempted += 1;
            try {
              const res = await fetch(`${url}/api/v1/board.createTask`, {
                method: 'POST',
                headers: { authorization: `Bearer ${org.keys.agent}`, 'content-type': 'application/json' },
                body: JSON.stringify({ title: `c${cycle} w${w} #${i}` }),
              });
              const body = (await res.json()) as { ok: boolean; result?: { id: string } };
              if (body.ok && body.result) acked.add(body.result.id);
            } catch {
              return; // the process is gone
            }
          }
        };
        const workers = Array.from({ length: 8 }, (_, w) => worker(w));
        const target = acked.size + 40 + cycle * 7;
        while (acked.size < target) await new Promise((r) => setTimeout(r, 2));
        const gone = new Promise<void>((resolve) => serve?.child.once('exit', () => resolve()));
        serve.child.kill('SIGKILL');
        await gone;
        dead = true;
        await Promise.all(workers);
        serve = null;
      }
      const verify = await runCli(env, ['verify', '--org', org.slug, '--json']);
      expect(verify.code, verify.out + verify.err).toBe(0);
      const [port] = await freePorts(1);
      serve = spawnServe(CYCLES, port as number, env);
      await waitHealthy(serve);
      const seen = new Set<string>();
      for (let cursor = 0; ;) {
        const res = await fetch(`${serve.url}/api/v1/events?cursor=${cursor}&limit=500`, {
          headers: { authorization: `Bearer ${org.keys.agent}` },
        });
        const page = (await res.json()) as { events: { entity_id: string }[]; nextCursor: number };
        for (const e of page.events) seen.add(e.entity_id);
        if (page.events.length === 0) break;
        cursor = page.nextCursor;
      }
      const lost = [...acked].filter((id) => !seen.has(id));
      console.info(
        `kill -9: ${CYCLES} cycles, ${attempted} writes attempted, ${acked.size} acknowledged, ${lost.length} lost; chain ${JSON.parse(verify.out).rows} events verified`,
      );
      expect(lost).toEqual([]);
    },
    60_000 + CYCLES * 15_000,
  );
});

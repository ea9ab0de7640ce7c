/**
 * REDIS_URL unreachable at start is a one-line startup error naming REDIS_URL;
 * Redis lost while running degrades to per-process limits with one warning (never a 500), and
 * the limiter goes back to Redis when it reconnects. The loss is simulated with a local TCP
 * proxy in front of the test Redis that the test closes and reopens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '../src/http/rate-limit.js';
import { startServer } from '../src/server.js';
import { startTestServer, testConfig, type TestServer } from './harness.js';
import { freePorts, runCli } from './multiprocess.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.warn('[finance-desk tests] Redis outage suite SKIPPED: TEST_REDIS_URL is not set.');

const UNREACHABLE = 'redis://127.0.0.1:1';

describe('REDIS_URL unreachable at start', () => {
  it('startServer refuses with a message naming REDIS_URL', async () => {
    await expect(startServer(testConfig({ redisUrl: UNREACHABLE }), { logger: false })).rejects.toThrow(
      /^REDIS_URL redis:\/\/127\.0\.0\.1:1 is unreachable/,
    );
  });

  it('`finance-desk serve` exits 2 with one line naming REDIS_URL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fd-redis-'));
    try {
      const [port] = await freePorts(1);
      const r = await runCli(
        { DATABASE_URL: `sqlite:${join(dir, 'fd.db')}`, REDIS_URL: UNREACHABLE, PORT: String(port), LOG_LEVEL: 'silent' },
        ['serve'],
        20_000,
      );
      expect(r.code).toBe(2);
      const lines = r.err.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^finance-desk: REDIS_URL redis:\/\/127\.0\.0\.1:1 is unreachable \(.+\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

/** A TCP proxy to Redis that can be cut (listener closed, every connection destroyed) and restored. */
class CuttableProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => this.sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
}

describe.skipIf(!redisUrl)('Redis lost while running', () => {
  let proxy: CuttableProxy;
  let direct: Redis;

  beforeAll(async () => {
    const target = new URL(redisUrl ?? '');
    const [port] = await freePorts(1);
    proxy = new CuttableProxy(port ?? 0, { host: target.hostname, port: Number(target.port || 6379) });
    await proxy.open();
    direct = new Redis(redisUrl ?? '');
  });
  afterAll(async () => {
    await proxy.cut();
    direct.disconnect();
  });

  it('authenticated requests keep answering 200 when Redis goes away', async () => {
    const t: TestServer = await startTestServer('sqlite', { redisUrl: proxy.url, ratePerSecond: 1000, rateBurst: 1000 });
    try {
      const org = await t.org();
      expect((await t.get(org.keys.observer, 'snapshot')).status).toBe(200);
      await proxy.cut();
      const statuses: number[] = [];
      for (let i = 0; i < 10; i += 1) statuses.push((await t.get(org.keys.observer, 'snapshot')).status);
      expect(statuses).toEqual(Array(10).fill(200));
    } finally {
      await t.close();
      await proxy.open();
    }
  }, 30_000);

  it('falls back to per-process limits with one warning, and goes back to Redis when it returns', async () => {
    const warnings: string[] = [];
    const prefix = `fd:rl:test:${process.pid}:${Date.now()}:`;
    const limiter = await RedisRateLimiter.connect(proxy.url, { perSecond: 1, burst: 3 }, (m) => warnings.push(m), prefix);
    try {
      expect((await limiter.take('b')).remaining).toBe(2);
      const firstAt = await direct.hget(`${prefix}b`, 'at');
      expect(firstAt).not.toBeNull(); // the bucket lives in Redis

      await proxy.cut();
      const during = [];
      for (let i = 0; i < 5; i += 1) during.push(await limiter.take('b'));
      // A fresh per-process bucket: the burst, then limited — still answers, never throws.
      expect(during.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/REDIS_URL .* unavailable .* per process/);

      await proxy.open();
      const deadline = Date.now() + 10_000;
      while (!warnings.some((w) => /shared again/.test(w)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(warnings).toHaveLength(2);
      await limiter.take('b');
      expect(await direct.hget(`${prefix}b`, 'at')).not.toBe(firstAt); // Redis holds the bucket again
    } finally {
      await limiter.close();
    }
  }, 30_000);
});

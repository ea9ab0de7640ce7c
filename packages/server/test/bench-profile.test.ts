import { describe, expect, it } from 'vitest';
import { IDLE, RULES, STAGES, attribute, frameUrl, perWrite, type CpuProfile } from '../../../bench/profile.mjs';

/**
 * The bench's per-stage budget (bench/profile.mjs) is only as good as its attribution of profile
 * samples to stages: the innermost stage's work on the stack wins over the mechanisms it uses
 * (a driver, node:http), and unnamed frames (SHA-256, JSON.stringify) count for their caller.
 * Checked on a profile in V8's format built from known stacks, with known time deltas.
 */
const ROOT = 'file:///srv/finance-desk';
const dist = (file: string) => `${ROOT}/packages/server/dist/${file}.js`;
const F = {
  httpServer: ['parserOnHeadersComplete', 'node:_http_common'],
  fastify: ['hookRunner', `${ROOT}/node_modules/fastify/lib/hooks.js`],
  reply: ['onSendEnd', `${ROOT}/node_modules/fastify/lib/reply.js`],
  writev: ['writev', ''],
  callMethod: ['callMethod', dist('http/app')],
  paramsOf: ['paramsOf', dist('http/app')],
  jsonParse: ['parse', ''],
  zod: ['inst._zod.run', `${ROOT}/node_modules/zod/v4/core/schemas.js`],
  runWrite: ['runWrite', dist('write-path')],
  seenResult: ['seenResult', dist('write-path')],
  requestHash: ['requestHash', dist('write-path')],
  unitGet: ['get', dist('write-path')],
  unitLater: ['later', dist('write-path')],
  sqliteGet: ['get', dist('storage/sqlite')],
  sqliteFlush: ['flush', dist('storage/sqlite')],
  sqliteRunSync: ['runSync', dist('storage/sqlite')],
  bsExec: ['exec', `${ROOT}/node_modules/better-sqlite3/lib/methods/wrappers.js`],
  handler: ['invoiceDraft', dist('domain/receivables/invoices')],
  chainEvent: ['chainEvent', dist('ledger/append')],
  sha256Hex: ['', `${ROOT}/packages/protocol/dist/hash.js`],
  cryptoHash: ['hash', 'node:internal/crypto/hash'],
  gate: ['gate', dist('http/app')],
  hashSecret: ['hashSecret', dist('org/credentials')],
  metrics: ['', dist('http/metrics')],
  microtasks: ['runMicrotasks', ''],
  mystery: ['whatever', `${ROOT}/node_modules/left-pad/index.js`],
  gc: ['(garbage collector)', ''],
  program: ['(program)', ''],
  idle: ['(idle)', ''],
  limitWriteBatch: ['writeBatch', `${ROOT}/bench/limit.mjs`],
  limitSha: ['sha256', `${ROOT}/bench/limit.mjs`],
  limitRoute: ['', `${ROOT}/bench/limit.mjs`],
} satisfies Record<string, [string, string]>;
type Frame = keyof typeof F;

/**
 * A profile whose samples have these stacks (outermost first), each sample taken `micros` after
 * the one before, from t = 1000.
 */
function profileOf(samples: readonly (readonly [stack: readonly Frame[], micros: number])[]): CpuProfile {
  const nodes: CpuProfile['nodes'] = [{ id: 1, callFrame: { functionName: '(root)', url: '' }, children: [] }];
  const byPath = new Map<string, number>();
  const ids = samples.map(([stack]) => {
    let parent = 1;
    let path = '';
    for (const frame of stack) {
      path += `/${frame}`;
      let id = byPath.get(path);
      if (id === undefined) {
        id = nodes.length + 1;
        const [functionName, url] = F[frame];
        nodes.push({ id, callFrame: { functionName, url }, children: [] });
        nodes[parent - 1]!.children!.push(id);
        byPath.set(path, id);
      }
      parent = id;
    }
    return parent;
  });
  const deltas = samples.map(([, micros]) => micros);
  return { nodes, startTime: 1000, endTime: 1000 + deltas.reduce((a, b) => a + b, 0), samples: ids, timeDeltas: deltas };
}

const stagesOf = (p: CpuProfile, window?: { from?: number; to?: number }) =>
  Object.fromEntries([...attribute(p, window).micros].sort(([a], [b]) => a.localeCompare(b)));

describe('bench: per-stage attribution of a CPU profile', () => {
  it('gives a sample the innermost stage on its stack, over the mechanisms it calls', () => {
    const p = profileOf([
      // The idempotency check's SELECT: idempotency's, not storage's.
      [['microtasks', 'seenResult', 'sqliteGet'], 10],
      // A handler's read through the unit's view: the domain reads'.
      [['unitGet', 'sqliteGet'], 20],
      // A queued row, resumed after an await: storage.
      [['unitLater', 'sqliteRunSync'], 40],
      // COMMIT under the engine's batch flush: storage.
      [['sqliteFlush', 'bsExec'], 80],
      // The handler runs inside the batch flush: its own code is the domain's.
      [['sqliteFlush', 'handler'], 100],
      // A driver called with no stage on the stack: storage, as the mechanism.
      [['bsExec'], 200],
    ]);
    expect(stagesOf(p)).toEqual({ domain: 100, idempotency: 10, reads: 20, storage: 320 });
  });

  it('counts unnamed frames (SHA-256, JSON.parse) for the stage that called them', () => {
    const p = profileOf([
      [['sqliteFlush', 'handler', 'chainEvent', 'sha256Hex', 'cryptoHash'], 1],
      [['fastify', 'callMethod', 'runWrite', 'requestHash', 'sha256Hex', 'cryptoHash'], 2],
      [['httpServer', 'fastify', 'gate', 'hashSecret', 'cryptoHash'], 4],
      [['httpServer', 'fastify', 'callMethod', 'paramsOf', 'jsonParse'], 8],
      [['fastify', 'callMethod', 'zod'], 16],
      [['limitRoute', 'limitWriteBatch', 'limitSha', 'cryptoHash'], 32],
    ]);
    expect(stagesOf(p)).toEqual({ auth: 4, hashing: 33, http: 8, idempotency: 2, validation: 16 });
  });

  it('separates the reply from the request, metrics, the runtime, GC and idle; and shows what no rule names', () => {
    const p = profileOf([
      [['callMethod'], 1],
      [['fastify', 'reply', 'writev'], 2],
      [['httpServer', 'fastify'], 4],
      [['callMethod', 'metrics'], 8],
      [['gc'], 16],
      [['program'], 32],
      [['microtasks'], 64],
      [['idle'], 128],
      [['microtasks', 'mystery'], 256],
      [['limitRoute'], 512],
    ]);
    const a = attribute(p);
    expect(Object.fromEntries(a.micros)).toEqual({
      response: 3,
      http: 516,
      observability: 8,
      gc: 16,
      runtime: 96,
      [IDLE]: 128,
      other: 256,
    });
    expect([...a.unmatched]).toEqual([['node_modules/left-pad/index.js:whatever < :runMicrotasks', 256]]);
    expect(a.total).toBe(1023);
    expect(a.samples).toBe(10);
  });

  it('counts only the samples in the window, each for the time since the one before, per write', () => {
    // Samples at t = 1010, 1030, 1070, 1150.
    const p = profileOf([
      [['handler'], 10],
      [['unitLater'], 20],
      [['idle'], 40],
      [['handler'], 80],
    ]);
    expect(stagesOf(p, { from: 1020, to: 1100 })).toEqual({ [IDLE]: 40, storage: 20 });
    const budget = perWrite(attribute(p), 10);
    expect(budget.stages.domain).toBe(9);
    expect(budget.stages.storage).toBe(2);
    expect(budget.stages[IDLE]).toBe(4);
    expect(budget.stages.hashing).toBe(0);
    expect([budget.busy, budget.wall]).toEqual([11, 15]);
    expect(perWrite(attribute(p), 0).busy).toBeNull();
  });

  it('reads frame urls relative to the repository, and every rule names a declared stage', () => {
    expect(frameUrl('file:///a/b/packages/server/dist/write-path.js')).toBe('packages/server/dist/write-path.js');
    expect(frameUrl('file:///a/node_modules/x/node_modules/pg/lib/client.js')).toBe('node_modules/pg/lib/client.js');
    expect(frameUrl('file:///a/b/bench/limit.mjs')).toBe('bench/limit.mjs');
    expect(frameUrl('node:_http_server')).toBe('node:_http_server');
    expect(frameUrl('')).toBe('');
    const ids = new Set(STAGES.map((s) => s.id));
    expect(RULES.filter((r) => !ids.has(r.stage))).toEqual([]);
    // Every stage but `other` (what no rule names) has a rule.
    expect([...ids].filter((id) => id !== 'other' && !RULES.some((r) => r.stage === id))).toEqual([]);
  });
});

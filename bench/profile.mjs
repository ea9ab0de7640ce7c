// Where one write's time goes: a V8 CPU profile (`node --cpu-prof`) of a server under load, its
// samples in a measured window attributed to stages of the write path, divided by the writes
// answered in that window: µs per write per stage. The same table attributes the service
// (packages/*/dist) and the limit servers (bench/limit.mjs, bench/limit-pg.mjs), so each stage has
// its limit counterpart.
//
// Attribution: a sample's stack is walked from its innermost frame outwards. A rule names a frame
// either as the work of a stage (a context: chainEvent is hashing, seenResult idempotency, the
// handler domain rules) or as a mechanism several stages use (better-sqlite3, node:http). The
// innermost context on the stack gives the sample's stage; only a stack with none falls back to
// its innermost mechanism. So the idempotency check's SELECT is idempotency's, a handler's read is
// the domain reads', and BEGIN … COMMIT (under the engine's batch flush) is storage's. Frames no
// rule names (node:events, a native JSON.stringify, node:crypto's hash) pass their time to the
// named frame that called them: SHA-256 under chainEvent is the ledger's hashing, under
// requestHash idempotency's, under hashSecret authentication's. After an `await` V8 records only
// the resumed async function and what it calls (its awaiting callers are not on the stack), so
// rules name the function that runs the work (write-path.ts's `later` for a queued row, its
// `all`/`get` for a handler's read) rather than who asked for it.
//
// Imports nothing: the bench-profile test runs `attribute` on a recorded small profile.

/**
 * The stages, in the order of a request. `why` is the document's justification of each one's
 * cost; the limit server pays the same stage only where its `limit` says so.
 */
export const STAGES = [
  {
    id: 'http',
    label: 'HTTP in: socket, parser, routing, body read and JSON parse',
    why: 'node:http parses the request; the service then runs Fastify (hooks, router, content-type parser) and parses the body text with JSON.parse; the limit server has no framework',
  },
  {
    id: 'auth',
    label: 'Authentication and rate limit',
    why: "the bearer key matched against the principal cache (a hash of the secret), the key's rate-limit bucket and its RateLimit headers, the method's scope; the limit server has no auth",
  },
  {
    id: 'validation',
    label: 'Validation',
    why: "the declared zod schema of the method's params, with the text rules on every string (control characters, lengths); the limit server checks two fields by hand",
  },
  {
    id: 'idempotency',
    label: 'Idempotency',
    why: 'the request hash (canonical JSON and SHA-256 of the params) and the check for an earlier result; the stored result row itself is written with the batch (storage)',
  },
  {
    id: 'domain',
    label: 'Domain rules (handler)',
    why: "the handler's own code: contact resolution, lines and GST allocation, the invoice number, the journal's lines and their digest, ids, dates, the event's payload",
  },
  {
    id: 'reads',
    label: 'Domain reads',
    why: "the handler's SELECTs (contact, accounts, tax codes, the bill's payee history), each through the unit's view of the transaction and its per-batch cache",
  },
  {
    id: 'hashing',
    label: 'Ledger event hashing',
    why: "the event's payload as canonical JSON and the SHA-256 over the previous hash and the row: the same work in both, on a larger payload in the service",
  },
  {
    id: 'storage',
    label: 'Storage statements (inserts, savepoints, BEGIN … COMMIT and its fsync)',
    why: "every row the write stores: the service's document, its lines, the journal and its lines, the event and the idempotency row, each unit in a savepoint; the limit's two inserts; COMMIT's fsync shared by the batch",
  },
  {
    id: 'unit',
    label: 'Unit of work and batch bookkeeping',
    why: 'write-path.ts around the handler: the organisation’s batch share, the unit’s mark and view of the transaction, the one-event invariant; the limit has its queue only',
  },
  {
    id: 'response',
    label: 'Response: serialise and write',
    why: "the result as JSON, the reply's headers and the socket write (writev)",
  },
  {
    id: 'observability',
    label: 'Metrics and logging',
    why: 'the request counters and latency histogram (prom-client), the logger bound to the request',
  },
  { id: 'gc', label: 'Garbage collection', why: "V8's collector: the allocations of every stage above" },
  {
    id: 'runtime',
    label: 'Runtime, unattributed',
    why: "V8 and libuv outside any JavaScript frame ((program)), microtask and timer machinery: the price of promises and setImmediate, no stage's own",
  },
  { id: 'other', label: 'Other (no rule matched)', why: 'frames the table does not name: should stay small' },
];

/** Idle is reported beside the stages, not among them: the event loop waiting, no work done. */
export const IDLE = 'idle';

/** A rule that names a frame only as the sample's own (innermost) frame. */
const SELF = Symbol('self');
/** A rule that names a mechanism: it gives the stage only when no context is on the stack. */
const MECHANISM = Symbol('mechanism');

/** A compiled file of the service (packages/<pkg>/dist/<path>.js). */
const dist = (path) => new RegExp(`^packages/[a-z]+/dist/${path}\\.js$`);
/** A bench limit server script (either engine). */
const LIMIT = /^bench\/limit(?:-pg)?\.mjs$/;

/**
 * [stage, url pattern, function-name pattern (optional), SELF | MECHANISM (optional)]; urls as
 * `frameUrl` gives them. The first rule that matches a frame names it.
 */
export const RULES = [
  // Ledger event hashing.
  ['hashing', dist('ledger/append'), /^chainEvent$/],
  ['hashing', LIMIT, /^(?:sha256|eventBody|canonical)$/],
  // Idempotency: the request's hash and the lookup of an earlier result.
  ['idempotency', dist('write-path'), /^(?:requestHash|seenResult)$/],
  // Domain reads: the unit's view of the transaction (write-path.ts unitTx) and readTogether.
  ['reads', dist('write-path'), /^(?:all|get|together|readsByKey)$/],
  ['reads', dist('governance/policy'), /^loadPolicy$/],
  // Storage: statements, the batch's write-out, the engine.
  ['storage', dist('write-path'), /^(?:later|run|flushRows|queueIdempotency|orgBatch|settingsOf)$/],
  ['storage', dist('ledger/append'), /^(?:queueEvents|insertEvents|moveHead)$/],
  ['storage', dist('storage/sql'), /^(?:insertMany|queueMany)$/],
  // The engines' batch: BEGIN, each unit's savepoint, the write-out, COMMIT.
  ['storage', dist('storage/sqlite'), /^(?:flush|runJob)$/],
  ['storage', dist('storage/postgres'), /^(?:flush|runBatch|attemptBatch|commit|drain|begun|sendGroup)$/],
  ['storage', LIMIT, /^(?:flush|writeBatch|drain)$/],
  // The drivers, and the storage seam's statement calls: whoever called them.
  ['storage', dist('storage/[a-z-]+'), null, MECHANISM],
  ['storage', /^node_modules\/(?:better-sqlite3|pg|pg-protocol|pg-pool|pg-types|postgres-array)\//, null, MECHANISM],
  // Unit of work: the rest of write-path.ts (unitOfWork, runWrite, emit, mark, the batch's memo).
  ['unit', dist('write-path')],
  // Validation.
  ['validation', /^node_modules\/zod\//],
  ['validation', dist('(?:validation|text-rules)')],
  ['validation', LIMIT, /^validate$/],
  // Authentication and the rate limit.
  ['auth', dist('http/app'), /^(?:gate|gateAfterCredential|takeRate|rememberable|confirmRemembered)$/],
  ['auth', dist('(?:org/[a-z-]+|http/rate-limit|principal|http/auth)')],
  // Response: serialising the result, the reply, the socket write.
  ['response', dist('http/app'), /^(?:callMethod|send)$/],
  ['response', /^node_modules\/fastify\/lib\/(?:reply|error-handler|wrap-thenable)\.js$/, null, MECHANISM],
  ['response', /^node:(?:_http_outgoing|internal\/streams\/writable|internal\/stream_base_commons)$/, null, MECHANISM],
  ['response', /^node:net$/, /write|Write/, MECHANISM],
  ['response', LIMIT, /^send$/],
  // Metrics and logging.
  ['observability', dist('http/metrics')],
  ['observability', /^node_modules\/(?:prom-client|pino|pino-std-serializers|sonic-boom)\//],
  ['observability', /^node:internal\/perf\//],
  // The handler and the domain it calls. The protocol package's helpers (canonical JSON, SHA-256,
  // decimals) are named by no rule: they count for whoever called them.
  ['domain', dist('(?:domain|governance|ledger|calendar|adapters)/.+')],
  ['domain', dist('(?:ids|clock|money|binding|registry|errors)')],
  // HTTP in: node:http, Fastify's request path, the body's JSON.parse (paramsOf), the limit's routes.
  ['http', dist('http/.+')],
  [
    'http',
    /^node_modules\/(?:fastify|find-my-way|light-my-request|avvio|@fastify\/[a-z-]+|fast-querystring|content-type)\//,
    null,
    MECHANISM,
  ],
  [
    'http',
    /^node:(?:_http_server|_http_common|_http_incoming|net|internal\/streams\/(?:readable|end-of-stream|destroy))$/,
    null,
    MECHANISM,
  ],
  ['http', LIMIT, null, MECHANISM],
  // Garbage collection and the runtime's own machinery.
  // Only as a sample's own frame: beneath them is code resumed by the runtime, whose own rule (or
  // none: `other`) must show.
  ['gc', /^$/, /^\(garbage collector\)$/, SELF],
  ['runtime', /^$/, /^\(program\)$|^runMicrotasks$/, SELF],
  [
    'runtime',
    /^node:(?:internal\/process\/(?:task_queues|promises)|internal\/(?:timers|async_hooks|linkedlist|fixed_queue)|events|timers)$/,
    null,
    SELF,
  ],
].map(([stage, url, fn, kind]) => ({ stage, url, fn: fn ?? null, selfOnly: kind === SELF, mechanism: kind === MECHANISM }));

/**
 * A frame's url relative to the repository: `packages/…/dist/…`, `bench/…`, the last
 * `node_modules/…`, or a node builtin (`node:…`); '' for V8's own pseudo-frames and natives.
 */
export function frameUrl(url) {
  if (!url) return '';
  if (url.startsWith('node:')) return url;
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + 1);
  const m = /(?:^|\/)((?:packages\/[^/]+\/dist|bench)\/.*)$/.exec(path);
  return m ? m[1] : path;
}

/**
 * The rule that names a frame, or null; `own`: the frame is the sample's innermost (rules for the
 * runtime's frames name only those).
 */
export function ruleOfFrame(callFrame, own, rules = RULES) {
  const url = frameUrl(callFrame.url);
  for (const r of rules) {
    if ((own || !r.selfOnly) && r.url.test(url) && (r.fn === null || r.fn.test(callFrame.functionName))) return r;
  }
  return null;
}

/**
 * Attribute a CPU profile's samples taken in [from, to] (µs on the profile's clock, which is the
 * monotonic clock process.hrtime reads; the whole profile when omitted) to stages. Each sample
 * weighs the time since the one before: a signal cannot interrupt a thread blocked in the kernel
 * (an fsync), so the sample that ends a long gap is the one taken as the call returned, and the
 * gap was spent in it. Returns the µs per stage (idle included as IDLE), the
 * total, the samples counted, and the µs of samples no rule matched (by their frame and its
 * caller, `url:function < url:function`), to extend the rules with.
 */
export function attribute(profile, { from = -Infinity, to = Infinity, rules = RULES } = {}) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // For each node: the innermost context and mechanism on its stack, from itself outwards.
  const named = (id, own, up) => {
    const frame = nodes.get(id).callFrame;
    if (own && frame.functionName === '(idle)' && !frame.url) return { context: IDLE, mechanism: null };
    const r = ruleOfFrame(frame, own, rules);
    return {
      context: r && !r.mechanism ? r.stage : up.context,
      mechanism: r && r.mechanism ? r.stage : up.mechanism,
    };
  };
  const NONE = { context: null, mechanism: null };
  const outer = new Map();
  const above = (id) => {
    if (id === undefined) return NONE;
    let found = outer.get(id);
    if (!found) {
      found = named(id, false, above(parent.get(id)));
      outer.set(id, found);
    }
    return found;
  };
  const resolve = (id) => {
    const { context, mechanism } = named(id, true, above(parent.get(id)));
    return context ?? mechanism ?? 'other';
  };
  const micros = new Map();
  const unmatched = new Map();
  let total = 0;
  let samples = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const weight = Math.max(0, profile.timeDeltas[i]);
    t += weight;
    if (t < from || t > to) continue;
    const id = profile.samples[i];
    const stage = resolve(id);
    micros.set(stage, (micros.get(stage) ?? 0) + weight);
    if (stage === 'other') {
      // The sample's frame and its caller: enough to write the missing rule.
      const key = [id, parent.get(id)]
        .filter((x) => x !== undefined)
        .map((x) => nodes.get(x).callFrame)
        .map((f) => `${frameUrl(f.url)}:${f.functionName || '(anonymous)'}`)
        .join(' < ');
      unmatched.set(key, (unmatched.get(key) ?? 0) + weight);
    }
    total += weight;
    samples += 1;
  }
  return { micros, total, samples, unmatched };
}

/** µs per write per stage (and IDLE), from `attribute`'s result and the writes answered in its window. */
export function perWrite(attribution, writes) {
  const out = {};
  for (const s of [...STAGES.map((x) => x.id), IDLE]) out[s] = writes > 0 ? (attribution.micros.get(s) ?? 0) / writes : null;
  const busy = attribution.total - (attribution.micros.get(IDLE) ?? 0);
  return { stages: out, busy: writes > 0 ? busy / writes : null, wall: writes > 0 ? attribution.total / writes : null };
}

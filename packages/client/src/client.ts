import {
  ChainVerifier,
  approval as approvalSpecs,
  isErrorCode,
  isHold,
  limits,
  methods,
  pagedReadsByName,
  readSpecs,
  type ApprovalRef,
  type ErrorCode,
  type ErrorFrame,
  type EventRow,
  type Frame,
  type MethodKind,
  type MethodName,
  type ReadName,
} from '@finance-desk/protocol';
import { ApprovalDeniedError, ApprovalTimeoutError, ChainBrokenError, FinanceDeskError } from './errors.js';
import {
  DEFAULT_BACKOFF,
  DEFAULT_MAX_RETRIES,
  RETRY_AFTER_CEILING_MS,
  backoffMs,
  pause,
  realSleep,
  retryAfterMs,
  retryableAnswer,
  type Backoff,
} from './retry.js';
import type {
  ApprovalWaitView,
  DoneOf,
  GetOptions,
  MethodSurface,
  PagedName,
  PageItemOf,
  PageQueryOf,
  PaginateOptions,
  ParamsOf,
  PostOptions,
  QueryOf,
  ReadResultOf,
  ResultOf,
  WaitingInfo,
} from './types.js';

export interface ClientOptions {
  /** Where the server listens, e.g. `http://127.0.0.1:8080` (without `/api/v1`). */
  baseUrl: string;
  /** An API key (`Authorization: Bearer …`). */
  apiKey: string;
  /** Injectable fetch (an in-process caller passes one; tests use it to drop or alter answers). */
  fetch?: typeof fetch;
  /** Retries after the first try; default 4. */
  maxRetries?: number;
  /** Exponential backoff with jitter between retries. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Injectable sleep (tests). */
  sleep?: (ms: number) => Promise<void>;
  userAgent?: string;
}

/** Everything `callWithApproval` can be told. */
export interface ApprovalLoopOptions {
  /** Called once per wait round, before the long-poll: tell the user a human is being asked. */
  onWaiting?: (w: WaitingInfo) => void;
  /** Give up (ApprovalTimeoutError) when no human decided within this long; default 10 minutes. */
  maxWaitMs?: number;
  /** Length of one `approval.wait` long-poll round, at most 30 000 ms (the default). */
  pollMs?: number;
  signal?: AbortSignal;
}

const API_PREFIX = '/api/v1/';
const IDEMPOTENCY_HEADER = 'x-idempotency-key';
const REQUEST_ID_HEADER = 'x-request-id';
const DEFAULT_APPROVAL_WAIT_MS = 10 * 60_000;

/** Every declared method's kind, for the runtime half of the idempotency rule. */
const KIND_OF: ReadonlyMap<string, MethodKind> = new Map(methods.map((m) => [m.name, m.kind]));

/** Every declared method name split at its `.`: the typed surface's family and member. */
const SURFACE: readonly { readonly name: string; readonly family: string; readonly member: string }[] = methods.map((m) => {
  const dot = m.name.indexOf('.');
  return { name: m.name, family: m.name.slice(0, dot), member: m.name.slice(dot + 1) };
});

interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
}

function isErrorFrame(body: unknown): body is ErrorFrame {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as { ok?: unknown; error?: { code?: unknown; message?: unknown } };
  return (
    b.ok === false &&
    typeof b.error === 'object' &&
    b.error !== null &&
    typeof b.error.code === 'string' &&
    typeof b.error.message === 'string'
  );
}

function isFrame(body: unknown): body is Frame {
  if (isErrorFrame(body)) return true;
  return typeof body === 'object' && body !== null && (body as { ok?: unknown }).ok === true && 'result' in body;
}

/** The code an answer carries, as the retry rule reads it; unknown codes are INTERNAL (docs/protocol.md, section 6). */
function codeOf(body: unknown): ErrorCode | null {
  if (!isErrorFrame(body)) return null;
  return isErrorCode(body.error.code) ? body.error.code : 'INTERNAL';
}

function notAFrame(status: number): ErrorFrame {
  return {
    ok: false,
    error: { code: 'INTERNAL', message: `HTTP ${status}: the answer is not a Finance Desk frame` },
  };
}

function newIdempotencyKey(): string {
  return `fdc-${globalThis.crypto.randomUUID()}`;
}

/** The approval request's params: the hold's approval as it stands, without the hold-only `expiresInMs`. */
function requestParams(a: ApprovalRef): ParamsOf<typeof approvalSpecs.request.name> {
  return {
    actionClass: a.actionClass,
    payloadHash: a.payloadHash,
    subject: { kind: a.subject.kind, subjectId: a.subject.subjectId, summary: a.subject.summary },
  };
}

/**
 * The typed method surface (`fd.books.invoiceDraft(…)`), merged into the class's type; the
 * constructor builds it from the declarations.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- the merge gives the class the members its constructor builds
export interface FinanceDesk extends MethodSurface {}

/**
 * The Finance Desk client. Every POST of a write kind carries an idempotency key, kept across its
 * retries; retries follow docs/protocol.md §6 (RATE_LIMITED and 503 always, INTERNAL and network
 * errors only when repeating cannot do the act twice).
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class FinanceDesk {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetchFn: typeof fetch;
  private readonly maxRetries: number;
  private readonly backoff: Backoff;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly userAgent: string;

  constructor(opts: ClientOptions) {
    const base = new URL(opts.baseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError('baseUrl: must be an http(s) URL');
    this.baseUrl = base.toString().replace(/\/+$/, '');
    if (!opts.apiKey) throw new TypeError('apiKey: is required');
    this.apiKey = opts.apiKey;
    this.fetchFn = opts.fetch ?? globalThis.fetch.bind(globalThis);
    const maxRetries = opts.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 20)
      throw new TypeError('maxRetries: must be an integer from 0 to 20');
    this.maxRetries = maxRetries;
    const baseMs = opts.backoff?.baseMs ?? DEFAULT_BACKOFF.baseMs;
    const maxMs = opts.backoff?.maxMs ?? Math.max(DEFAULT_BACKOFF.maxMs, baseMs);
    if (!(baseMs >= 0 && maxMs >= baseMs)) throw new TypeError('backoff: need 0 <= baseMs <= maxMs');
    this.backoff = { baseMs, maxMs };
    this.sleep = opts.sleep ?? realSleep;
    this.userAgent = opts.userAgent ?? '@finance-desk/client';
    this.buildSurface();
  }

  /**
   * `this.<family>.<member>` for every declared method: a frozen object per family whose functions
   * are `call(name, params, opts)`, each `name`d by its wire name. A family that would shadow a
   * member of the client is a declaration error, refused here rather than silently hidden.
   */
  private buildSurface(): void {
    const families = new Map<string, Record<string, unknown>>();
    for (const { name, family, member } of SURFACE) {
      let target = families.get(family);
      if (!target) {
        if (family in this) throw new TypeError(`method family ${family} would shadow FinanceDesk.${family}`);
        target = {};
        families.set(family, target);
      }
      const fn = (params: unknown, opts?: PostOptions) => this.call(name as MethodName, params as never, opts);
      Object.defineProperty(fn, 'name', { value: name });
      target[member] = fn;
    }
    for (const [family, target] of families) {
      Object.defineProperty(this, family, { value: Object.freeze(target), enumerable: true });
    }
  }

  /** Low level, untyped: POST /api/v1/<method>. Never throws for a well-formed error frame. */
  async post(
    method: string,
    params: unknown,
    opts: PostOptions = {},
  ): Promise<{ status: number; frame: Frame; idempotencyKey: string | null; requestId: string | null }> {
    const { answer, idempotencyKey } = await this.postAnswer(method, params, opts);
    return {
      status: answer.status,
      frame: isFrame(answer.body) ? answer.body : notAFrame(answer.status),
      idempotencyKey,
      requestId: answer.headers.get(REQUEST_ID_HEADER),
    };
  }

  /** Low level, untyped: GET /api/v1/<name>?query. `body` is the parsed JSON (payload or error frame). */
  async get(
    name: string,
    query: Record<string, string | number | boolean | undefined> = {},
    opts: GetOptions = {},
  ): Promise<{ status: number; body: unknown; requestId: string | null }> {
    const answer = await this.getAnswer(name, query, opts.signal);
    return { status: answer.status, body: answer.body, requestId: answer.headers.get(REQUEST_ID_HEADER) };
  }

  /**
   * Typed: resolves to the result, or the HoldResult for a signature act that is held (use
   * isHold). Throws FinanceDeskError on an error frame. The type is the method's declared result,
   * which for a signature act that can be held already includes the hold shape; so a method that
   * is never held needs no isHold check to be used (its type is a subtype of `ResultOf<M> | HoldResult`).
   */
  async call<M extends MethodName>(method: M, params: ParamsOf<M>, opts: PostOptions = {}): Promise<ResultOf<M>> {
    const { answer } = await this.postAnswer(method, params, opts);
    const frame = isFrame(answer.body) ? answer.body : notAFrame(answer.status);
    if (frame.ok) return frame.result as ResultOf<M>;
    throw this.errorOf(frame, answer);
  }

  /** Typed GET read: the payload, or FinanceDeskError on an error frame. */
  async read<N extends ReadName>(name: N, query?: QueryOf<N>, opts: GetOptions = {}): Promise<ReadResultOf<N>> {
    const answer = await this.getAnswer(name, (query ?? {}) as Record<string, string | number | boolean | undefined>, opts.signal);
    if (answer.status === 200 && !isErrorFrame(answer.body) && answer.body !== undefined) return answer.body as ReadResultOf<N>;
    throw this.errorOf(isErrorFrame(answer.body) ? answer.body : notAFrame(answer.status), answer);
  }

  /**
   * The ledger, row by row, from `after` (a seq already held; 0 for the start), paging `events` and
   * verifying as it goes that each row links to the one before (protocol ChainVerifier). From
   * `after` > 0 give `anchor` (the verified head you hold) to check the first row's link as well;
   * without it the first row's prev_hash is taken as given. A break throws ChainBrokenError naming
   * the seq; rows before it have been yielded, the broken row is not.
   */
  async *events(
    opts: { after?: number; pageSize?: number; anchor?: { seq: number; rowHash: string }; signal?: AbortSignal } = {},
  ): AsyncIterable<EventRow> {
    const after = opts.after ?? opts.anchor?.seq ?? 0;
    if (!Number.isSafeInteger(after) || after < 0) throw new TypeError('after: must be a seq (an integer >= 0)');
    if (opts.anchor && opts.anchor.seq !== after) throw new TypeError('anchor: its seq must equal after');
    const limit = opts.pageSize ?? limits.eventsPageRowsDefault;
    if (!Number.isInteger(limit) || limit < 1 || limit > limits.eventsPageRowsMax) {
      throw new TypeError(`pageSize: must be an integer from 1 to ${limits.eventsPageRowsMax}`);
    }
    let verifier: ChainVerifier | null = opts.anchor ? new ChainVerifier(opts.anchor) : after === 0 ? new ChainVerifier() : null;
    let cursor = after;
    for (;;) {
      const page = (await this.read(readSpecs.events.name, { cursor, limit }, opts.signal ? { signal: opts.signal } : {})) as unknown;
      const rows = eventsOf(page);
      for (const row of rows) {
        verifier ??= new ChainVerifier({ seq: after, rowHash: row.prev_hash });
        if (!verifier.push(row)) {
          const verdict = verifier.verdict();
          if (!verdict.ok) throw new ChainBrokenError(verdict);
        }
        yield row;
      }
      const last = rows[rows.length - 1];
      if (rows.length < limit || last === undefined) return;
      if (last.seq <= cursor)
        throw new FinanceDeskError({ code: 'INTERNAL', message: `events: page after ${cursor} did not advance` }, 500, null);
      cursor = last.seq;
    }
  }

  /**
   * Every item of a cursor-paged list (`books.invoices`, `contacts.list`, … : protocol
   * `pagedReads`), one by one across pages, as its declaration types it. Follows `nextCursor`
   * until it is null, or until `opts.limit` items were yielded; the query's own `limit` is the page
   * size. A page whose nextCursor repeats one already followed throws (the walk would never end).
   */
  async *paginate<N extends PagedName>(
    name: N,
    query?: PageQueryOf<N>,
    opts: PaginateOptions = {},
  ): AsyncGenerator<PageItemOf<N>, void, undefined> {
    const spec = pagedReadsByName.get(name);
    if (!spec) throw new TypeError(`paginate: ${String(name)} is not a cursor-paged list`);
    const max = opts.limit;
    if (max !== undefined && (!Number.isSafeInteger(max) || max < 1)) throw new TypeError('limit: must be a positive integer');
    const signal = opts.signal ? { signal: opts.signal } : {};
    const base: Record<string, unknown> = { ...(query ?? {}) };
    delete base.cursor;
    const followed = new Set<string>();
    let cursor: string | undefined;
    let yielded = 0;
    for (;;) {
      const q = cursor === undefined ? base : { ...base, cursor };
      const page: unknown =
        spec.via === 'post' ? await this.call(name as MethodName, q, signal) : await this.read(name as ReadName, q, signal);
      const items = (page as Record<string, unknown> | null)?.[spec.itemsKey];
      if (!Array.isArray(items)) {
        throw new FinanceDeskError({ code: 'INTERNAL', message: `${spec.name}: the page has no ${spec.itemsKey} array` }, 500, null);
      }
      for (const item of items) {
        yield item as PageItemOf<N>;
        yielded += 1;
        if (max !== undefined && yielded >= max) return;
      }
      const next = (page as { nextCursor?: unknown }).nextCursor;
      if (next === null || next === undefined) return;
      if (typeof next !== 'string' || followed.has(next)) {
        throw new FinanceDeskError(
          { code: 'INTERNAL', message: `${spec.name}: the page after ${cursor ?? 'the start'} did not advance` },
          500,
          null,
        );
      }
      followed.add(next);
      cursor = next;
    }
  }

  /**
   * The whole approval loop: call → hold (or a GOVERNANCE_NOT_READY refusal that carries
   * `error.approval`) → `approval.request` → `approval.wait` until a human decides → the same call
   * again with the proof (`approvalId`) and a fresh idempotency key → the result. Throws
   * ApprovalDeniedError when the human rejects or the approval expires, ApprovalTimeoutError after
   * `maxWaitMs` without a decision.
   */
  async callWithApproval<M extends MethodName>(method: M, params: ParamsOf<M>, opts: ApprovalLoopOptions = {}): Promise<DoneOf<M>> {
    const started = Date.now();
    const maxWaitMs = opts.maxWaitMs ?? DEFAULT_APPROVAL_WAIT_MS;
    const pollMs = Math.min(Math.max(opts.pollMs ?? limits.approvalWaitMsMax, 1), limits.approvalWaitMsMax);
    const postOpts: PostOptions = opts.signal ? { signal: opts.signal } : {};
    let ref: ApprovalRef;
    try {
      const first = await this.call(method, params, postOpts);
      if (!isHold(first)) return first as DoneOf<M>;
      ref = first.approval;
    } catch (error) {
      if (error instanceof FinanceDeskError && error.code === 'GOVERNANCE_NOT_READY' && error.approval) ref = error.approval;
      else throw error;
    }
    const filed = await this.call(approvalSpecs.request.name, requestParams(ref), postOpts);
    if (isHold(filed))
      throw new FinanceDeskError({ code: 'INTERNAL', message: `${approvalSpecs.request.name} answered with a hold` }, 500, null);
    const { approvalId } = filed;
    for (let round = 1; ; round += 1) {
      const left = maxWaitMs - (Date.now() - started);
      if (left <= 0) throw new ApprovalTimeoutError(approvalId, maxWaitMs, null);
      opts.onWaiting?.({ approvalId, summary: filed.summary, expiresAt: filed.expiresAt, actionClass: ref.actionClass, round });
      const view = (await this.read(
        readSpecs.approvalWait.name,
        { approvalId, timeoutMs: Math.min(pollMs, left) },
        opts.signal ? { signal: opts.signal } : {},
      )) as ApprovalWaitView;
      if (view.status === 'approved') break;
      if (view.status === 'denied' || view.status === 'expired') {
        throw new ApprovalDeniedError(approvalId, view.status, view.reason, null);
      }
    }
    // A new request (the first key replays the hold): call() gives it a fresh idempotency key.
    const done = await this.call(method, { ...(params as object), approvalId } as ParamsOf<M>, postOpts);
    if (isHold(done)) {
      throw new FinanceDeskError(
        { code: 'GOVERNANCE_NOT_READY', message: `still held after approval ${approvalId}: ${done.message}`, approval: done.approval },
        423,
        null,
      );
    }
    return done as DoneOf<M>;
  }

  /** One GET with its retries (a read has no side effect: always idempotent). */
  private async getAnswer(
    name: string,
    query: Record<string, string | number | boolean | undefined>,
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) search.set(k, String(v));
    const qs = search.toString();
    // `org/whoami`-style names keep their slash; each part is encoded.
    const path = name.split('/').map(encodeURIComponent).join('/');
    return this.exchange(
      { method: 'GET', url: `${this.baseUrl}${API_PREFIX}${path}${qs ? `?${qs}` : ''}`, headers: this.headers() },
      true,
      signal,
    );
  }

  private headers(): Record<string, string> {
    return { authorization: `Bearer ${this.apiKey}`, accept: 'application/json', 'user-agent': this.userAgent };
  }

  /** One POST with its retries; the idempotency key is chosen once, before the first try. */
  private async postAnswer(method: string, params: unknown, opts: PostOptions): Promise<{ answer: Answer; idempotencyKey: string | null }> {
    const kind = KIND_OF.get(method);
    // A write kind (or a method this client does not know, which may be one) gets a key unless the
    // caller gave one or refused one with null. A read kind has no side effect to protect.
    const idempotencyKey = opts.idempotencyKey !== undefined ? opts.idempotencyKey : kind === 'read' ? null : newIdempotencyKey();
    const headers: Record<string, string> = { ...this.headers(), 'content-type': 'application/json' };
    if (idempotencyKey !== null) headers[IDEMPOTENCY_HEADER] = idempotencyKey;
    const answer = await this.exchange(
      { method: 'POST', url: `${this.baseUrl}${API_PREFIX}${encodeURIComponent(method)}`, headers, body: JSON.stringify({ params }) },
      kind === 'read' || idempotencyKey !== null,
      opts.signal,
    );
    return { answer, idempotencyKey };
  }

  /** Send, and retry as the rule says; the last answer (or network error) goes to the caller. */
  private async exchange(
    req: { method: 'GET' | 'POST'; url: string; headers: Record<string, string>; body?: string },
    idempotent: boolean,
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    for (let attempt = 0; ; attempt += 1) {
      let answer: Answer;
      try {
        const res = await this.fetchFn(req.url, {
          method: req.method,
          headers: req.headers,
          ...(req.body !== undefined ? { body: req.body } : {}),
          ...(signal ? { signal } : {}),
        });
        const text = await res.text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        answer = { status: res.status, body, headers: res.headers };
      } catch (error) {
        // A network error: the request may or may not have reached the server.
        if (signal?.aborted || !idempotent || attempt >= this.maxRetries) throw error;
        await pause(this.sleep, backoffMs(attempt, this.backoff), signal);
        continue;
      }
      const code = codeOf(answer.body);
      if (answer.status < 400 && code === null) return answer;
      if (attempt >= this.maxRetries || !retryableAnswer(answer.status, code, idempotent)) return answer;
      let delay = backoffMs(attempt, this.backoff);
      if (code === 'RATE_LIMITED' || answer.status === 429 || answer.status === 503) {
        const asked = retryAfterMs(answer.headers.get('retry-after'), isErrorFrame(answer.body) ? answer.body.error.message : undefined);
        if (asked !== undefined) {
          if (asked > RETRY_AFTER_CEILING_MS) return answer;
          // What the server asked, plus a little jitter so throttled clients spread out.
          delay = asked + Math.round(Math.random() * this.backoff.baseMs);
        }
      }
      await pause(this.sleep, delay, signal);
    }
  }

  private errorOf(frame: ErrorFrame, answer: Answer): FinanceDeskError {
    const asked = frame.error.code === 'RATE_LIMITED' ? retryAfterMs(answer.headers.get('retry-after'), frame.error.message) : undefined;
    return new FinanceDeskError(frame.error, answer.status, answer.headers.get(REQUEST_ID_HEADER), asked);
  }
}

const EVENT_FIELDS = ['seq', 'family', 'kind', 'entity_id', 'actor', 'at', 'prev_hash', 'row_hash'] as const;

/** The rows of an `events` page, refusing a page that is not one (rather than verifying garbage). */
function eventsOf(page: unknown): EventRow[] {
  const rows = (page as { events?: unknown } | null)?.events;
  if (!Array.isArray(rows)) throw new FinanceDeskError({ code: 'INTERNAL', message: 'events: the page has no events array' }, 500, null);
  for (const row of rows) {
    const ok =
      typeof row === 'object' &&
      row !== null &&
      'payload' in row &&
      EVENT_FIELDS.every((f) =>
        f === 'seq' ? Number.isSafeInteger((row as Record<string, unknown>)[f]) : typeof (row as Record<string, unknown>)[f] === 'string',
      );
    if (!ok) throw new FinanceDeskError({ code: 'INTERNAL', message: 'events: a row is not a ledger event' }, 500, null);
  }
  return rows as EventRow[];
}

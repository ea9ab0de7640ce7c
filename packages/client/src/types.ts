import type {
  EventRow,
  HoldResult,
  MethodName,
  MethodParams,
  MethodResult,
  PagedName,
  PageItemOf,
  PageOf,
  ReadName,
  ReadQuery,
  ReadQueryParsed,
  ReadResult,
} from '@finance-desk/protocol';

export type { EventRow, HoldResult, MethodName, PagedName, PageItemOf, PageOf, ReadName };

/** What `call(M, …)` takes: the input type of M's declared params schema. */
export type ParamsOf<M extends MethodName> = MethodParams<M>;
/** What `call(M, …)` resolves to on success: the output type of M's declared result schema. */
export type ResultOf<M extends MethodName> = MethodResult<M>;

/**
 * What a signature act answers once it is done: its result without the hold shape (a signature
 * method's declared result is "done or held"; `callWithApproval` only resolves with the former).
 */
export type DoneOf<M extends MethodName> = Exclude<ResultOf<M>, { readonly status: 'approval_required' }>;

/**
 * The query of read `N`. Query values travel as strings and the declarations parse them, so a
 * parameter the server reads as a number may be given as a number here.
 */
export type QueryOf<N extends ReadName> = {
  [K in keyof ReadQuery<N>]?: ReadQuery<N>[K] | (K extends keyof ReadQueryParsed<N> ? Loose<ReadQueryParsed<N>[K]> : never);
};
type Loose<T> = T extends number ? number : T extends boolean ? boolean : never;

/** What read `N` answers: its declared result, or `unknown` while the read declares none. */
export type ReadResultOf<N extends ReadName> = ReadResult<N>;

/** Given to `callWithApproval`'s `onWaiting` once per wait round: what the human is asked. */
export interface WaitingInfo {
  readonly approvalId: string;
  /** The server's own summary of the act, as the human sees it. */
  readonly summary: string;
  readonly expiresAt: string;
  readonly actionClass: string;
  /** 1 for the first round, then 2, 3, … */
  readonly round: number;
}

/** `approval.wait`'s answer (reads.ts approvalWait; server governance/approvals.ts waitView). */
export interface ApprovalWaitView {
  readonly approvalId: string;
  readonly status: 'pending' | 'approved' | 'denied' | 'expired';
  readonly decidedBy?: string;
  readonly decidedAt?: string;
  readonly signatureToken?: string;
  readonly reason?: string;
}

/** Options of a POST. `idempotencyKey: null` sends none (the call is then not retried after INTERNAL or a network error). */
export interface PostOptions {
  readonly idempotencyKey?: string | null;
  readonly signal?: AbortSignal;
}

export interface GetOptions {
  readonly signal?: AbortSignal;
}

/** The family of a method name: `books` of `books.invoiceDraft`. */
export type FamilyOf<N extends string> = N extends `${infer F}.${string}` ? F : never;
/** Every method family (`books`, `board`, `approval`). */
export type MethodFamily = FamilyOf<MethodName>;

/**
 * One method on the typed surface: `fd.books.invoiceDraft(params, opts?)` is `fd.call('books.invoiceDraft',
 * params, opts)`, and its `name` is the wire name (`fd.books.invoiceDraft.name === 'books.invoiceDraft'`),
 * for `callWithApproval` or a log line.
 */
export type SurfaceMethod<N extends MethodName> = ((params: ParamsOf<N>, opts?: PostOptions) => Promise<ResultOf<N>>) & {
  readonly name: N;
};

/**
 * Every declared method as `fd.<family>.<method>`, built from the declarations (no codegen): the
 * method names split at their `.`.
 */
export type MethodSurface = {
  readonly [F in MethodFamily]: { readonly [N in MethodName as N extends `${F}.${infer M}` ? M : never]: SurfaceMethod<N> };
};

/** The query of paged list `N` without its cursor (paginate moves the cursor itself). */
export type PageQueryOf<N extends PagedName> = Omit<N extends MethodName ? ParamsOf<N> : N extends ReadName ? QueryOf<N> : never, 'cursor'>;

/** Options of `paginate`. */
export interface PaginateOptions {
  /** Stop after this many items (a positive integer); default: every item, up to the last page. */
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

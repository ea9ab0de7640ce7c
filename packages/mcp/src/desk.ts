import type { FinanceDesk } from '@finance-desk/client';
import type { Frame } from '@finance-desk/protocol';

/**
 * What the MCP server needs of a Finance Desk client: exactly the shape of `@finance-desk/client`'s
 * `FinanceDesk.post`/`get`, so a FinanceDesk is a Desk. Kept as an interface here so the tool layer
 * can be driven by any transport to the API (a URL, or `app.inject` inside the server).
 */
export interface DeskCallOptions {
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

export interface DeskPostResult {
  readonly status: number;
  readonly frame: Frame;
  readonly idempotencyKey: string | null;
  readonly requestId: string | null;
}

export interface DeskGetResult {
  readonly status: number;
  readonly body: unknown;
  readonly requestId: string | null;
}

export type DeskQuery = Record<string, string | number | boolean | undefined>;

export interface Desk {
  /** A POST method; resolves with the frame even when it is an error frame (never throws on one). */
  post(method: string, params: unknown, opts?: DeskCallOptions): Promise<DeskPostResult>;
  /** A GET read; `body` is the read's payload, or the error frame when status is 4xx/5xx. */
  get(name: string, query?: DeskQuery, opts?: DeskCallOptions): Promise<DeskGetResult>;
}

/** The typed client is a Desk: checked here so a change to either side fails the build. */
export type FinanceDeskIsADesk = FinanceDesk extends Desk ? true : never;
const _check: FinanceDeskIsADesk = true;
void _check;

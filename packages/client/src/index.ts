/** @finance-desk/client: a typed client for Finance Desk, typed from the protocol declarations. */
export { FinanceDesk, type ApprovalLoopOptions, type ClientOptions } from './client.js';
export { ApprovalDeniedError, ApprovalTimeoutError, ChainBrokenError, FinanceDeskError } from './errors.js';
export { backoffMs, retryAfterMs } from './retry.js';
export type {
  ApprovalWaitView,
  DoneOf,
  EventRow,
  GetOptions,
  HoldResult,
  MethodFamily,
  MethodName,
  MethodSurface,
  PagedName,
  PageItemOf,
  PageOf,
  PageQueryOf,
  PaginateOptions,
  ParamsOf,
  PostOptions,
  QueryOf,
  ReadName,
  ReadResultOf,
  ResultOf,
  SurfaceMethod,
  WaitingInfo,
} from './types.js';
export { isHold, type ApprovalRef, type ErrorCode, type Frame } from '@finance-desk/protocol';

/** @finance-desk/client: a typed client for Finance Desk, typed from the protocol declarations (issue 11 item 4). */
export { FinanceDesk, type ApprovalLoopOptions, type ClientOptions } from './client.js';
export { ApprovalDeniedError, ApprovalTimeoutError, ChainBrokenError, FinanceDeskError } from './errors.js';
export { backoffMs, retryAfterMs } from './retry.js';
export type {
  ApprovalWaitView,
  DoneOf,
  EventRow,
  GetOptions,
  HoldResult,
  MethodName,
  ParamsOf,
  PostOptions,
  QueryOf,
  ReadName,
  ReadResultOf,
  ResultOf,
  WaitingInfo,
} from './types.js';
export { isHold, type ApprovalRef, type ErrorCode, type Frame } from '@finance-desk/protocol';

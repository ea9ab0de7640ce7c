import type { MethodSpec, ReadSpec } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { Principal } from './principal.js';
import type { RawJson } from './raw-json.js';
import type { Database } from './storage/types.js';
import type { SignatureHandler } from './governance/signature.js';
import type { DeclaredResult, ResultOf, Uow, WriteResult } from './write-path.js';

/**
 * How a declared method (protocol/methods) is bound to its handler, once. Write-kind methods run
 * through the one write path with a unit of work; read-kind POST methods (books reads)
 * run against committed data with no event.
 */
export interface ReadContext {
  readonly db: Database;
  readonly principal: Principal;
  /**
   * Aborted when the caller goes away or the server starts to shut down: a long-poll
   * (approval.wait) answers at once instead of holding the connection and the shutdown open.
   */
  readonly signal?: AbortSignal;
}

export type MethodBinding =
  | {
      readonly spec: MethodSpec;
      readonly write: (params: unknown, uow: Uow, prepared?: unknown) => Promise<WriteResult>;
      /**
       * Work done before the transaction, against committed data, with nothing locked (books.ask
       * computes its answer, possibly calling a model, here). Its value is
       * handed to `write`, which records the act. An idempotent replay is found before it runs.
       */
      readonly prepare?: (params: unknown, ctx: ReadContext) => Promise<unknown>;
      readonly read?: undefined;
    }
  | {
      readonly spec: MethodSpec;
      readonly read: (params: unknown, ctx: ReadContext) => Promise<unknown>;
      readonly write?: undefined;
      readonly prepare?: undefined;
    };

export function bind<S extends MethodSpec>(
  spec: S,
  handler: (params: z.infer<S['params']>, uow: Uow) => Promise<ResultOf<S>>,
): MethodBinding {
  if (spec.kind === 'read') throw new Error(`${spec.name} is a read; bind it with bindRead`);
  if (spec.kind === 'signature') throw new Error(`${spec.name} is a signature act; bind it with bindSignature`);
  return { spec, write: handler as (params: unknown, uow: Uow) => Promise<WriteResult> };
}

/**
 * A signature act (one that never completes without a human's approval), bound from the engine's
 * handler (governance/signature.ts): its declaration travels with it, so the name, kind and action
 * class are the declaration's and a signature act cannot be bound as an ordinary write, nor an
 * ordinary write as a signature act.
 */
export function bindSignature(handler: SignatureHandler): MethodBinding {
  if (handler.spec.kind !== 'signature') throw new Error(`${handler.spec.name} is not declared as a signature act`);
  return { spec: handler.spec, write: handler.run as (params: unknown, uow: Uow) => Promise<WriteResult> };
}

/**
 * A new act whose deciding work runs outside the transaction (`prepare`, e.g. a model call, so the
 * organisation's write lock is never held while waiting on it), then is recorded by `record`
 * through the one write path with its one event.
 */
export function bindPrepared<S extends MethodSpec, T>(
  spec: S,
  prepare: (params: z.infer<S['params']>, ctx: ReadContext) => Promise<T>,
  record: (params: z.infer<S['params']>, uow: Uow, prepared: T) => Promise<ResultOf<S>>,
): MethodBinding {
  if (spec.kind !== 'new-act') throw new Error(`${spec.name}: only a new act is prepared outside its transaction`);
  return {
    spec,
    prepare: prepare as (params: unknown, ctx: ReadContext) => Promise<unknown>,
    write: record as (params: unknown, uow: Uow, prepared?: unknown) => Promise<WriteResult>,
  };
}

export function bindQuery<S extends MethodSpec>(
  spec: S,
  handler: (params: z.infer<S['params']>, ctx: ReadContext) => Promise<DeclaredResult<S>>,
): MethodBinding {
  if (spec.kind !== 'read') throw new Error(`${spec.name} is not a read`);
  return { spec, read: handler as (params: unknown, ctx: ReadContext) => Promise<unknown> };
}

/** GET reads: a payload object, or `RawJson` to pass stored text byte for byte. */
export interface ReadBinding {
  readonly spec: ReadSpec;
  readonly run: (query: unknown, ctx: ReadContext) => Promise<unknown>;
}

/**
 * The handler must return its declaration's result, so a handler of the wrong
 * shape does not compile; `RawJson` (stored text passed byte for byte) is checked by the tests.
 */
export function bindRead<S extends ReadSpec>(
  spec: S,
  run: (query: z.infer<S['query']>, ctx: ReadContext) => Promise<DeclaredResult<S> | RawJson>,
): ReadBinding {
  return { spec, run: run as ReadBinding['run'] };
}

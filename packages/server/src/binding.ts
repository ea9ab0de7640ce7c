import type { MethodSpec, ReadSpec } from '@finance-desk/protocol';
import type { z } from 'zod';
import type { Principal } from './principal.js';
import type { Database } from './storage/types.js';
import type { Uow, WriteResult } from './write-path.js';

/**
 * How a declared method (protocol/methods) is bound to its handler, once. Write-kind methods run
 * through the one write path with a unit of work; read-kind POST methods (books reads, seed §4.1)
 * run against committed data with no event.
 */
export interface ReadContext {
  readonly db: Database;
  readonly principal: Principal;
}

export type MethodBinding =
  | { readonly spec: MethodSpec; readonly write: (params: unknown, uow: Uow) => Promise<WriteResult>; readonly read?: undefined }
  | { readonly spec: MethodSpec; readonly read: (params: unknown, ctx: ReadContext) => Promise<unknown>; readonly write?: undefined };

export function bind<S extends MethodSpec>(
  spec: S,
  handler: (params: z.infer<S['params']>, uow: Uow) => Promise<WriteResult>,
): MethodBinding {
  if (spec.kind === 'read') throw new Error(`${spec.name} is a read; bind it with bindRead`);
  return { spec, write: handler as (params: unknown, uow: Uow) => Promise<WriteResult> };
}

export function bindQuery<S extends MethodSpec>(
  spec: S,
  handler: (params: z.infer<S['params']>, ctx: ReadContext) => Promise<unknown>,
): MethodBinding {
  if (spec.kind !== 'read') throw new Error(`${spec.name} is not a read`);
  return { spec, read: handler as (params: unknown, ctx: ReadContext) => Promise<unknown> };
}

/** GET reads (seed §4.2): a payload object, or `RawJson` to pass stored text byte for byte. */
export interface ReadBinding {
  readonly spec: ReadSpec;
  readonly run: (query: unknown, ctx: ReadContext) => Promise<unknown>;
}

export function bindRead<S extends ReadSpec>(
  spec: S,
  run: (query: z.infer<S['query']>, ctx: ReadContext) => Promise<unknown>,
): ReadBinding {
  return { spec, run: run as ReadBinding['run'] };
}

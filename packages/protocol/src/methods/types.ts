import type { z } from 'zod';
import type { Scope } from '../scopes.js';

/**
 * How a method behaves on the write path (one declaration per method):
 * - read: no side effect, no event;
 * - write: one event; idempotent by state (the same call on a row already in its target state is a
 *   no-op answering that state);
 * - new-act: one event every run;
 * - signature: a signature act: held until a human approves it.
 */
export type MethodKind = 'read' | 'write' | 'new-act' | 'signature';

/**
 * `N` and `K` keep a declaration's name and kind as literal types, so that a typed client can index
 * params and results by method name straight from the declarations (no codegen).
 */
export interface MethodSpec<
  P extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
  N extends string = string,
  K extends MethodKind = MethodKind,
> {
  readonly name: N;
  readonly scope: Scope;
  readonly kind: K;
  /**
   * What the same call made a second time (with a new idempotency key) does, when it is not the
   * no-op a `write` promises: `'creates'` = it makes a second document or record (a second invoice,
   * bill, claim, employee…). Set only on `kind: 'write'` methods; MCP then says the tool is not
   * idempotent, and a retry must reuse the first call's idempotency key to stay one act.
   */
  readonly repeat?: 'creates';
  readonly summary: string;
  /**
   * What a model reads as the MCP tool's description: one short paragraph (at most 600
   * characters) saying what the call does and what it needs, for a reader who has never seen
   * this repository. `summary` stays the full contract (OpenAPI, docs/methods.md).
   */
  readonly brief?: string;
  readonly params: P;
  readonly result: R;
  /** Signature acts: the action class a human approves. */
  readonly actionClass?: string;
  /**
   * Params this service adds to a method of the core contract (extensions are documented as
   * such): docs/methods.md lists them per method, and a test checks each is a declared param.
   */
  readonly extendedParams?: readonly string[];
  /**
   * The call may reach past the books: an email to a customer or a person, a lodgement with the
   * ATO, a file for a bank or a super fund, a question to a model provider. MCP hosts are told so
   * (openWorldHint); every other method acts on the books alone.
   */
  readonly reachesOut?: true;
}

/**
 * A GET read: query schema, the scope it needs (org.read for all) and the payload it answers
 * (handlers are typed by it, and the tests check every answer by it).
 */
export interface ReadSpec<Q extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly scope: Scope;
  readonly summary: string;
  /** As MethodSpec.brief: the MCP tool's description. */
  readonly brief?: string;
  readonly query: Q;
  readonly result: R;
}

export function method<P extends z.ZodType, R extends z.ZodType, N extends string, K extends MethodKind>(
  spec: MethodSpec<P, R, N, K>,
): MethodSpec<P, R, N, K> {
  return spec;
}

/** Returns the declaration as written (its literal name included), checked against ReadSpec. */
export function read<const S extends ReadSpec>(spec: S): S {
  return spec;
}

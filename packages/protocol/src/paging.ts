import { z } from 'zod';
import {
  methods,
  reads,
  type MethodName,
  type MethodParams,
  type MethodResult,
  type ReadName,
  type ReadQuery,
  type ReadResult,
} from './methods/index.js';

/**
 * The cursor-paged lists of the contract, found from the declarations (nothing here names one by
 * hand): a POST read method or a GET read whose params take `cursor` and whose result carries
 * `nextCursor` (a string, null at the end) beside exactly one array, the page's items. `events`
 * pages by an integer seq instead and has its own verifying iterator in the client.
 */
export interface PagedSpec {
  readonly name: string;
  /** `post` for a method (`books.invoices`), `get` for a read (`contacts.list`). */
  readonly via: 'post' | 'get';
  /** The result's array of items (`invoices`, `contacts`, …). */
  readonly itemsKey: string;
}

/** The object shape of a schema (through a pipe's input or output side), or undefined. */
function shapeOf(schema: z.ZodType, side: 'in' | 'out'): Record<string, z.ZodType> | undefined {
  if (schema instanceof z.ZodObject) return schema.shape;
  if (schema instanceof z.ZodPipe) return shapeOf((side === 'in' ? schema.in : schema.out) as z.ZodType, side);
  return undefined;
}

function pagedOf(name: string, via: PagedSpec['via'], params: z.ZodType, result: z.ZodType): PagedSpec | undefined {
  const input = shapeOf(params, 'in');
  const output = shapeOf(result, 'out');
  if (!input || !output || !('cursor' in input)) return undefined;
  const next = output.nextCursor;
  if (!(next instanceof z.ZodNullable) || !(next.unwrap() instanceof z.ZodString)) return undefined;
  const arrays = Object.keys(output).filter((k) => output[k] instanceof z.ZodArray);
  const [itemsKey, ...more] = arrays;
  if (itemsKey === undefined || more.length > 0) return undefined;
  return { name, via, itemsKey };
}

/** Every cursor-paged list, methods first, each in declaration order. */
export const pagedReads: readonly PagedSpec[] = [
  ...methods.map((m) => (m.kind === 'read' ? pagedOf(m.name, 'post', m.params, m.result) : undefined)),
  ...reads.map((r) => pagedOf(r.name, 'get', r.query, r.result)),
].filter((p): p is PagedSpec => p !== undefined);

/** The same, keyed by name. */
export const pagedReadsByName: ReadonlyMap<string, PagedSpec> = new Map(pagedReads.map((p) => [p.name, p]));

/** The key of `R`'s one array property. */
export type ItemsKeyOf<R> = { [K in keyof R]-?: R[K] extends readonly unknown[] ? K : never }[keyof R];

type Paged<P, R, N> = 'cursor' extends keyof P ? (R extends { readonly nextCursor: string | null } ? N : never) : never;

/** A POST read method that pages by cursor (`books.invoices`, `books.journals`, …). */
export type PagedMethodName = { [N in MethodName]: Paged<MethodParams<N>, MethodResult<N>, N> }[MethodName];
/** A GET read that pages by cursor (`contacts.list`, `decision.list`, …). */
export type PagedReadName = { [N in ReadName]: Paged<ReadQuery<N>, ReadResult<N>, N> }[ReadName];
/** Any cursor-paged list, as `pagedReads` lists them at run time. */
export type PagedName = PagedMethodName | PagedReadName;
/** One page of list `N`, as the server answers it. */
export type PageOf<N extends PagedName> = N extends MethodName ? MethodResult<N> : N extends ReadName ? ReadResult<N> : never;
/** One item of list `N`. */
export type PageItemOf<N extends PagedName> = PageOf<N>[ItemsKeyOf<PageOf<N>>] extends readonly (infer I)[] ? I : never;

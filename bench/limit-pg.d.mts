/** Types for limit-pg.mjs (the bench-limit test imports it from TypeScript). */
import type { LimitServer } from './limit.mjs';

export const ORG: string;
export const SCHEMA: string;

export function start(options: {
  url: string;
  schema?: string;
  port?: number;
  host?: string;
}): Promise<LimitServer & { commits(): number }>;

/** `client`: a connected pg client whose search_path finds the limit's tables. */
export function checkChain(
  client: { query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> },
  acknowledged: number,
  slack?: number,
): Promise<string[]>;

export function checkChainAt(url: string, acknowledged: number, slack?: number): Promise<string[]>;

/** Types for naive.mjs (the bench-naive test imports it from TypeScript). */
import type pg from 'pg';

export const SCHEMA: string;

export function appendUnit(client: pg.ClientBase, org: string, i: number): Promise<void>;

export function checkChains(client: pg.ClientBase, orgs: readonly string[], committed: ReadonlyMap<string, number>): Promise<string[]>;

export interface NaivePhase {
  orgs: number;
  clients: number;
  units: number;
  unitsPerSec: number;
  p50: number | null;
  p99: number | null;
  errors: number;
  firstError: string | null;
  events: number;
  problems: string[];
  ok: boolean;
}

export function naiveBench(options: {
  pg: typeof pg;
  adminUrl: string;
  orgCounts: readonly number[];
  clients: number;
  seconds: number;
  warmupSeconds: number;
  onCleanup?: Set<() => Promise<unknown>>;
  log: (...args: string[]) => void;
}): Promise<{ database: string; phases: NaivePhase[] }>;

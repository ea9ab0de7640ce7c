/** Types for profile.mjs (the bench-profile test imports it from TypeScript). */
export interface CallFrame {
  functionName: string;
  url: string;
  scriptId?: string;
  lineNumber?: number;
  columnNumber?: number;
}

export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Stage {
  id: string;
  label: string;
  why: string;
}

export const STAGES: readonly Stage[];
export const IDLE: string;
export const RULES: readonly { stage: string; url: RegExp; fn: RegExp | null; selfOnly: boolean; mechanism: boolean }[];

export function frameUrl(url: string): string;

export interface Attribution {
  micros: Map<string, number>;
  total: number;
  samples: number;
  unmatched: Map<string, number>;
}

export function attribute(profile: CpuProfile, window?: { from?: number; to?: number }): Attribution;

export function perWrite(
  attribution: Attribution,
  writes: number,
): { stages: Record<string, number | null>; busy: number | null; wall: number | null };

/**
 * The Australian financial year, 1 July to 30 June, as STP reports it: by its first and last days
 * in documents, and by the ATO's label `2025-26` in params, results and stp_submissions.
 */
export interface FinancialYear {
  readonly start: string;
  readonly end: string;
}

/** The financial year holding `date`. */
export function financialYear(date: string): FinancialYear {
  const y = Number(date.slice(0, 4));
  const startYear = Number(date.slice(5, 7)) >= 7 ? y : y - 1;
  return { start: `${startYear}-07-01`, end: `${startYear + 1}-06-30` };
}

/** `2025-26` for 1 July 2025 to 30 June 2026. */
export function financialYearLabel(fy: FinancialYear): string {
  const y = Number(fy.start.slice(0, 4));
  return `${y}-${String((y + 1) % 100).padStart(2, '0')}`;
}

/** The year a label (already validated: two consecutive years) names. */
export function financialYearNamed(label: string): FinancialYear {
  const y = Number(label.slice(0, 4));
  return { start: `${y}-07-01`, end: `${y + 1}-06-30` };
}

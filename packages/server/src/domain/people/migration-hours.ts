import type { Migration } from '../../storage/migration-types.js';

/**
 * An employee's ordinary hours a week to the hundredth, migration 45 (22.8 for three 7.6-hour
 * days). The whole-hour column is renamed to say its new unit, milli-hours (the unit pay run lines,
 * leave requests and the leave ledger keep), and scaled by 1000, as migration 43 did for those:
 * a reader still expecting whole hours fails loudly instead of reading a thousand times too much.
 * Dated changes keep their terms as JSON, where hours are already a decimal number.
 */
export const migration: Migration = {
  id: 45,
  name: 'people: hours per week to the hundredth',
  statements: [
    'ALTER TABLE employees RENAME COLUMN hours_per_week TO milli_hours_per_week',
    'UPDATE employees SET milli_hours_per_week = milli_hours_per_week * 1000',
  ],
};

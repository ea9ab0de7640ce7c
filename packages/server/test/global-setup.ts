/** Once per test run (vitest.config.ts globalSetup): the migrated template databases (db-templates.ts). */
import type { TestProject } from 'vitest/node';
import { buildTemplates } from './db-templates.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { templates, remove } = await buildTemplates(process.env.TEST_DATABASE_URL);
  project.provide('dbTemplates', templates);
  return remove;
}

#!/usr/bin/env node
// Writes docs/artifacts/<file> (methods.json, openapi.json, events.json) from the protocol declarations, the
// same text the server serves at GET /api/v1/artifacts/<file>. Run: `npm run artifacts` (after a
// build); packages/server/test/artifacts.test.ts fails when the committed copies drift.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderArtifacts } from '@finance-desk/protocol';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'artifacts');
mkdirSync(dir, { recursive: true });
for (const a of renderArtifacts()) {
  writeFileSync(join(dir, a.file), a.text);
  console.log(`docs/artifacts/${a.file}  ${Buffer.byteLength(a.text)} bytes  sha256 ${a.sha256}`);
}

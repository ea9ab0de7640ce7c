#!/usr/bin/env node
import { stdioCommandMain } from './command.js';

/** `finance-desk-mcp` (`npx -y @finance-desk/mcp`): Finance Desk as an MCP server over stdio; see command.ts. */
try {
  process.exitCode = await stdioCommandMain(process.argv.slice(2));
} catch (error) {
  // Never stdout: it carries only MCP messages.
  process.stderr.write(`finance-desk-mcp: ${(error instanceof Error ? error.message : String(error)).split('\n', 1)[0]}\n`);
  process.exitCode = 1;
}

/**
 * Finance Desk as an MCP server. Transports: stdio (this package's bin `finance-desk-mcp`, also the
 * server CLI's `finance-desk mcp`) and Streamable HTTP (`handleMcpHttp`, served by the API at /mcp).
 */
export {
  createMcpServer,
  isArtifactRead,
  parseToolsets,
  toolCatalogue,
  toolsetCatalogue,
  TOOLSETS,
  type McpServerOptions,
} from './server.js';
export type { Desk, DeskCallOptions, DeskGetResult, DeskPostResult, DeskQuery } from './desk.js';
export { toolName, TOOL_NAME } from './names.js';
export { APPROVAL_REQUEST_TOOL, APPROVAL_WAIT_TOOL, HINT_DEFAULTS, INSTRUCTIONS } from './describe.js';
export { IDEMPOTENCY_KEY_ARG } from './schemas.js';
export type { NextStep, ToolResult } from './results.js';
export { BATCH_REFUSED, handleMcpHttp, MCP_MESSAGE_BYTES_MAX, serveStdio, type McpHttpOptions } from './transports.js';
export {
  MCP_ENV,
  McpCommandError,
  packageVersion,
  runStdioCommand,
  STDIO_USAGE,
  stdioCommandConfig,
  stdioCommandMain,
  type StdioCommandConfig,
} from './command.js';

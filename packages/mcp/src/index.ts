/** Finance Desk as an MCP server (issue 11 item 5). Transports live with their hosts: stdio in the CLI, Streamable HTTP in the server. */
export { createMcpServer, toolCatalogue, type McpServerOptions } from './server.js';
export type { Desk, DeskCallOptions, DeskGetResult, DeskPostResult, DeskQuery } from './desk.js';
export { toolName, TOOL_NAME } from './names.js';
export { APPROVAL_REQUEST_TOOL, APPROVAL_WAIT_TOOL } from './describe.js';
export type { NextStep, ToolResult } from './results.js';
export { BATCH_REFUSED, handleMcpHttp, MCP_MESSAGE_BYTES_MAX, serveStdio, type McpHttpOptions } from './transports.js';

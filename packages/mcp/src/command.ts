import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FinanceDesk } from '@finance-desk/client';
import { parseToolsets } from './server.js';
import { serveStdio } from './transports.js';

/**
 * The stdio command an agent host runs: `npx -y @finance-desk/mcp` (this package's bin,
 * `finance-desk-mcp`) and the server CLI's `finance-desk mcp` share it. It reads where the API is
 * and which key to use from the environment, refuses to start (exit 2, the reason on stderr naming
 * the variable) when either is missing or malformed, and otherwise serves MCP on stdin/stdout
 * until the host closes stdin. stdout carries only MCP messages.
 */

/** The environment variables the command reads. */
export const MCP_ENV = {
  url: 'FINANCE_DESK_URL',
  apiKey: 'FINANCE_DESK_API_KEY',
  toolsets: 'FINANCE_DESK_TOOLSETS',
} as const;

/** Bounds on what the environment may hold (a URL or key far longer is a mistake, not a setting). */
const URL_CHARS_MAX = 2048;
const API_KEY_CHARS_MAX = 1024;
const TOOLSETS_CHARS_MAX = 1024;

/** A refusal to start: the message names the variable or argument at fault. Exit code 2. */
export class McpCommandError extends Error {
  override readonly name = 'McpCommandError';
}

export interface StdioCommandConfig {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The toolsets to load (empty: every toolset but the opt-in setup one). */
  readonly toolsets: readonly string[];
}

/**
 * Reads and checks the command's environment and flags; throws McpCommandError naming the
 * variable or flag. `flags.toolsets` (`--toolsets a,b`) wins over FINANCE_DESK_TOOLSETS.
 */
export function stdioCommandConfig(
  env: Readonly<Record<string, string | undefined>>,
  flags: { toolsets?: string } = {},
): StdioCommandConfig {
  const baseUrl = env[MCP_ENV.url]?.trim();
  const apiKey = env[MCP_ENV.apiKey]?.trim();
  if (!baseUrl) throw new McpCommandError(`${MCP_ENV.url}: set it to the server, e.g. http://127.0.0.1:8080`);
  if (!apiKey) throw new McpCommandError(`${MCP_ENV.apiKey}: set it to an API key of the organisation`);
  if (baseUrl.length > URL_CHARS_MAX || !URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new McpCommandError(`${MCP_ENV.url}: must be an http(s) URL, e.g. http://127.0.0.1:8080`);
  }
  if (apiKey.length > API_KEY_CHARS_MAX || !/^[\x21-\x7e]+$/.test(apiKey)) {
    // The key itself is never echoed: it is a secret, and this line may end up in a host's log.
    throw new McpCommandError(`${MCP_ENV.apiKey}: must be one API key (printable characters, no spaces, at most ${API_KEY_CHARS_MAX})`);
  }
  const [source, text] = flags.toolsets !== undefined ? ['--toolsets', flags.toolsets] : [MCP_ENV.toolsets, env[MCP_ENV.toolsets] ?? ''];
  if (text.length > TOOLSETS_CHARS_MAX) throw new McpCommandError(`${source}: at most ${TOOLSETS_CHARS_MAX} characters`);
  let toolsets: string[];
  try {
    toolsets = parseToolsets(text);
  } catch (error) {
    throw new McpCommandError(`${source}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { baseUrl, apiKey, toolsets };
}

/** This package's version, from its package.json (dist/ and src/ both sit one level below it). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}

/**
 * Serve MCP over stdio against the configured API until the host closes stdin. The client
 * identifies itself as this command in its User-Agent, so the server's logs tell MCP traffic apart.
 */
export async function runStdioCommand(
  config: StdioCommandConfig,
  io: { stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream } = {},
): Promise<void> {
  const desk = new FinanceDesk({ baseUrl: config.baseUrl, apiKey: config.apiKey, userAgent: `finance-desk-mcp/${packageVersion()}` });
  await serveStdio(desk, io, { toolsets: config.toolsets });
}

const BIN = 'finance-desk-mcp';

export const STDIO_USAGE = `usage: ${BIN} [--toolsets a,b] [--help] [--version]

Serves Finance Desk as an MCP server over stdio (stdout carries only MCP messages), calling the
API with one organisation's key. Add it to an MCP host as:
  { "command": "npx", "args": ["-y", "@finance-desk/mcp"],
    "env": { "${MCP_ENV.url}": "http://127.0.0.1:8080", "${MCP_ENV.apiKey}": "fdk_..." } }

environment:
  ${MCP_ENV.url}      the server, e.g. http://127.0.0.1:8080 (required)
  ${MCP_ENV.apiKey}  an API key of the organisation: agent to act, reader/observer to only read (required)
  ${MCP_ENV.toolsets} load only these toolsets, comma-separated (e.g. receivables,payables, or all;
                        default every toolset but setup: the chart, opening balances, budgets and
                        tracking; the approval tools are always loaded). --toolsets a,b overrides it.

exit: 0 the host closed stdin, 2 usage or a missing/invalid variable (the reason on stderr)
`;

/** The bin's whole behaviour, injectable for tests; answers the exit code. */
export async function stdioCommandMain(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  io: { stdout?: NodeJS.WritableStream; stderr?: NodeJS.WritableStream; stdin?: NodeJS.ReadableStream } = {},
): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  let values: { help?: boolean; version?: boolean; toolsets?: string };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' }, toolsets: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    stderr.write(`${BIN}: ${(error instanceof Error ? error.message : String(error)).split('\n', 1)[0]}\n${STDIO_USAGE}`);
    return 2;
  }
  if (values.help) {
    stdout.write(STDIO_USAGE);
    return 0;
  }
  if (values.version) {
    stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  let config: StdioCommandConfig;
  try {
    config = stdioCommandConfig(env, values.toolsets !== undefined ? { toolsets: values.toolsets } : {});
  } catch (error) {
    if (!(error instanceof McpCommandError)) throw error;
    stderr.write(`${BIN}: ${error.message}\n`);
    return 2;
  }
  await runStdioCommand(config, { ...(io.stdin ? { stdin: io.stdin } : {}), ...(io.stdout ? { stdout: io.stdout } : {}) });
  return 0;
}

/**
 * `switchboard-kit/mcp`: the Model Context Protocol endpoint (Streamable HTTP, stateless) whose tools
 * are derived from every declared resource, for AI agents (docs/mcp.md).
 *
 * @example
 * import { createMcpHandler } from 'switchboard-kit/mcp';
 * const mcp = createMcpHandler(runtime, { domain, authenticate });
 *
 * @packageDocumentation
 */
export {
  createMcpHandler,
  MCP_PROTOCOL_VERSIONS,
  type McpConfig,
  type McpHandler,
  type McpHandlerOptions,
} from './handler.js';
export type { McpOriginPolicy } from './origin.js';
export type { McpTool, McpToolAnnotations, McpToolOptions } from './tools.js';

#!/usr/bin/env node
// tm-mcp: the Text-Memory MCP server on stdio. stdout carries the protocol alone; messages go to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { TextMemory, TextMemoryError } from '@text-memory/sdk';
import { type Config, ConfigError, loadConfig } from './config.js';
import { createServer } from './server.js';

let config: Config;
let tm: TextMemory;
try {
  config = loadConfig(process.env);
  // The SDK refuses a credential it cannot send; its message names the option, never the value.
  tm = new TextMemory({ baseUrl: config.baseUrl, apiKey: config.apiKey });
} catch (error) {
  if (!(error instanceof ConfigError || error instanceof TextMemoryError)) throw error;
  process.stderr.write(`tm-mcp: cannot start.\n${error.message}\n`);
  // 2: a usage error, told apart from a crash (1).
  process.exit(2);
}

const server = createServer(tm, {
  defaultNamespace: config.defaultNamespace,
  namespaceHint: 'start the server with TM_NAMESPACE set to a default namespace',
});
await server.connect(new StdioServerTransport());

const stop = () => {
  void server.close().finally(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// The client went away: nothing can reach us any more.
process.stdin.on('end', stop);

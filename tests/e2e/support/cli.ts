import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The built CLI, run as a user runs it: a separate process talking HTTP to the file's stack. Async
 * spawn only: the stack lives in the test process, so a spawnSync would block the gateway it calls.
 */
export const repo = join(import.meta.dirname, '..', '..', '..');
export const CLI_BIN = join(repo, 'libs', 'clients', 'cli', 'dist', 'bin.js');

/** Variables the CLI reads a credential or a target from: never inherited from the test's environment. */
const CLI_VARIABLES = [
  'TM_API_KEY',
  'TM_SESSION_TOKEN',
  'TM_OPERATOR_TOKEN',
  'TM_HUB_TOKEN',
  'TM_BASE_URL',
  'TM_CONFIG',
];

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a command with its own config file and no credential from the parent's environment. */
export function runCommand(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; input?: string; cwd?: string } = {},
): Promise<Run> {
  const env = { ...process.env };
  for (const name of CLI_VARIABLES) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? repo,
      env: { ...env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Users of the built CLI against a stack: each call is a user's shell, a temp folder holding the config
 * file, with `tm` pointed at `baseUrl()` (read per run: the stack's URL is known once `beforeAll` ran).
 */
export function cliUsers(baseUrl: () => string) {
  return () => {
    const home = mkdtempSync(join(tmpdir(), 'tm-cli-'));
    const config = join(home, 'config', 'config.json');
    const tm = (
      args: string[],
      options: { env?: Record<string, string>; input?: string; cwd?: string } = {},
    ) =>
      runCommand(process.execPath, [CLI_BIN, ...args], {
        ...options,
        env: { TM_CONFIG: config, TM_BASE_URL: baseUrl(), ...options.env },
      });
    return { home, config, tm };
  };
}

/** A run's stdout as JSON (`--json`). */
export const json = (run: Run) => JSON.parse(run.stdout);

/** For a `beforeAll`: until the test command builds libs/clients/cli itself, say what is missing rather than fail obscurely. */
export function requireBuiltCli(): void {
  if (!existsSync(CLI_BIN))
    throw new Error(`${CLI_BIN} is missing: build it with \`pnpm --filter @text-memory/cli build\``);
}

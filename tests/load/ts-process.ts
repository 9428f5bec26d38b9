import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';

/** The repository root (tests/load/..). */
export const REPO_ROOT = new URL('../../', import.meta.url).pathname;

/**
 * Run a TypeScript file in its own Node process, through the workspace's tsx loader (one process,
 * no npx or shell in between, so its pid is the process to stop).
 */
export function spawnTypeScript(file: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const loader = import.meta.resolve('tsx');
  return spawn(process.execPath, ['--import', loader, file, ...args], { cwd: REPO_ROOT, ...options });
}

/** Run a TypeScript file to completion; its stdout, or an error with its stderr. */
export function runTypeScript(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawnTypeScript(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${file} exited with ${code}: ${stderr.trim()}`)),
    );
  });
}

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from './run-command.js';
import { nodeArgs, type Runtime } from './service-command.js';

export interface BootstrapFiles {
  /** Everything the admin command printed: tenant, owner login, key id, the key itself. */
  jsonFile: string;
  /** The API key alone, for `$(cat …)`. */
  keyFile: string;
}

/**
 * Create a development tenant with an API key through the gateway's admin command, once: later runs
 * reuse `.data/bootstrap.json`. Delete it (and the key file) to get a fresh tenant.
 */
export async function bootstrapTenantOnce(
  root: string,
  dataDir: string,
  env: NodeJS.ProcessEnv,
  runtime: Runtime = 'tsx',
): Promise<BootstrapFiles & { created: boolean }> {
  const files = { jsonFile: join(dataDir, 'bootstrap.json'), keyFile: join(dataDir, 'bootstrap-key.txt') };
  if (existsSync(files.jsonFile)) return { ...files, created: false };

  // The owner's address only has to be unique; the password is generated and kept with the key.
  const email = `owner-${randomBytes(4).toString('hex')}@example.test`;
  const admin = [...nodeArgs(runtime, 'gateway', 'admin/cli.ts'), 'bootstrap', '--json', '--email', email];
  const stdout = await runCommand(process.execPath, admin, {
    cwd: root,
    env,
    label: 'bootstrap',
    quiet: true,
  });
  const result = lastJsonLineWithKey(stdout);
  if (!result) throw new Error('bootstrap: the admin command printed no JSON line with an api_key');

  // The key file first: bootstrap.json existing is what marks the bootstrap as done.
  await writeSecret(files.keyFile, `${result.api_key}\n`);
  await writeSecret(files.jsonFile, `${JSON.stringify(result, null, 2)}\n`);
  return { ...files, created: true };
}

/** The result line, even if log lines share stdout with it. */
function lastJsonLineWithKey(stdout: string): { api_key: string } | undefined {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const parsed = JSON.parse(line) as { api_key?: unknown };
      if (typeof parsed.api_key === 'string') return parsed as { api_key: string };
    } catch {
      // not JSON: a log or progress line
    }
  }
  return undefined;
}

async function writeSecret(file: string, content: string): Promise<void> {
  await writeFile(file, content, { mode: 0o600 });
  await chmod(file, 0o600); // `mode` applies only when the file is created
}

import { runTypeScript } from './ts-process.js';

const ADMIN_CLI = 'services/gateway/src/admin/cli.ts';

/**
 * The key the bench calls with: BENCH_API_KEY, or a fresh tenant's key from the gateway's admin
 * command (`bootstrap --json`), so concurrent or repeated runs never share namespaces or counters.
 */
export async function resolveApiKey(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ apiKey: string; source: string }> {
  if (env.BENCH_API_KEY) return { apiKey: env.BENCH_API_KEY, source: 'BENCH_API_KEY' };
  const stdout = await runTypeScript(ADMIN_CLI, ['bootstrap', '--json', '--name', 'bench']);
  const line = stdout.trim().split('\n').at(-1) ?? '';
  const created = JSON.parse(line) as { api_key?: string; tenant_id?: string };
  if (!created.api_key) throw new Error(`bootstrap printed no api_key: ${line}`);
  return { apiKey: created.api_key, source: `new tenant ${created.tenant_id ?? '?'} (admin bootstrap)` };
}

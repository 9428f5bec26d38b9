import { TextMemory } from '@text-memory/sdk';

/** What `admin bootstrap --email … --json` prints: a tenant whose owner can log in. */
export interface BootstrappedTenant {
  tenant_id: string;
  api_key: string;
  owner_email: string;
  owner_password: string;
}

/**
 * The README's operations path through the TypeScript SDK, as a user of the containers would take it: the
 * owner logs in, makes an operator token, and runs the deployment's smoke test (a write, a recall and a
 * delete on the service's own namespace, every service answering). Resolves with the steps it passed.
 */
export async function sdkSmokeTest(baseUrl: string, tenant: BootstrappedTenant): Promise<string> {
  const owner = new TextMemory({ baseUrl });
  await owner.control.sessions.login({ email: tenant.owner_email, password: tenant.owner_password });
  const { token } = await owner.control.operatorTokens.create({ name: 'compose-check', ttl_hours: 1 });
  const smoke = await new TextMemory({ baseUrl, apiKey: tenant.api_key }).infrastructure.smokeTest({
    operatorToken: token,
  });
  const steps = smoke.steps.map((s) => `${s.step} ${s.outcome}`).join(', ');
  if (smoke.outcome !== 'passed') throw new Error(`smoke test ${smoke.outcome}: ${steps}`);
  await owner.control.sessions.logout();
  return steps;
}

import { parseArgs } from 'node:util';
import { ConfigError } from '@tm/kit';
import { loadGatewayConfig } from '../config.js';
import { closePrisma, initPrisma } from '../data-access/prisma-client.js';
import { bootstrapTenant } from '../domain/bootstrap-tenant.js';

const USAGE = `Usage: pnpm admin bootstrap [--name NAME] [--email EMAIL] [--json]

  bootstrap   Create a tenant with an owner, a managed storage connection, granted
              private-memory consent and an API key. The key is printed once.`;

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command !== 'bootstrap') {
    console.error(USAGE);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string', default: 'dev-tenant' },
      email: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const config = loadGatewayConfig();
  initPrisma(config.GATEWAY_DATABASE_URL, 1);
  try {
    const created = await bootstrapTenant({ name: values.name, email: values.email });
    if (values.json) {
      console.log(JSON.stringify(created));
    } else {
      console.log(
        `Tenant ${created.tenant_id} created with a managed storage connection and granted consent.`,
      );
      console.log(`API key (shown once, store it now):\n\n  ${created.api_key}\n`);
    }
    return 0;
  } finally {
    await closePrisma();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof ConfigError ? err.message : `admin: ${(err as Error).message}`);
    process.exit(1);
  },
);

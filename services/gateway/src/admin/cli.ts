import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { connectBus } from '@tm/bus';
import { ConfigError, createLogger } from '@tm/kit';
import { loadGatewayConfig } from '../config.js';
import { closePrisma, initPrisma } from '../data-access/prisma-client.js';
import { bootstrapTenant } from '../domain/control/bootstrap-tenant.js';
import { revokeApiKey } from '../domain/control/revoke-api-key.js';

const USAGE = `Usage: pnpm admin bootstrap [--name NAME] [--email EMAIL] [--json]
       pnpm admin revoke-key --tenant TENANT_ID --key KEY_ID

  bootstrap   Create a tenant with an owner, a managed storage connection, granted
              private-memory consent and an API key. With --email the owner can log in
              (POST /api/v1/control/sessions) with a generated password. The key and the
              password are printed once.
  revoke-key  Revoke an API key; running gateways refuse it from their next request.`;

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  if (command === 'bootstrap') return bootstrap(rest);
  if (command === 'revoke-key') return revokeKey(rest);
  console.error(USAGE);
  return 2;
}

async function revokeKey(args: string[]) {
  const { values } = parseArgs({ args, options: { tenant: { type: 'string' }, key: { type: 'string' } } });
  if (!values.tenant || !values.key) {
    console.error(USAGE);
    return 2;
  }
  const config = loadGatewayConfig();
  initPrisma(config.GATEWAY_DATABASE_URL, 1);
  const nc = await connectBus({
    servers: config.NATS_URL,
    name: 'gateway-admin',
    logger: createLogger({ name: 'admin', level: 'warn' }),
    // It announces key changes as the gateway does, so it connects as the gateway's user.
    user: 'gateway',
    password: config.GATEWAY_NATS_PASSWORD,
  });
  try {
    const revoked = await revokeApiKey({ tenantId: values.tenant, keyId: values.key }, { nc });
    console.log(
      revoked ? `Key ${values.key} revoked.` : `No active key ${values.key} in tenant ${values.tenant}.`,
    );
    return revoked ? 0 : 1;
  } finally {
    await nc.drain();
    await closePrisma();
  }
}

async function bootstrap(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string', default: 'dev-tenant' },
      email: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const config = loadGatewayConfig();
  initPrisma(config.GATEWAY_DATABASE_URL, 1);
  try {
    const password = values.email ? randomBytes(18).toString('base64url') : undefined;
    const created = await bootstrapTenant({ name: values.name, email: values.email, password });
    const result = password ? { ...created, owner_password: password } : created;
    if (values.json) {
      console.log(JSON.stringify(result));
    } else {
      console.log(
        `Tenant ${created.tenant_id} created with a managed storage connection and granted consent.`,
      );
      console.log(`API key (shown once, store it now):\n\n  ${created.api_key}\n`);
      if (password) console.log(`Owner login (shown once): ${created.owner_email} / ${password}\n`);
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

// Part of `npm test` (infra/dev/run.mjs): the fault suite's failover row runs PostgreSQL under Patroni,
// with etcd and HAProxy. Found, it says which PostgreSQL; missing, they are installed where nobody has to
// be asked (Debian/Ubuntu as root or with passwordless sudo), else the run stops and says how to get them.

import { ensurePatroniTools } from './patroni-tools.js';

const say = (line: string) => console.error(`› ${line}`);

try {
  const tools = await ensurePatroniTools(say);
  say(`failover rows use ${tools.patroni} with PostgreSQL from ${tools.pgBinDir}`);
} catch (err) {
  console.error(`✗ ${(err as Error).message}`);
  process.exit(1);
}

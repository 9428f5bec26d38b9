import { existsSync } from 'node:fs';
import { installPlan, onPath, runInstallPlan, type SystemPackage, thisHost } from '../system-package.js';
import { root } from './podman.js';

/**
 * What the Podman path needs, as Debian names it; runc because crun refuses these machines' cgroups;
 * binutils for `strip`, which takes the symbol table out of the runtime base's node (base-images.ts).
 */
export const CONTAINER_TOOLS: SystemPackage = {
  apt: ['podman', 'runc', 'podman-compose', 'mmdebstrap', 'binutils'],
  brew: ['podman', 'podman-compose'],
};
export const RUNC = '/usr/sbin/runc';

const missing = () => [
  ...['podman', 'podman-compose', 'mmdebstrap', 'strip'].filter((tool) => !onPath(tool)),
  ...(existsSync(RUNC) ? [] : ['runc']),
];

/** Found, or installed where nobody has to be asked (as infra/dev/ensure-chromium.ts does for Chromium). */
export async function ensureTools(): Promise<void> {
  if (missing().length === 0) return;
  const plan = installPlan(thisHost, CONTAINER_TOOLS);
  if (!plan)
    throw new Error(
      `missing ${missing().join(', ')}: apt-get install ${[CONTAINER_TOOLS.apt].flat().join(' ')}`,
    );
  await runInstallPlan(plan, root);
  if (missing().length > 0) throw new Error(`still missing after installing: ${missing().join(', ')}`);
}

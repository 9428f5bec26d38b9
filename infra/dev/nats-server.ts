import { type SupervisedProcess, startSupervised } from './supervised-process.js';
import { isExecutable, onPath } from './system-package.js';

/** Where Debian's `nats-server` package puts the binary, which is not on a normal user's PATH. */
const DEBIAN_PATH = '/usr/sbin/nats-server';

export const NATS_INSTALL_HINT = [
  'Install nats-server (2.9 or newer), then run this again:',
  '  Debian/Ubuntu:  sudo apt-get install -y nats-server',
  '  macOS:          brew install nats-server',
  '  elsewhere:      a release binary from https://github.com/nats-io/nats-server/releases on PATH',
  'or point NATS_URL at a running server with JetStream enabled.',
].join('\n');

/** `nats-server` from PATH, else the Debian location; undefined when neither exists. */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return onPath('nats-server', env) ?? (isExecutable(DEBIAN_PATH) ? DEBIAN_PATH : undefined);
}

/** A local nats-server with JetStream, its store in `storeDir`. */
export function startNatsServer(
  binary: string,
  port: number,
  storeDir: string,
  cwd: string,
): SupervisedProcess {
  return startSupervised('nats', binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], {
    cwd,
    env: process.env,
  });
}

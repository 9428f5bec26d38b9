import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type SupervisedProcess, startSupervised } from './supervised-process.js';

/** Where Debian's `nats-server` package puts the binary, which is not on a normal user's PATH. */
const DEBIAN_PATH = '/usr/sbin/nats-server';

export const NATS_INSTALL_HINT = [
  'Install nats-server (2.9 or newer), then run this again:',
  '  Debian/Ubuntu:  sudo apt-get install -y nats-server',
  '  elsewhere:      a release binary from https://github.com/nats-io/nats-server/releases on PATH',
  'or point NATS_URL at a running server with JetStream enabled.',
].join('\n');

/** `nats-server` from PATH, else the Debian location; undefined when neither exists. */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [
    ...(env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, 'nats-server')),
    DEBIAN_PATH,
  ];
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
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

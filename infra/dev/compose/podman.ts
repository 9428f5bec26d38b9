import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** Generated files and downloads: .data is gitignored and kept out of the build context. */
export const workDir = join(root, '.data', 'compose');

/** Podman reads this machine's settings from the project's own file, not from /etc (containers.conf). */
export const podmanEnv: NodeJS.ProcessEnv = {
  ...process.env,
  CONTAINERS_CONF: join(root, 'infra', 'compose', 'containers.conf'),
  // The Docker image format: OCI images cannot carry the Dockerfile's HEALTHCHECK (Podman drops it).
  BUILDAH_FORMAT: 'docker',
};

export interface Run {
  /** Show the command's output as it comes (a build), instead of only when it fails. */
  echo?: boolean;
  env?: NodeJS.ProcessEnv;
  /** A non-zero exit resolves instead of rejecting (a probe). */
  allowFailure?: boolean;
}

export interface Ran {
  code: number;
  stdout: string;
  /** stdout and stderr as they came, unless echoed. */
  output: string;
}

/** Run a command to completion; its output is held back and shown only if it fails. */
export function run(command: string, args: string[], options: Run = {}): Promise<Ran> {
  const { echo = false, env = podmanEnv, allowFailure = false } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    const collect = (target: NodeJS.WriteStream, isStdout: boolean) => (chunk: Buffer) => {
      if (isStdout) stdout += chunk.toString();
      if (echo) target.write(chunk);
      else output += chunk;
    };
    child.stdout.on('data', collect(process.stdout, true));
    child.stderr.on('data', collect(process.stderr, false));
    child.once('error', (err) => reject(new Error(`cannot run ${command}: ${err.message}`)));
    child.once('close', (code) => {
      if (code === 0 || allowFailure) return resolve({ code: code ?? 1, stdout, output });
      process.stderr.write(output);
      reject(new Error(`\`${[command, ...args].join(' ')}\` exited with code ${code}`));
    });
  });
}

export const podman = (args: string[], options?: Run) => run('podman', args, options);

/** `inspect --format` of a container's address on its one network; the same for podman and docker. */
export const ADDRESS = '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}';

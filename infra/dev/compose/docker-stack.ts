import { PRUNE_ARGS } from './build-leftovers.js';
import { ADDRESS, run } from './podman.js';

/**
 * The compose stack where Docker with its compose plugin runs and can pull images: the file as it is,
 * with compose's own depends_on conditions and healthchecks (`up --wait`).
 */
export class DockerStack {
  constructor(
    private readonly project: string,
    /** docker-compose.yml, and docker-compose.ha.yml on top for the HA profile. */
    private readonly files: string[],
    private readonly env: Record<string, string>,
  ) {}

  /** True when `docker compose` and a daemon answer; TM_COMPOSE_ENGINE=podman forces the Podman path. */
  static async available(): Promise<boolean> {
    if (process.env.TM_COMPOSE_ENGINE === 'podman') return false;
    const probe = (args: string[]) =>
      run('docker', args, { allowFailure: true, env: process.env }).then(
        (ran) => ran.code === 0,
        () => false,
      );
    return (await probe(['compose', 'version'])) && (await probe(['info']));
  }

  private compose(args: string[]) {
    const files = this.files.flatMap((file) => ['-f', file]);
    return run('docker', ['compose', '-p', this.project, ...files, ...args], {
      env: { ...process.env, ...this.env },
    });
  }

  async build(service: string): Promise<void> {
    await this.compose(['build', service]);
  }

  /**
   * BuildKit keeps no image per build stage; a rebuilt service's previous image is still left untagged.
   * Those go, and only ours (build-leftovers.ts). Answers docker's "Total reclaimed space" line.
   */
  async removeBuildLeftovers(): Promise<string> {
    const { stdout } = await run('docker', PRUNE_ARGS, { env: process.env });
    return stdout.trim().split('\n').at(-1) ?? '';
  }

  async up(): Promise<void> {
    await this.compose(['up', '-d', '--wait']);
  }

  async scale(service: string, replicas: number): Promise<void> {
    await this.compose([
      'up',
      '-d',
      '--wait',
      '--no-deps',
      '--no-recreate',
      '--scale',
      `${service}=${replicas}`,
      service,
    ]);
  }

  async replicas(service: string): Promise<string[]> {
    const { stdout } = await this.compose(['ps', '--status', 'running', '--format', '{{.Name}}', service]);
    return stdout.split('\n').filter(Boolean).sort();
  }

  async port(service: string, containerPort: number): Promise<string> {
    return (await this.compose(['port', service, String(containerPort)])).stdout.trim();
  }

  async kill(container: string): Promise<void> {
    await run('docker', ['kill', '--signal', 'KILL', container], { env: process.env });
  }

  async pause(container: string): Promise<void> {
    await run('docker', ['pause', container], { env: process.env });
  }

  async start(container: string): Promise<void> {
    await run('docker', ['start', container], { env: process.env });
  }

  /** Until the service is healthy again (`up --wait` of it alone, which starts nothing already running). */
  async healthy(service: string): Promise<void> {
    await this.compose(['up', '-d', '--wait', '--no-deps', '--no-recreate', service]);
  }

  async address(container: string): Promise<string> {
    const { stdout } = await run('docker', ['inspect', '--format', ADDRESS, container], { env: process.env });
    return stdout.trim();
  }

  async down(volumes = true): Promise<void> {
    await this.compose(['down', ...(volumes ? ['-v'] : [])]);
  }

  async exec(service: string, command: string[], workdir?: string): Promise<string> {
    const { stdout } = await this.compose([
      'exec',
      '-T',
      ...(workdir ? ['-w', workdir] : []),
      service,
      ...command,
    ]);
    return stdout;
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import { DEPENDENCY_IMAGES_ARGS, dependenciesImage, newestImage, PRUNE_ARGS } from './build-leftovers.js';
import { type ComposeFile, type DependencyCondition, dependencies, startOrder } from './compose-file.js';
import { builtImage } from './override-file.js';
import { ADDRESS, podman, podmanEnv, run } from './podman.js';

/** How long a service may take to become healthy, or a one-shot job to finish. */
const READY_WITHIN_MS = 180_000;

/**
 * The compose stack under podman-compose (1.0.x, Debian's), which takes depends_on's order but not its
 * conditions and leaves healthchecks to systemd timers (none here: no systemd): `up` creates the
 * containers, starts them one at a time and waits for each condition itself, running a healthcheck with
 * `podman healthcheck run`.
 */
export class PodmanStack {
  constructor(
    private readonly compose: ComposeFile,
    private readonly project: string,
    /** The compose files podman-compose reads, in order: the first's folder is where paths start. */
    private readonly files: string[],
    private readonly env: Record<string, string>,
  ) {}

  private composeCommand(args: string[], echo = false) {
    return run(
      'podman-compose',
      [
        '-p',
        this.project,
        ...this.files.flatMap((file) => ['-f', file]),
        // npm and pnpm inside the build need the host's network (the bridge has no way out here).
        '--podman-build-args=--network=host',
        ...args,
      ],
      { echo, env: { ...podmanEnv, ...this.env } },
    );
  }

  /** One service's image; podman-compose 1.0 exits 0 when a build fails, so the image is looked for. */
  async build(service: string): Promise<void> {
    const image = builtImage(this.project, service);
    // Untagged first, or the last run's image would pass for this build's (its layers stay cached).
    await podman(['untag', image], { allowFailure: true });
    const { output } = await this.composeCommand(['build', service]);
    if ((await podman(['image', 'exists', image], { allowFailure: true })).code !== 0) {
      process.stderr.write(output.split('\n').slice(-40).join('\n'));
      throw new Error(`no image ${image} after the build`);
    }
  }

  /**
   * After the builds: the dependency layers kept under a tag, then every dangling image the Dockerfile
   * labelled removed with its untagged parents (build-leftovers.ts). Says how many went.
   */
  async removeBuildLeftovers(): Promise<string> {
    const listed = await podman(DEPENDENCY_IMAGES_ARGS);
    const dependencies = newestImage(JSON.parse(listed.stdout.trim() || '[]'));
    if (dependencies) await podman(['tag', dependencies, dependenciesImage(this.project)]);
    const { stdout } = await podman(PRUNE_ARGS);
    return `${stdout.split('\n').filter(Boolean).length} images removed`;
  }

  async up(say: (line: string) => void = () => {}): Promise<void> {
    const satisfied = new Map<string, Promise<void>>();
    const wait = (name: string, condition: DependencyCondition) => {
      const key = `${name}:${condition}`;
      if (!satisfied.has(key)) satisfied.set(key, this.waitFor(name, condition, say));
      return satisfied.get(key) as Promise<void>;
    };
    const order = startOrder(this.compose);
    // Every container (and the network) created at once, none started: podman-compose 1.0's `up` of one
    // service also starts its dependencies again, which would rerun a migrate job that has finished.
    // (No -d: podman-compose 1.0 would pass it on to `podman create`, which refuses it.)
    await this.composeCommand(['up', '--no-start', '--no-build', ...order]);
    for (const name of order) {
      const service = this.compose.services[name];
      if (!service) continue;
      await Promise.all(dependencies(service).map(([dep, condition]) => wait(dep, condition)));
      await podman(['start', await this.container(name)]);
    }
    // Up means every service that keeps running is healthy, not only those something depends on: the
    // compose file's healthchecks, and the image's own (HEALTHCHECK) for the bus services.
    const jobs = new Set(
      order.flatMap((name) =>
        dependencies(this.compose.services[name] ?? {})
          .filter(([, condition]) => condition === 'service_completed_successfully')
          .map(([dep]) => dep),
      ),
    );
    await Promise.all(order.filter((name) => !jobs.has(name)).map((name) => wait(name, 'service_healthy')));
  }

  /**
   * More containers of a service: podman-compose 1.0 takes `--scale` but ignores it, so each new replica
   * is a `podman container clone` of the first (its image, settings, labels and network), started.
   */
  async scale(service: string, replicas: number): Promise<void> {
    const first = await this.container(service);
    const existing = (await this.containers(service, true)).length;
    for (let n = existing + 1; n <= replicas; n++) {
      const name = `${this.project}_${service}_${n}`;
      await podman(['container', 'clone', first, name]);
      await podman(['start', name]);
    }
  }

  replicas(service: string): Promise<string[]> {
    return this.containers(service, false);
  }

  /** The host address a running service's container port is published on (`127.0.0.1:8080`). */
  async port(service: string, containerPort: number): Promise<string> {
    const { stdout } = await podman(['port', await this.container(service), String(containerPort)]);
    return stdout.trim().split('\n')[0] ?? '';
  }

  async kill(container: string): Promise<void> {
    await podman(['kill', '--signal', 'KILL', container]);
  }

  async pause(container: string): Promise<void> {
    await podman(['pause', container]);
  }

  /** A stopped (killed) container started again, on its own volumes: a machine brought back. */
  async start(container: string): Promise<void> {
    await podman(['start', container]);
  }

  /** Until the service's first container is healthy again (its healthcheck run now, as `up` does). */
  async healthy(service: string, say: (line: string) => void = () => {}): Promise<void> {
    await this.waitFor(service, 'service_healthy', say);
  }

  async address(container: string): Promise<string> {
    return (await podman(['inspect', '--format', ADDRESS, container])).stdout.trim();
  }

  /** The containers (and volumes when asked), then the network, which podman-compose 1.0's `down` leaves. */
  async down(volumes = true): Promise<void> {
    // Replicas added by scale() first: podman-compose knows only the containers it made.
    const made = new Set(startOrder(this.compose).map((name) => `${this.project}_${name}_1`));
    const added = (await this.containers(undefined, true)).filter((name) => !made.has(name));
    if (added.length > 0) {
      await podman(['stop', '-t', '15', ...added], { allowFailure: true });
      await podman(['rm', '-f', ...added]);
    }
    // -t: the compose file's stop_grace_period, so services drain as they would under docker compose.
    await this.composeCommand(['down', ...(volumes ? ['-v'] : []), '-t', '15']);
    const network = `${this.project}_default`;
    if ((await podman(['network', 'exists', network], { allowFailure: true })).code === 0) {
      await podman(['network', 'rm', network]);
    }
  }

  /** The service's first container, running or not. */
  async container(service: string): Promise<string> {
    const [name] = await this.containers(service, true);
    if (!name) throw new Error(`no container for ${service}`);
    return name;
  }

  /** The project's containers (one service's, when given), by name; stopped ones too if `all`. */
  private async containers(service: string | undefined, all: boolean): Promise<string[]> {
    const { stdout } = await podman([
      'ps',
      ...(all ? ['-a'] : []),
      '--filter',
      `label=io.podman.compose.project=${this.project}`,
      ...(service ? ['--filter', `label=com.docker.compose.service=${service}`] : []),
      '--format',
      '{{.Names}}',
    ]);
    return stdout.split('\n').filter(Boolean).sort();
  }

  /** Run a command in a service's running container; resolves with its stdout. */
  async exec(service: string, command: string[], workdir?: string): Promise<string> {
    const container = await this.container(service);
    const { stdout } = await podman(['exec', ...(workdir ? ['-w', workdir] : []), container, ...command]);
    return stdout;
  }

  private async waitFor(name: string, condition: DependencyCondition, say: (line: string) => void) {
    if (condition === 'service_started') return;
    const container = await this.container(name);
    const started = Date.now();
    if (condition === 'service_completed_successfully') {
      // A job that finished before this asked has exited already; wait answers its code all the same.
      const { stdout } = await podman(['wait', container]);
      if (stdout.trim() !== '0') {
        await this.showLogs(container);
        throw new Error(`${name} exited with code ${stdout.trim()}`);
      }
      say(`${name} completed (${seconds(started)})`);
      return;
    }
    while (Date.now() - started < READY_WITHIN_MS) {
      const state = (await podman(['inspect', '--format', '{{.State.Status}}', container])).stdout.trim();
      if (state === 'exited') {
        await this.showLogs(container);
        throw new Error(`${name} exited while waiting for it to be healthy`);
      }
      // The compose file's healthcheck, else the image's, run now: Podman runs them from systemd
      // timers, and a machine without systemd never would.
      if ((await podman(['healthcheck', 'run', container], { allowFailure: true })).code === 0) {
        say(`${name} healthy (${seconds(started)})`);
        return;
      }
      await sleep(1000);
    }
    await this.showLogs(container);
    throw new Error(
      `${name} not healthy within ${READY_WITHIN_MS / 1000} s; its check's last words: ${await this.lastHealthOutput(container)}`,
    );
  }

  /** What the healthcheck printed the last time it ran (a shell's syntax error, say), which logs do not show. */
  private async lastHealthOutput(container: string): Promise<string> {
    const { stdout } = await podman(['inspect', '--format', '{{json .State.Health.Log}}', container], {
      allowFailure: true,
    });
    try {
      const log = JSON.parse(stdout) as { ExitCode?: number; Output?: string }[] | null;
      const last = log?.at(-1);
      return last ? `exit ${last.ExitCode}, ${JSON.stringify(last.Output?.trim() ?? '')}` : 'none recorded';
    } catch {
      return 'none recorded';
    }
  }

  private async showLogs(container: string) {
    const { output } = await podman(['logs', '--tail', '1000', container], { allowFailure: true });
    process.stderr.write(`${lastTellingLines(output, 40).join('\n')}\n`);
  }
}

/**
 * A log's last `count` lines that say something: without the tracebacks a Patroni node logs each time
 * a health checker hangs up before its answer, which would otherwise be all there is to read.
 */
export function lastTellingLines(log: string, count: number): string[] {
  const noise =
    /^\s+(File |\S.*\^)|^\s*(method\(\)|self\.|BaseHTTPRequestHandler\.)|^Traceback |^ConnectionResetError|^BrokenPipeError|Exception happened during processing of request|Traceback \(most recent call last\)/;
  return log
    .split('\n')
    .filter((line) => line.trim() !== '' && !noise.test(line))
    .slice(-count);
}

export function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

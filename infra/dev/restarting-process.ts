import { printLine } from './prefixed-output.js';
import { DEFAULT_RESTART_POLICY, decideRestart, type RestartPolicy } from './restart-policy.js';
import { describeExit, type ExitStatus, type SupervisedProcess } from './supervised-process.js';

export interface RestartingProcess {
  name: string;
  /** The running instance's process id; undefined while it waits to be restarted. */
  pid(): number | undefined;
  /** Resolves with the last exit once the policy gives up on it; never while restarts go on. */
  gaveUp: Promise<ExitStatus>;
  /** Stop restarting it, then stop the running instance (its stop signal, SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

export interface RestartOptions {
  policy?: RestartPolicy;
  /** Where the restarts are announced; the launcher's own prefixed lines on stderr by default. */
  say?: (line: string) => void;
}

/**
 * Keep a child running: when it exits without having been asked to, start it again after the policy's
 * backoff, and say so (which one, how it ended, when it comes back). A crashed memory service used to
 * make the launcher stop everything; now only a child that keeps failing fast is given up on.
 */
export function keepRunning(
  name: string,
  start: () => SupervisedProcess,
  {
    policy = DEFAULT_RESTART_POLICY,
    say = (line) => printLine('dev', line, process.stderr),
  }: RestartOptions = {},
): RestartingProcess {
  let current: SupervisedProcess | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let stopping = false;

  const gaveUp = new Promise<ExitStatus>((resolve) => {
    const run = (failuresBefore: number) => {
      const startedAt = Date.now();
      const instance = start();
      current = instance;
      void instance.exited.then((status) => {
        current = undefined;
        if (stopping) return;
        const decision = decideRestart(policy, failuresBefore, Date.now() - startedAt);
        if (decision.action === 'give up') {
          say(
            `${name} ${describeExit(status)}; it failed ${decision.failuresInARow} times in a row, each within ` +
              `${policy.healthyAfterMs / 1000} s of starting: giving up on it`,
          );
          resolve(status);
          return;
        }
        say(
          `${name} ${describeExit(status)}; restarting it in ${decision.delayMs} ms ` +
            `(failure ${decision.failuresInARow} in a row; gives up at ${policy.maxFastFailures})`,
        );
        restartTimer = setTimeout(() => {
          restartTimer = undefined;
          if (!stopping) run(decision.failuresInARow);
        }, decision.delayMs);
      });
    };
    run(0);
  });

  return {
    name,
    pid: () => current?.pid,
    gaveUp,
    stop: async (graceMs) => {
      stopping = true;
      clearTimeout(restartTimer);
      await current?.stop(graceMs);
    },
  };
}

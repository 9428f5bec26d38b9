import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepRunning, type RestartingProcess } from '../restarting-process.js';
import { startSupervised } from '../supervised-process.js';

// Small node children stand in for the services: what is under test is the launcher's supervision.
const IDLE = 'setInterval(() => {}, 1000)';
const FAIL_AT_ONCE = 'process.exit(3)';
const policy = { initialDelayMs: 50, maxDelayMs: 200, healthyAfterMs: 10_000, maxFastFailures: 4 };

const started: RestartingProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => child.stop(1_000)));
});

function child(name: string, script: string, said: string[]) {
  const supervised = keepRunning(
    name,
    () => startSupervised(name, process.execPath, ['-e', script], { cwd: process.cwd(), env: process.env }),
    { policy, say: (line) => said.push(line) },
  );
  started.push(supervised);
  return supervised;
}

/** For `vi.waitFor` on a child's pid, which changes off the test's path; a bound, not a speed check. */
const WAIT = { timeout: 10_000, interval: 20 };

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('keepRunning (the launcher’s supervision)', () => {
  it('when one child is killed with SIGKILL, then it is restarted, the restart is announced, and the others keep running', async () => {
    const said: string[] = [];
    const [memory, billing, gateway] = ['memory', 'billing', 'gateway'].map((name) =>
      child(name, IDLE, said),
    );
    const pids = await vi.waitFor(() => {
      const all = [memory, billing, gateway].map((c) => c?.pid());
      expect(all, 'every child has a pid').not.toContain(undefined);
      return all as number[];
    }, WAIT);

    process.kill(pids[0] as number, 'SIGKILL');
    const restartedPid = await vi.waitFor(() => {
      const pid = memory?.pid();
      expect(pid, 'the restarted child').toBeDefined();
      expect(pid, 'the restarted child').not.toBe(pids[0]);
      return pid as number;
    }, WAIT);

    expect(isAlive(restartedPid)).toBe(true);
    expect([billing?.pid(), gateway?.pid()]).toEqual([pids[1], pids[2]]);
    expect(pids.slice(1).every(isAlive)).toBe(true);
    expect(said).toEqual([
      'memory was killed by SIGKILL (exit 137); restarting it in 50 ms (failure 1 in a row; gives up at 4)',
    ]);
  });

  it('when a child fails at once every time, then the delays grow and it is given up on after the limit', async () => {
    const said: string[] = [];

    const gaveUp = await child('broken', FAIL_AT_ONCE, said).gaveUp;

    expect(gaveUp).toEqual({ code: 3, signal: null });
    expect(said).toEqual([
      'broken exited with code 3; restarting it in 50 ms (failure 1 in a row; gives up at 4)',
      'broken exited with code 3; restarting it in 100 ms (failure 2 in a row; gives up at 4)',
      'broken exited with code 3; restarting it in 200 ms (failure 3 in a row; gives up at 4)',
      'broken exited with code 3; it failed 4 times in a row, each within 10 s of starting: giving up on it',
    ]);
  });

  it('when the launcher stops a child, then it is not restarted', async () => {
    const said: string[] = [];
    const supervised = child('memory', IDLE, said);
    const pid = await vi.waitFor(() => {
      const started = supervised.pid();
      expect(started, 'the child has started').toBeDefined();
      return started as number;
    }, WAIT);

    await supervised.stop(1_000);
    await sleep(200); // longer than the first restart delay

    expect(isAlive(pid)).toBe(false);
    expect(supervised.pid()).toBeUndefined();
    expect(said).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { type InstallHost, natsInstallPlan } from '../install-nats-server.js';

const host = (overrides: Partial<InstallHost> & { programs?: string[] }): InstallHost => {
  const { programs = [], ...rest } = overrides;
  return {
    platform: 'linux',
    isRoot: false,
    has: (program) => programs.includes(program),
    passwordlessSudo: () => false,
    ...rest,
  };
};
const aptInstall = ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', 'nats-server'];

describe('natsInstallPlan', () => {
  it('when run as root on Debian or Ubuntu, then apt-get updates its lists and installs nats-server', () => {
    expect(natsInstallPlan(host({ isRoot: true, programs: ['apt-get'] }))).toEqual({
      steps: [['apt-get', 'update'], aptInstall],
      privileged: [],
    });
  });

  it('when a user with passwordless sudo runs it on Debian or Ubuntu, then the same through sudo -n', () => {
    const plan = natsInstallPlan(host({ programs: ['apt-get', 'sudo'], passwordlessSudo: () => true }));

    expect(plan).toEqual({
      steps: [
        ['sudo', '-n', 'apt-get', 'update'],
        ['sudo', '-n', ...aptInstall],
      ],
      privileged: ['sudo', '-n'],
    });
  });

  it('when sudo would ask for a password, then nothing is installed (the user is told how instead)', () => {
    expect(natsInstallPlan(host({ programs: ['apt-get', 'sudo'] }))).toBeUndefined();
  });

  it('when on macOS with Homebrew, then brew installs it, as the user', () => {
    expect(natsInstallPlan(host({ platform: 'darwin', programs: ['brew'] }))).toEqual({
      steps: [['brew', 'install', 'nats-server']],
      privileged: [],
    });
  });

  it('when neither apt-get nor Homebrew is there, then nothing is installed', () => {
    expect(natsInstallPlan(host({ isRoot: true, programs: ['dnf'] }))).toBeUndefined();
    expect(natsInstallPlan(host({ platform: 'darwin', isRoot: true }))).toBeUndefined();
    expect(natsInstallPlan(host({ platform: 'win32', isRoot: true, programs: ['apt-get'] }))).toBeUndefined();
  });
});

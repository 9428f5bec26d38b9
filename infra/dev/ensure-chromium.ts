// Part of `npm test` (infra/dev/run.mjs): the console's browser tests need a Chromium. Found, it says
// which; missing, it is installed where nobody has to be asked (Debian/Ubuntu as root or with
// passwordless sudo, Homebrew on macOS), else the run stops and says how to get one.

import { findChromium } from './chromium.js';
import { CHROMIUM, installPlan, runInstallPlan, thisHost } from './system-package.js';

const say = (line: string) => console.error(`› ${line}`);

let chromium = findChromium();
if (!chromium && !process.env.CHROMIUM_PATH) {
  const plan = installPlan(thisHost, CHROMIUM);
  if (plan) {
    say(
      `installing Chromium for the console's browser tests (${plan.steps.map((s) => s.join(' ')).join('; ')})...`,
    );
    await runInstallPlan(plan, process.cwd());
    chromium = findChromium();
  }
}
if (!chromium) {
  console.error(
    process.env.CHROMIUM_PATH
      ? `✗ CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable file`
      : "✗ the console's browser tests need Chromium: `apt-get install chromium` (Debian/Ubuntu), " +
          '`brew install --cask chromium` (macOS), or CHROMIUM_PATH=<a Chromium or Chrome binary>',
  );
  process.exit(1);
}
say(`browser tests use ${chromium}`);

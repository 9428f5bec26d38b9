import { existsSync } from 'node:fs';
import { isExecutable, onPath } from './system-package.js';

/** Names Chromium and Chrome go by on PATH, Debian's first (the one the toolchain note checked). */
const ON_PATH = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];
const MAC_APP = '/Applications/Chromium.app/Contents/MacOS/Chromium';

/**
 * The browser the console's tests drive: `CHROMIUM_PATH` when set (it must be executable), else
 * Chromium or Chrome on PATH, else Homebrew's Chromium app on macOS; undefined when there is none.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CHROMIUM_PATH) return isExecutable(env.CHROMIUM_PATH) ? env.CHROMIUM_PATH : undefined;
  for (const name of ON_PATH) {
    const found = onPath(name, env);
    if (found) return found;
  }
  return existsSync(MAC_APP) ? MAC_APP : undefined;
}

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * "No log line ever holds a credential", checked over a whole run: every stack logs everything into
 * one file (log-capture.ts), every credential the tests create or send is noted in another, and the
 * global teardown searches the first for each entry of the second.
 */
export interface LogCapture {
  /** Every stack's log lines, at trace level, for the whole run. */
  logFile: string;
  /** Every credential the tests created or sent: one JSON string per line. */
  secretsFile: string;
}

export async function openLogCapture(): Promise<LogCapture> {
  const dir = await mkdtemp(join(tmpdir(), 'tm-e2e-logs-'));
  const capture = { logFile: join(dir, 'stack.log'), secretsFile: join(dir, 'secrets.jsonl') };
  await Promise.all([writeFile(capture.logFile, ''), writeFile(capture.secretsFile, '')]);
  return capture;
}

/**
 * Throws (which fails `vitest run`, exit code 1) when a noted credential appears in the log, or when
 * credentials were noted but the log shows no requests: then logging is broken and "nothing leaked"
 * would be vacuous. The files are removed only when the check passes, so a failure can be read.
 */
export async function assertNoCredentialsLogged({ logFile, secretsFile }: LogCapture): Promise<void> {
  const secrets = new Set(
    (await readFile(secretsFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as string),
  );
  const lines = (await readFile(logFile, 'utf8')).split('\n');
  // No credential noted: no stack ran (unit tests alone), so there is nothing to check.
  if (secrets.size > 0) {
    if (!lines.some((line) => line.includes('"msg":"request completed"'))) {
      throw new Error(`Credential leak check: ${logFile} holds no access-log line, so it proves nothing`);
    }
    const leaks = [...secrets].flatMap((secret) => {
      const at = lines.findIndex((line) => line.includes(secret));
      return at === -1 ? [] : [`${secret.slice(0, 8)}… on line ${at + 1}`];
    });
    if (leaks.length > 0) {
      throw new Error(
        `Credential leak check: ${leaks.length} of ${secrets.size} credentials the tests used appear in ` +
          `${logFile}:\n  ${leaks.join('\n  ')}`,
      );
    }
  }
  await rm(dirname(logFile), { recursive: true, force: true });
}

import { createInterface } from 'node:readline/promises';
import { UsageError } from './exit-codes.js';

/** A person at a terminal: prompts read stdin and write to stderr, so stdout stays the result. */
export const isInteractive = () => Boolean(process.stdin.isTTY && process.stderr.isTTY);

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** One line from stdin (`--password-stdin`, `--api-key-stdin`): the trailing newline is not part of it. */
export async function readStdinLine(): Promise<string> {
  return (await readStdin()).replace(/\r?\n$/, '');
}

export async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

/**
 * Go on only with consent: `--yes`, or "y" typed at a terminal. Without a terminal and without
 * `--yes` nobody can answer, so the command is refused (exit 2) rather than assumed.
 */
export async function confirmOrRefuse(question: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!isInteractive())
    throw new UsageError(`${question} Refused: no terminal to ask; pass --yes to confirm`);
  const answer = (await ask(`${question} [y/N] `)).trim().toLowerCase();
  if (answer !== 'y' && answer !== 'yes') throw new UsageError('Cancelled');
}

/** Read a secret at the terminal without echoing it (raw mode; Backspace edits, Ctrl+C cancels). */
export function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) throw new UsageError('No terminal to read the secret from; use the --…-stdin option');
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (data: Buffer) => {
      for (const char of data.toString('utf8')) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new UsageError('Cancelled'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

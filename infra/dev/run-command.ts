import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { printLine } from './prefixed-output.js';

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Prefix for the command's output lines. */
  label: string;
  /** Hold the output back and show it only if the command fails. */
  quiet?: boolean;
}

/** Run a one-shot command to completion; resolves with its stdout, rejects on a non-zero exit. */
export function runCommand(command: string, args: string[], options: RunOptions): Promise<string> {
  const { cwd, env, label, quiet = false } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const heldBack: Array<[string, NodeJS.WriteStream]> = [];
    const follow = (stream: NodeJS.ReadableStream, target: NodeJS.WriteStream) =>
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) =>
        quiet ? heldBack.push([line, target]) : printLine(label, line, target),
      );
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    follow(child.stdout, process.stdout);
    follow(child.stderr, process.stderr);
    child.once('error', (err) => reject(new Error(`${label}: cannot run ${command}: ${err.message}`)));
    child.once('close', (code, signal) => {
      if (code === 0) return resolve(stdout);
      for (const [line, target] of heldBack) printLine(label, line, target);
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      reject(new Error(`${label}: \`${[command, ...args].join(' ')}\` ${how}`));
    });
  });
}

import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

const WIDTH = 9;
const COLORS = [36, 35, 33, 32, 34, 91, 96, 95];

/** A fixed-width, per-name coloured prefix, so interleaved output from several processes stays readable. */
function prefix(name: string, target: Writable): string {
  const text = `${name.padEnd(WIDTH)} │`;
  if (!(target as NodeJS.WriteStream).isTTY) return text;
  const hash = [...name].reduce((sum, char) => sum + char.charCodeAt(0), 0);
  return `\x1b[${COLORS[hash % COLORS.length]}m${text}\x1b[0m`;
}

export function printLine(name: string, line: string, target: Writable = process.stdout): void {
  target.write(`${prefix(name, target)} ${line}\n`);
}

/** Copy a child's stream line by line, each line prefixed, so a partial line never splits another's. */
export function pipePrefixed(stream: Readable, name: string, target: Writable = process.stdout): void {
  createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) =>
    printLine(name, line, target),
  );
}

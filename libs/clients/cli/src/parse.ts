import { InvalidArgumentError } from 'commander';

export function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

export function parseTimestamp(value: string): string {
  if (Number.isNaN(Date.parse(value))) throw new InvalidArgumentError('must be an ISO 8601 timestamp');
  return value;
}

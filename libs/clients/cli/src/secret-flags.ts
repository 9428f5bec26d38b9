/**
 * A secret given as a flag value lands in shell history and in the process list (`ps`) for every
 * user of the machine to read. Such flags stay accepted, for scripts written against them, with
 * this warning on stderr naming the better ways in.
 */
export function secretFlagWarning(flag: string, instead: string): string {
  return `${flag} puts the secret in shell history and the process list; prefer ${instead}`;
}

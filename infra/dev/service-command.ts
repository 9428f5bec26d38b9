/**
 * How a service's process is started, in either runtime. Development runs the TypeScript through tsx's
 * loader (node itself, not the tsx CLI: that one SIGKILLs a child slow to acknowledge a signal). The
 * compiled runtime (`npm run start:prod`) runs the JavaScript in dist/ with plain node; the one
 * flag makes the @tm/* packages resolve to their dist/ too (their `@tm/compiled` export condition),
 * where without it they resolve to src/*.ts, which is what tsx, vitest and tsc read.
 */
export type Runtime = 'tsx' | 'compiled';

export const COMPILED_CONDITION = '--conditions=@tm/compiled';

/** Node's arguments for a file of services/<service>/src, given as its path under src/ ('start.ts'). */
export function nodeArgs(runtime: Runtime, service: string, fileUnderSrc: string): string[] {
  if (runtime === 'tsx') return ['--import', 'tsx', `services/${service}/src/${fileUnderSrc}`];
  return [COMPILED_CONDITION, `services/${service}/dist/${fileUnderSrc.replace(/\.ts$/, '.js')}`];
}

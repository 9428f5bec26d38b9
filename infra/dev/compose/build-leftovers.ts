/**
 * What the image builds leave behind, which `npm run compose` removes once they are done. Podman keeps
 * every step of a build as an image: each service's build stage (about 1.3 GB: pnpm, every dependency,
 * the compiled workspace) stays as a dangling image once the runtime stage has copied /runtime out of
 * it, and a rebuilt service's previous image is left untagged; about 8 GB a `check`. The Dockerfile
 * labels both stages with STAGE_LABEL, and only dangling images with that label are pruned: nobody
 * else's images, and none that is tagged or used by a container.
 *
 * Removing an image also removes its untagged parents, so the layers up to `pnpm fetch` (pnpm and the
 * lockfile's packages, what every build reuses until pnpm-lock.yaml changes) would go with the rest.
 * The Dockerfile labels the last of them `dependencies`, and that image is tagged first to keep it.
 */
export const STAGE_LABEL = 'io.text-memory.stage';

/** `podman image prune` (or docker's) of the dangling images that carry STAGE_LABEL, whatever its value. */
export const PRUNE_ARGS = ['image', 'prune', '--force', '--filter', `label=${STAGE_LABEL}`];

/** `podman images` of the dependency layers' images, as JSON (`Id`, `Created` in seconds). */
export const DEPENDENCY_IMAGES_ARGS = [
  'images',
  '--all',
  '--filter',
  `label=${STAGE_LABEL}=dependencies`,
  '--format',
  'json',
];

/** The tag that keeps a project's dependency layers. */
export function dependenciesImage(project: string): string {
  return `localhost/${project}/build-dependencies:latest`;
}

/** The id of the newest listed image (this build's dependency layers), or undefined when none is listed. */
export function newestImage(listed: { Id: string; Created: number }[]): string | undefined {
  return listed.reduce<{ Id: string; Created: number } | undefined>(
    (newest, image) => (newest === undefined || image.Created > newest.Created ? image : newest),
    undefined,
  )?.Id;
}

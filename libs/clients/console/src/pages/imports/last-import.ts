import type { TextMemory } from '@text-memory/sdk';

/**
 * The import each data key last had open, held in memory beside the key (never stored): coming back
 * to Imports through the navigation, whose link has no `?import=`, reopens it. A job id is no secret;
 * keeping it per client means a key chosen later starts from an empty page.
 */
const lastImport = new WeakMap<TextMemory, string>();

export const rememberedImport = (client: TextMemory) => lastImport.get(client);
export const rememberImport = (client: TextMemory, importId: string | undefined) => {
  if (importId) lastImport.set(client, importId);
  else lastImport.delete(client);
};

import { z } from 'zod';

type Def = Record<string, unknown> & { type: string };
const { mergeDefs } = z.core.util;

/** Fields of a def that hold schemas, by the def's type; everything else is copied as it is. */
const CHILDREN: Record<string, string[]> = {
  optional: ['innerType'],
  nullable: ['innerType'],
  default: ['innerType'],
  prefault: ['innerType'],
  nonoptional: ['innerType'],
  readonly: ['innerType'],
  catch: ['innerType'],
  array: ['element'],
  record: ['valueType'],
  pipe: ['in', 'out'],
  intersection: ['left', 'right'],
};

const made = new WeakMap<z.ZodType, z.ZodType>();

/**
 * `schema` with every strict object in it made to drop unknown fields instead of refusing them; its
 * refinements, transforms and every other check kept. The gateway refuses unknown fields in a request
 * (the HTTP schemas are strict), but a service reading a bus message is a tolerant reader: a message
 * from a newer gateway, carrying a field this service does not know yet, is served without it during
 * a rolling upgrade rather than refused (docs/decisions/api.md). Built once per schema.
 */
export function tolerantOf<S extends z.ZodType>(schema: S): S {
  const known = made.get(schema);
  if (known) return known as S;
  const def = schema._zod.def as unknown as Def;
  let tolerant: z.ZodType = schema;
  if (def.type === 'object') {
    const shape = def.shape as Record<string, z.ZodType>;
    const catchall = def.catchall as z.ZodType | undefined;
    tolerant = schema.clone(
      mergeDefs(def, {
        shape: Object.fromEntries(Object.entries(shape).map(([key, child]) => [key, tolerantOf(child)])),
        catchall: catchall?._zod.def.type === 'never' ? undefined : catchall,
      }),
    );
  } else if (def.type === 'union') {
    tolerant = schema.clone(mergeDefs(def, { options: (def.options as z.ZodType[]).map(tolerantOf) }));
  } else if (def.type === 'tuple') {
    const rest = def.rest as z.ZodType | null;
    tolerant = schema.clone(
      mergeDefs(def, { items: (def.items as z.ZodType[]).map(tolerantOf), rest: rest && tolerantOf(rest) }),
    );
  } else if (CHILDREN[def.type]) {
    const children = CHILDREN[def.type] as string[];
    tolerant = schema.clone(
      mergeDefs(def, Object.fromEntries(children.map((key) => [key, tolerantOf(def[key] as z.ZodType)]))),
    );
  }
  made.set(schema, tolerant);
  return tolerant as S;
}

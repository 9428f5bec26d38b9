import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, looksLikeUuid } from '@tm/contracts';
import { Prisma, type PrismaClient } from './generated/client.js';
import type { Db } from './prisma-client.js';

export interface TemplateDefinition {
  /** The author's version label; absent, the new revision's number is the label. */
  label: string | undefined;
  description: string;
  fields: Array<{ name: string; type: string; description: string; required: boolean }>;
  format: string | undefined;
}

export interface StoredTemplate {
  id: string;
  tenantId: string;
  name: string;
  /** The revision: 1, 2, … */
  version: number;
  label: string;
  description: string;
  fields: TemplateDefinition['fields'];
  format: string | null;
  createdAt: Date;
  updatedAt: Date;
}

type TemplateRow = {
  id: string;
  tenantId: string;
  name: string;
  currentVersion: number;
  createdAt: Date;
  updatedAt: Date;
};
type VersionRow = {
  templateId: string;
  version: number;
  label: string;
  description: string;
  fields: unknown;
  format: string | null;
};

const merge = (t: TemplateRow, v: VersionRow): StoredTemplate => ({
  id: t.id,
  tenantId: t.tenantId,
  name: t.name,
  version: v.version,
  label: v.label,
  description: v.description,
  fields: v.fields as StoredTemplate['fields'],
  format: v.format,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});

/** A route's `{template_name_or_id}`: a UUID is an id (names never look like one), anything else a name. */
const byRef = (tenantId: string, ref: string) =>
  looksLikeUuid(ref) ? { tenantId, id: ref.toLowerCase() } : { tenantId, name: ref };

/** The template with its current version, or null; another tenant's template is never found. */
export async function findTemplate(db: Db, tenantId: string, ref: string) {
  const template = await db.template.findFirst({ where: byRef(tenantId, ref) });
  if (!template) return null;
  const version = await db.templateVersion.findUniqueOrThrow({
    where: { templateId_version: { templateId: template.id, version: template.currentVersion } },
  });
  return merge(template, version);
}

/** One version of a template, as it was written. */
export async function findTemplateVersion(db: Db, templateId: string, version: number) {
  return db.templateVersion.findUnique({ where: { templateId_version: { templateId, version } } });
}

export async function listTemplates(
  db: Db,
  tenantId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: StoredTemplate[]; total: number }> {
  const [templates, total] = await Promise.all([
    db.template.findMany({
      where: { tenantId },
      orderBy: { name: 'asc' },
      skip: page.offset,
      take: page.limit,
    }),
    db.template.count({ where: { tenantId } }),
  ]);
  if (templates.length === 0) return { rows: [], total };
  const versions = await db.templateVersion.findMany({
    where: { OR: templates.map((t) => ({ templateId: t.id, version: t.currentVersion })) },
  });
  const byId = new Map(versions.map((v) => [v.templateId, v]));
  return {
    rows: templates.flatMap((t) => {
      const v = byId.get(t.id);
      return v ? [merge(t, v)] : [];
    }),
    total,
  };
}

const isUniqueViolation = (err: unknown) =>
  err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002';

/** A new template at version 1. Its name is unique within the tenant (409 otherwise). */
export async function insertTemplate(
  db: PrismaClient,
  tenantId: string,
  name: string,
  definition: TemplateDefinition,
): Promise<StoredTemplate> {
  const id = randomUUID();
  try {
    const [template, version] = await db.$transaction([
      db.template.create({ data: { id, tenantId, name, currentVersion: 1 } }),
      db.templateVersion.create({ data: { templateId: id, version: 1, ...versionData(definition, 1) } }),
    ]);
    return merge(template, version);
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError(ErrorCode.AlreadyExists, 'A template with this name exists already', {
        fields: [{ path: 'template_name', message: 'is taken by another template of this tenant' }],
      });
    }
    throw err;
  }
}

/**
 * Write revision `from + 1`, but only if `from` is still the current revision: two updates based on
 * the same revision cannot both win. Returns null when another update got there first.
 */
export async function appendVersion(
  db: PrismaClient,
  template: StoredTemplate,
  definition: TemplateDefinition,
): Promise<StoredTemplate | null> {
  const next = template.version + 1;
  return db.$transaction(async (tx) => {
    const moved = await tx.template.updateMany({
      where: { id: template.id, currentVersion: template.version },
      data: { currentVersion: next, updatedAt: new Date() },
    });
    if (moved.count === 0) return null;
    const version = await tx.templateVersion.create({
      data: { templateId: template.id, version: next, ...versionData(definition, next) },
    });
    const row = await tx.template.findUniqueOrThrow({ where: { id: template.id } });
    return merge(row, version);
  });
}

const versionData = (definition: TemplateDefinition, revision: number) => ({
  label: definition.label ?? String(revision),
  description: definition.description,
  fields: definition.fields as Prisma.InputJsonValue,
  format: definition.format ?? null,
});

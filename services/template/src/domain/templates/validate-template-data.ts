import { AppError, ErrorCode, type FieldIssue, type FieldType } from '@tm/contracts';

export interface FieldSpec {
  name: string;
  type: FieldType | string;
  required?: boolean;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const typeChecks: Record<FieldType, { test: (v: unknown) => boolean; noun: string }> = {
  string: { test: (v) => typeof v === 'string', noun: 'a string' },
  number: { test: (v) => typeof v === 'number' && Number.isFinite(v), noun: 'a finite number' },
  boolean: { test: (v) => typeof v === 'boolean', noun: 'true or false' },
  object: { test: isPlainObject, noun: 'an object' },
  list: { test: Array.isArray, noun: 'a list' },
};

/**
 * What is wrong with `data` for these fields, each at its path (`data.priority`): a required field
 * missing, a value of the wrong type (null included: leave an optional field out instead), or a key the
 * template does not have. Empty when the data fits.
 */
export function templateDataIssues(fields: FieldSpec[], data: Record<string, unknown>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const known = new Set(fields.map((f) => f.name));
  for (const field of fields) {
    const path = `data.${field.name}`;
    if (!Object.hasOwn(data, field.name) || data[field.name] === undefined) {
      if (field.required) issues.push({ path, message: 'is required' });
      continue;
    }
    const value = data[field.name];
    const check = typeChecks[field.type as FieldType];
    if (!check) {
      issues.push({ path, message: `has an unknown type "${field.type}"` });
    } else if (!check.test(value)) {
      issues.push({ path, message: `must be ${check.noun}` });
    } else if (field.required && typeof value === 'string' && value.trim() === '') {
      issues.push({ path, message: 'must not be empty' });
    }
  }
  for (const key of Object.keys(data)) {
    if (!known.has(key)) issues.push({ path: `data.${key}`, message: 'is not a field of the template' });
  }
  return issues;
}

/** 400 naming every path at fault, or nothing. */
export function assertTemplateData(fields: FieldSpec[], data: Record<string, unknown>): void {
  const issues = templateDataIssues(fields, data);
  if (issues.length > 0) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      `The data does not fit the template: ${issues.map((i) => i.path).join(', ')}`,
      { fields: issues },
    );
  }
}

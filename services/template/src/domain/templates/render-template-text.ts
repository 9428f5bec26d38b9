import { type ParsedFormat, parseFormat } from '@tm/contracts';

const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A value as text: scalars as they are, a list of scalars joined by ", ", anything else as JSON. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isScalar(value)) return String(value);
  if (Array.isArray(value) && value.every(isScalar)) return value.map(String).join(', ');
  return JSON.stringify(value);
}

/**
 * The text a memory retains. With a format, its placeholders are filled from the data (an absent field
 * takes the placeholder's default, else nothing); without one, one `name: value` line per field present,
 * in the template's field order. Data is validated first, so every key is a field.
 */
export function renderTemplateText(
  template: { fields: Array<{ name: string }>; format?: string | null | undefined },
  data: Record<string, unknown>,
): string {
  const present = (name: string) => Object.hasOwn(data, name) && data[name] !== undefined;
  if (!template.format) {
    return template.fields
      .filter((f) => present(f.name))
      .map((f) => `${f.name}: ${valueText(data[f.name])}`)
      .join('\n');
  }
  let parsed: ParsedFormat;
  try {
    parsed = parseFormat(template.format);
  } catch {
    // Formats are checked when a template is saved; one that no longer parses renders as plain lines.
    return renderTemplateText({ fields: template.fields }, data);
  }
  return parsed.parts
    .map((part) => {
      if (part.kind === 'text') return part.text;
      return present(part.name) ? valueText(data[part.name]) : (part.default ?? '');
    })
    .join('');
}

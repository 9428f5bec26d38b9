import { type ParsedFormat, parseFormat, renderFormat } from '@tm/contracts';

const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A value as text: scalars as they are, a list of scalars joined by ", ", anything else as JSON. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isScalar(value)) return String(value);
  if (Array.isArray(value) && value.every(isScalar)) return value.map(String).join(', ');
  return JSON.stringify(value);
}

/**
 * The text a memory retains. With a format, its placeholders are filled from the data and its sections
 * kept only for fields with a value (libs/contracts renderFormat); without one, one `name: value` line
 * per field with a value, in the template's field order. A field absent, or left empty (blank text, an
 * empty list), has no value: its placeholder takes its default, else nothing, and its section and line
 * are left out, so an optional field left empty never puts a stand-in word into the sentence. Data is
 * validated first, so every key is a field.
 */
export function renderTemplateText(
  template: { fields: Array<{ name: string }>; format?: string | null | undefined },
  data: Record<string, unknown>,
): string {
  const textOf = (name: string): string | undefined => {
    if (!Object.hasOwn(data, name) || data[name] === undefined) return undefined;
    const text = valueText(data[name]);
    return text.trim() === '' ? undefined : text;
  };
  if (!template.format) {
    return template.fields
      .filter((f) => textOf(f.name) !== undefined)
      .map((f) => `${f.name}: ${textOf(f.name)}`)
      .join('\n');
  }
  let parsed: ParsedFormat;
  try {
    parsed = parseFormat(template.format);
  } catch {
    // Formats are checked when a template is saved; one that no longer parses renders as plain lines.
    return renderTemplateText({ fields: template.fields }, data);
  }
  return renderFormat(parsed, textOf).text;
}

import { CreateTemplateRequest, parseFormat, UpdateTemplateRequest } from '@tm/contracts';
import { describe, expect, it } from 'vitest';

const issues = (input: unknown) => {
  const result = CreateTemplateRequest.safeParse(input);
  return result.success
    ? []
    : result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};

const valid = {
  template_name: 'meeting-notes.v2',
  description: 'Notes of a meeting',
  fields: [
    { name: 'title', type: 'string', description: 'What about', required: true },
    { name: 'attendees', type: 'list', description: 'Who' },
  ],
  format: '{title} with {attendees|nobody}',
};

describe('a template definition', () => {
  it('when it is well formed, then it parses, with description and required defaulted', () => {
    const parsed = CreateTemplateRequest.parse({
      ...valid,
      fields: [{ name: 'title', type: 'string' }],
      format: '{title}',
    });

    expect(parsed.fields).toEqual([{ name: 'title', type: 'string', description: '', required: false }]);
    expect(issues(valid)).toEqual([]);
  });

  it.each([
    ['', 'template_name must not be empty'],
    ['9lives', 'template_name must start with a letter and use only letters, digits and . _ -'],
    ['has space', 'template_name must start with a letter and use only letters, digits and . _ -'],
    ['a'.repeat(65), 'template_name must be at most 64 characters'],
    ['d3b07384-d9a0-4c9b-8f3e-1c2b3a4d5e6f', 'template_name must not look like a UUID'],
  ])('when the name is %j, then it is refused: %s', (name, message) => {
    expect(issues({ ...valid, template_name: name })).toContainEqual({ path: 'template_name', message });
  });

  it('when field names repeat or are not identifiers, then each is named at its path', () => {
    const fields = [
      { name: 'title', type: 'string' },
      { name: 'title', type: 'number' },
      { name: 'due-date', type: 'string' },
    ];

    expect(issues({ ...valid, fields, format: undefined })).toEqual([
      { path: 'fields.2.name', message: expect.stringContaining('must be an identifier') },
      { path: 'fields.1.name', message: 'repeats the field name "title"' },
    ]);
  });

  it('when a field type is unknown, then the known types are listed', () => {
    expect(issues({ ...valid, fields: [{ name: 'x', type: 'date' }], format: undefined })).toEqual([
      { path: 'fields.0.type', message: 'type must be one of string, number, boolean, object, list' },
    ]);
  });

  it('when there are more than 100 fields, then the list is refused', () => {
    const fields = Array.from({ length: 101 }, (_, i) => ({ name: `f${i}`, type: 'string' }));

    expect(issues({ ...valid, fields, format: undefined })).toEqual([
      { path: 'fields', message: 'fields must hold at most 100 fields' },
    ]);
  });

  it('when the format names a field the template lacks or is malformed, then format is at fault', () => {
    expect(issues({ ...valid, format: '{title} at {room}' })).toEqual([
      { path: 'format', message: 'names the unknown field {room}' },
    ]);
    expect(issues({ ...valid, format: '{title' })).toEqual([
      {
        path: 'format',
        message:
          "the placeholder opened at position 0 is not closed with '}'; write '{{' for a literal brace",
      },
    ]);
  });

  it('when an update names an unknown key, then it is refused rather than ignored', () => {
    const result = UpdateTemplateRequest.safeParse({ fields: valid.fields, colour: 'red' });

    expect(result.success).toBe(false);
  });
});

describe('a template version label (the spec’s version)', () => {
  it.each(['1', '1.0', '2026-q4', 'v2+build.7'])(
    'when a create or update sends %j, then it is accepted',
    (version) => {
      expect(issues({ ...valid, version })).toEqual([]);
      expect(UpdateTemplateRequest.safeParse({ fields: valid.fields, version }).success).toBe(true);
    },
  );

  it.each(['', ' 1', '.1', 'a'.repeat(33), '1 0'])(
    'when it is %j, then it is refused at version',
    (version) => {
      expect(issues({ ...valid, version })).toEqual([
        {
          path: 'version',
          message: 'version must be 1-32 letters, digits and . _ + -, starting with a letter or digit',
        },
      ]);
    },
  );
});

describe('parseFormat', () => {
  it('then text, placeholders and defaults come apart in order', () => {
    expect(parseFormat('Hi {name|there}, {{ok}}').parts).toEqual([
      { kind: 'text', text: 'Hi ' },
      { kind: 'field', name: 'name', default: 'there', position: 3 },
      { kind: 'text', text: ', {ok}' },
    ]);
  });

  it('when a closing brace stands alone, then the format is refused', () => {
    expect(() => parseFormat('a } b')).toThrow("unmatched '}' at position 2");
  });
});

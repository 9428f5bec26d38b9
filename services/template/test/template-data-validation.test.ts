import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertTemplateData,
  type FieldSpec,
  templateDataIssues,
} from '../src/domain/templates/validate-template-data.js';

const fields: FieldSpec[] = [
  { name: 'title', type: 'string', required: true },
  { name: 'count', type: 'number' },
  { name: 'urgent', type: 'boolean' },
  { name: 'meta', type: 'object' },
  { name: 'tags', type: 'list' },
];

describe('templateDataIssues', () => {
  it('when every value has its field type, then there is nothing to report', () => {
    const data = { title: 'Q3 planning', count: 3, urgent: false, meta: { room: 'B' }, tags: ['a', 1] };

    expect(templateDataIssues(fields, data)).toEqual([]);
  });

  it('when optional fields are left out, then only required ones are needed', () => {
    expect(templateDataIssues(fields, { title: 'x' })).toEqual([]);
  });

  it('when a required field is missing, blank or of another type, then each is named at its path', () => {
    expect(templateDataIssues(fields, {})).toEqual([{ path: 'data.title', message: 'is required' }]);
    expect(templateDataIssues(fields, { title: '  ' })).toEqual([
      { path: 'data.title', message: 'must not be empty' },
    ]);
    expect(templateDataIssues(fields, { title: 7 })).toEqual([
      { path: 'data.title', message: 'must be a string' },
    ]);
  });

  it('when values have the wrong types, then every field at fault is reported with the type it needs', () => {
    const data = { title: 'x', count: '3', urgent: 'yes', meta: [1], tags: { a: 1 } };

    expect(templateDataIssues(fields, data)).toEqual([
      { path: 'data.count', message: 'must be a finite number' },
      { path: 'data.urgent', message: 'must be true or false' },
      { path: 'data.meta', message: 'must be an object' },
      { path: 'data.tags', message: 'must be a list' },
    ]);
  });

  it('when a value is null, then it is refused like any other wrong type', () => {
    expect(templateDataIssues(fields, { title: 'x', count: null })).toEqual([
      { path: 'data.count', message: 'must be a finite number' },
    ]);
  });

  it('when the data holds keys the template does not have, then each unknown key is refused', () => {
    expect(templateDataIssues(fields, { title: 'x', priority: 'high', owner: 'ana' })).toEqual([
      { path: 'data.priority', message: 'is not a field of the template' },
      { path: 'data.owner', message: 'is not a field of the template' },
    ]);
  });

  it('when a number is not finite, then it is refused (JSON cannot carry it anyway)', () => {
    expect(templateDataIssues(fields, { title: 'x', count: Number.POSITIVE_INFINITY })).toHaveLength(1);
  });

  it('for any data, then an issue is reported exactly for each unknown key', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue()), (extra) => {
        const data = { title: 'x', ...extra };
        const unknown = Object.keys(data).filter((k) => !fields.some((f) => f.name === k));
        const reported = templateDataIssues(fields, data).filter(
          (i) => i.message === 'is not a field of the template',
        );
        expect(reported.map((i) => i.path)).toEqual(unknown.map((k) => `data.${k}`));
      }),
    );
  });
});

describe('assertTemplateData', () => {
  it('when the data does not fit, then it throws a 400 validation_failed with every field issue', () => {
    expect(() => assertTemplateData(fields, { count: 'x', extra: 1 })).toThrow(
      expect.objectContaining({
        code: 'validation_failed',
        status: 400,
        fields: [
          { path: 'data.title', message: 'is required' },
          { path: 'data.count', message: 'must be a finite number' },
          { path: 'data.extra', message: 'is not a field of the template' },
        ],
      }),
    );
  });
});

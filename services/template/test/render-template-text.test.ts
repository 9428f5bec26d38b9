import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderTemplateText, valueText } from '../src/domain/templates/render-template-text.js';

const fields = [{ name: 'title' }, { name: 'date' }, { name: 'attendees' }, { name: 'meta' }];

describe('renderTemplateText', () => {
  it('when the template has a format, then its placeholders are filled from the data', () => {
    const text = renderTemplateText(
      { fields, format: 'Meeting "{title}" on {date} with {attendees}.' },
      { title: 'Budget', date: '2026-11-20', attendees: ['Ana', 'Ben'] },
    );

    expect(text).toBe('Meeting "Budget" on 2026-11-20 with Ana, Ben.');
  });

  it('when a field is absent, then its placeholder takes its default, else nothing', () => {
    const format = '{title} with {attendees|nobody}{date}';

    expect(renderTemplateText({ fields, format }, { title: 'Sync' })).toBe('Sync with nobody');
  });

  it('when an optional field is absent or left empty, then its section’s phrase is left out', () => {
    const format = 'Meeting "{title}"{#date} on {date}{/date}{#attendees} with {attendees}{/attendees}.';

    expect(renderTemplateText({ fields, format }, { title: 'Sync' })).toBe('Meeting "Sync".');
    expect(renderTemplateText({ fields, format }, { title: 'Sync', date: ' ', attendees: [] })).toBe(
      'Meeting "Sync".',
    );
    expect(renderTemplateText({ fields, format }, { title: 'Sync', attendees: ['Ana'] })).toBe(
      'Meeting "Sync" with Ana.',
    );
  });

  it('when the format doubles braces, then they render as literal braces', () => {
    expect(renderTemplateText({ fields, format: '{{{title}}}' }, { title: 'x' })).toBe('{x}');
  });

  it('when there is no format, then each field with a value is a `name: value` line in field order', () => {
    const text = renderTemplateText(
      { fields, format: null },
      { meta: { room: 'B' }, title: 'Budget', date: '', attendees: ['Ana'] },
    );

    expect(text).toBe('title: Budget\nattendees: Ana\nmeta: {"room":"B"}');
  });
});

describe('valueText', () => {
  it('then scalars print as themselves, lists of scalars joined, anything else as JSON', () => {
    expect([
      valueText('a'),
      valueText(2.5),
      valueText(true),
      valueText(['a', 1]),
      valueText([{ a: 1 }]),
    ]).toEqual(['a', '2.5', 'true', 'a, 1', '[{"a":1}]']);
  });

  it('for any non-blank text without braces, then a format of only that text renders to itself', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => s.trim() !== '' && !s.includes('{') && !s.includes('}')),
        (s) => {
          expect(renderTemplateText({ fields, format: s }, {})).toBe(s);
        },
      ),
    );
  });
});

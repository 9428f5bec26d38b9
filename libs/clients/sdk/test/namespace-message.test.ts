import { describe, expect, it } from 'vitest';
import { NAMESPACE_ARGUMENT } from '../src/tools/texts.js';
import { checkNamespace } from '../src/validation.js';

describe('the namespace rule as a caller reads it', () => {
  it('when a namespace breaks it, then the tools and the client refuse it in the same words, letters and digits included', () => {
    const [refusal] = checkNamespace('has space');

    expect(NAMESPACE_ARGUMENT.pattern.test('has space')).toBe(false);
    expect(refusal?.message).toBe(NAMESPACE_ARGUMENT.patternMessage);
    expect(NAMESPACE_ARGUMENT.patternMessage).toBe(
      'namespace must start with a letter or digit and use only letters, digits and . _ : / -',
    );
  });
});

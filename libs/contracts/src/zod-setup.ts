import { z } from 'zod';

// Say "required" for a missing field instead of zod's generic type message; the path names the field.
z.config({
  customError: (issue) =>
    issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined,
});

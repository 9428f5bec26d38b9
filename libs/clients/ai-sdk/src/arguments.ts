import { TIMESTAMP_MESSAGE } from '@text-memory/sdk/tools';
import { z } from 'zod';

/** A timestamp argument (`occurred_at`, `as_of`), with the rule every adapter's has. */
export const timestamp = (description: string) =>
  z.iso.datetime({ offset: true, message: TIMESTAMP_MESSAGE }).describe(description);

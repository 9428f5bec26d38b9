import { EVENT_ID_ARGUMENT, NAMESPACE_ARGUMENT, TIMESTAMP_MESSAGE } from '@text-memory/sdk/tools';
import { z } from 'zod';

// Input schemas shared by the tools, from the bounds every adapter shares (@text-memory/sdk/tools, which
// follows the SDK's own checks), so an agent sees the limits in the tool list and a bad call is refused
// before anything is sent.

export const namespaceArgument = (description: string) =>
  z
    .string()
    .min(1)
    .max(NAMESPACE_ARGUMENT.maxLength)
    .regex(NAMESPACE_ARGUMENT.pattern, NAMESPACE_ARGUMENT.patternMessage)
    .describe(description);

export const timestampArgument = (description: string) =>
  z.iso.datetime({ offset: true, message: TIMESTAMP_MESSAGE }).describe(description);

export const eventIdArgument = (description: string) =>
  z
    .string()
    .min(1)
    .max(EVENT_ID_ARGUMENT.maxLength)
    .regex(EVENT_ID_ARGUMENT.pattern, EVENT_ID_ARGUMENT.patternMessage)
    .describe(description);

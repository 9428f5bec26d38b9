import type { z } from 'zod';

/**
 * Ties a tool's output schema to the SDK's type of the same data, so the two cannot drift:
 * `mirrors<SdkType>()(schema)` compiles only when every value the schema gives is an SdkType and every
 * SdkType value fits the schema. The SDK's types are generated from the API's OpenAPI document, which is
 * generated from the service's own zod contracts; a field, an enum value or a nullability changed there
 * fails the MCP package's type check here, before a client ever sees a result its schema forbids.
 */
export const mirrors =
  <T>() =>
  <S extends z.ZodType<T>>(
    schema: S & ([T] extends [z.output<S>] ? unknown : 'the schema refuses values of the SDK type'),
  ): S =>
    schema;

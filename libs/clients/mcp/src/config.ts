import { credentialProblem, LIMITS } from '@text-memory/sdk';
import { z } from 'zod';

export interface Config {
  baseUrl: string;
  apiKey: string;
  /** Used by the tools whose call names no namespace. */
  defaultNamespace: string | undefined;
}

/** The configuration cannot start the server; the message names variables, never their secret values. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const Env = z.object({
  TM_BASE_URL: z
    .string({ error: 'TM_BASE_URL is not set: give the service address, e.g. http://127.0.0.1:8080' })
    .trim()
    .refine(
      (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol),
      'TM_BASE_URL must be an http:// or https:// address, e.g. http://127.0.0.1:8080',
    ),
  TM_API_KEY: z
    .string({ error: 'TM_API_KEY is not set: give an API key of your tenant (tmk_…)' })
    .trim()
    .min(1, 'TM_API_KEY is empty: give an API key of your tenant (tmk_…)')
    // The SDK's rule (a line break or a space inside, a typographic character): refused here at start,
    // with a message that says where the fault is and never quotes the key.
    .superRefine((value, ctx) => {
      const problem = value === '' ? undefined : credentialProblem(value);
      if (problem !== undefined)
        ctx.addIssue({
          code: 'custom',
          message: `TM_API_KEY ${problem}: give the key exactly as issued (tmk_…); it is not shown here`,
        });
    }),
  // Set but empty counts as not set, as a shell's `TM_NAMESPACE= tm-mcp` means.
  TM_NAMESPACE: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z
      .string()
      .trim()
      .max(LIMITS.namespaceMaxLength, `TM_NAMESPACE must be at most ${LIMITS.namespaceMaxLength} characters`)
      .regex(
        LIMITS.namespacePattern,
        'TM_NAMESPACE must start with a letter or digit and use only letters, digits and . _ : / -',
      )
      .optional(),
  ),
});

/** Read and check the environment once, at start: every problem at once, fail fast. */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = Env.safeParse(env);
  // Issues carry our messages only; zod's default messages could quote the input, i.e. the key.
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => issue.message).join('\n'));
  return {
    baseUrl: parsed.data.TM_BASE_URL,
    apiKey: parsed.data.TM_API_KEY,
    defaultNamespace: parsed.data.TM_NAMESPACE,
  };
}

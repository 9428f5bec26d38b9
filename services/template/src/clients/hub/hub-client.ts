import { AppError, ErrorCode } from '@tm/contracts';
import { z } from 'zod';
import { type HubAnswer, type HubHttpOptions, hubGet } from './hub-http.js';

/**
 * The hub's public endpoints a dataset import reads (docs/decisions/templates-and-imports.md "Hub datasets"): the Hub API's
 * dataset metadata, and the dataset viewer's validity, splits, info, size and row pages. Only JSON is
 * read; no file of a dataset is downloaded, and nothing of it is ever run.
 */

/** `GET {hub}/api/datasets/{id}[/revision/{rev}]`: the commit, access and files of a dataset repo. */
export const HubDatasetMetadata = z.looseObject({
  id: z.string(),
  sha: z.string().min(1),
  private: z.boolean().optional(),
  /** false, or the kind of gate ("auto", "manual"). */
  gated: z.union([z.boolean(), z.string()]).optional(),
  disabled: z.boolean().optional(),
  siblings: z.array(z.looseObject({ rfilename: z.string() })).optional(),
});
export type HubDatasetMetadata = z.infer<typeof HubDatasetMetadata>;

/** `GET {viewer}/is-valid?dataset=`: `viewer` is the full row access (the parquet export), `preview` the first rows. */
export const HubValidity = z.looseObject({ viewer: z.boolean(), preview: z.boolean() });

/** `GET {viewer}/splits?dataset=`. */
export const HubSplits = z.looseObject({
  splits: z.array(z.looseObject({ dataset: z.string(), config: z.string(), split: z.string() })),
});
export type HubSplits = z.infer<typeof HubSplits>;

/** `GET {viewer}/info?dataset=&config=`: features (columns) and each split's row count. */
export const HubInfo = z.looseObject({
  dataset_info: z.looseObject({
    features: z.record(z.string(), z.unknown()).optional(),
    splits: z
      .record(z.string(), z.looseObject({ num_examples: z.number().int().nonnegative().optional() }))
      .optional(),
  }),
});

/** `GET {viewer}/size?dataset=&config=`: rows per split as the parquet export holds them. */
export const HubSize = z.looseObject({
  size: z.looseObject({
    splits: z.array(z.looseObject({ split: z.string(), num_rows: z.number().int().nonnegative() })),
  }),
});

/** `GET {viewer}/rows?dataset=&config=&split=&offset=&length=` (length at most 100). */
export const HubRowsPage = z.looseObject({
  rows: z.array(
    z.looseObject({
      row_idx: z.number().int(),
      row: z.record(z.string(), z.unknown()),
      truncated_cells: z.array(z.string()).default([]),
    }),
  ),
  num_rows_total: z.number().int().nonnegative(),
});
export type HubRowsPage = z.infer<typeof HubRowsPage>;

/** A typed answer, or the refusal for the caller to map (status and the viewer's error code). */
export type HubResult<T> =
  | { ok: true; data: T }
  | { ok: false; status: number; errorCode: string | null; message: string | null };

export interface HubClientOptions extends HubHttpOptions {
  hubBaseUrl: string;
  viewerBaseUrl: string;
}

export type HubClient = ReturnType<typeof createHubClient>;

export function createHubClient(options: HubClientOptions) {
  async function get<S extends z.ZodType>(
    schema: S,
    url: URL,
    token: string | undefined,
    deadline: number | undefined,
  ): Promise<HubResult<z.output<S>>> {
    const answer = await hubGet(url, token, { ...options, deadline });
    if (answer.status >= 200 && answer.status < 300) {
      const parsed = schema.safeParse(answer.body);
      if (parsed.success) return { ok: true, data: parsed.data };
      throw new AppError(
        ErrorCode.HubUnavailable,
        `The model hub answered ${url.pathname} in a shape this service does not read`,
        { retryAfter: 5, cause: parsed.error },
      );
    }
    return { ok: false, status: answer.status, errorCode: answer.errorCode, message: errorText(answer) };
  }
  const viewer = (path: string, query: Record<string, string | number>) => {
    const url = new URL(`${options.viewerBaseUrl}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
    return url;
  };
  /** A call's options: the caller's token, and a deadline (epoch ms) for all its attempts. */
  type Call = { token?: string | undefined; deadline?: number | undefined };

  return {
    metadata: (dataset: string, revision: string | undefined, call: Call = {}) => {
      const path = `/api/datasets/${dataset}${revision === undefined ? '' : `/revision/${encodeURIComponent(revision)}`}`;
      return get(HubDatasetMetadata, new URL(`${options.hubBaseUrl}${path}`), call.token, call.deadline);
    },
    validity: (dataset: string, call: Call = {}) =>
      get(HubValidity, viewer('/is-valid', { dataset }), call.token, call.deadline),
    splits: (dataset: string, call: Call = {}) =>
      get(HubSplits, viewer('/splits', { dataset }), call.token, call.deadline),
    info: (dataset: string, config: string, call: Call = {}) =>
      get(HubInfo, viewer('/info', { dataset, config }), call.token, call.deadline),
    size: (dataset: string, config: string, call: Call = {}) =>
      get(HubSize, viewer('/size', { dataset, config }), call.token, call.deadline),
    rows: (
      at: { dataset: string; config: string; split: string; offset: number; length: number },
      call: Call = {},
    ) => get(HubRowsPage, viewer('/rows', at), call.token, call.deadline),
  };
}

/** The hub's own words (`{"error": "..."}`), when it gave any. */
function errorText(answer: HubAnswer): string | null {
  const body = answer.body as { error?: unknown } | null;
  return body && typeof body.error === 'string' ? body.error.slice(0, 500) : null;
}

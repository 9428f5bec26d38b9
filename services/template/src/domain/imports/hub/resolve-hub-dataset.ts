import { AppError, ErrorCode } from '@tm/contracts';
import type { HubClient, HubResult, HubSplits } from '../../../clients/hub/hub-client.js';
import { datasetGated, hubRefusal, remoteCodeRequired, splitUnavailable } from './hub-refusal.js';

export interface HubDatasetRequest {
  dataset: string;
  config?: string | undefined;
  split: string;
  revision?: string | undefined;
}

/** A dataset split the hub can serve whole, as its metadata describes it; nothing of its rows is read. */
export interface ResolvedHubDataset {
  dataset: string;
  config: string;
  split: string;
  /** The commit sha the hub reports for the dataset (the revision its viewer serves). */
  sha: string;
  rows: number;
  /** Column names, from the split's features. */
  columns: string[];
}

/**
 * Asks the hub, from its metadata only, whether a dataset split can be imported, and refuses it with
 * its own code before any row is read: a loading script (`remote_code_required`), a gate or private
 * repo without an accepted token (`dataset_gated`), an unknown config or split, a revision other than
 * the one the viewer serves, or a dataset with only a preview (`dataset_split_unavailable`, listing
 * the splits there are). The hub's outages arrive as hub_unavailable / hub_timeout from the client.
 */
export async function resolveHubDataset(
  request: HubDatasetRequest,
  hub: HubClient,
  call: { token?: string | undefined; deadline?: number | undefined },
): Promise<ResolvedHubDataset> {
  const { dataset } = request;
  const tokenSent = call.token !== undefined;
  let restricted = false;
  const refused = (r: Extract<HubResult<unknown>, { ok: false }>, available: string[] = []) =>
    hubRefusal(r, { dataset, tokenSent, restricted, available });

  // The dataset's repo first: its commit, its gate, and whether it is a loading script.
  const [metadata, current] = await Promise.all([
    hub.metadata(dataset, request.revision, call),
    request.revision === undefined ? undefined : hub.metadata(dataset, undefined, call),
  ]);
  if (!metadata.ok) {
    if (metadata.status === 404) {
      throw new AppError(
        ErrorCode.NotFound,
        request.revision === undefined
          ? `The model hub has no dataset ${dataset}`
          : `The model hub has no dataset ${dataset} at revision ${request.revision}`,
        {
          fields: [
            { path: request.revision === undefined ? 'dataset' : 'revision', message: 'not on the hub' },
          ],
        },
      );
    }
    throw refused(metadata);
  }
  const repoName = dataset.slice(dataset.indexOf('/') + 1);
  if (metadata.data.siblings?.some((file) => file.rfilename === `${repoName}.py`)) {
    throw remoteCodeRequired(dataset);
  }
  restricted = metadata.data.private === true || (metadata.data.gated ?? false) !== false;
  if (restricted && !tokenSent) {
    throw datasetGated(dataset, false, 401);
  }

  const [validity, splits] = await Promise.all([hub.validity(dataset, call), hub.splits(dataset, call)]);
  if (!splits.ok) throw refused(splits);
  if (!validity.ok) throw refused(validity, splitNames(splits.data));
  const config = pickConfig(request, splits.data);
  const available = splitsOf(splits.data, config);
  if (!available.includes(request.split)) {
    throw splitUnavailable(`Dataset ${dataset} (config ${config}) has no split ${request.split}`, available);
  }
  if (!validity.data.viewer) {
    throw splitUnavailable(
      `The model hub serves only a preview of ${dataset}, not all its rows (it has no parquet export); ` +
        'import an exported CSV or JSON file instead',
      available,
    );
  }
  const servedSha = current?.ok ? current.data.sha : metadata.data.sha;
  if (current !== undefined && !current.ok) throw refused(current, available);
  if (servedSha !== metadata.data.sha) {
    throw splitUnavailable(
      `The model hub serves the rows of ${dataset} at its current revision ${servedSha} only; revision ` +
        `${request.revision} is ${metadata.data.sha}`,
      available,
      'revision',
    );
  }

  const info = await hub.info(dataset, config, call);
  if (!info.ok) throw refused(info, available);
  let rows = info.data.dataset_info.splits?.[request.split]?.num_examples;
  if (rows === undefined) {
    const size = await hub.size(dataset, config, call);
    if (!size.ok) throw refused(size, available);
    rows = size.data.size.splits.find((s) => s.split === request.split)?.num_rows;
  }
  if (rows === undefined) {
    throw splitUnavailable(
      `The model hub does not say how many rows split ${request.split} holds`,
      available,
    );
  }
  return {
    dataset,
    config,
    split: request.split,
    sha: metadata.data.sha,
    rows,
    columns: Object.keys(info.data.dataset_info.features ?? {}),
  };
}

/** The config asked for; else the only one, or `default`; several without a default must be named. */
function pickConfig(request: HubDatasetRequest, splits: HubSplits): string {
  const configs = [...new Set(splits.splits.map((s) => s.config))];
  if (request.config !== undefined) {
    if (configs.includes(request.config)) return request.config;
    throw splitUnavailable(
      `Dataset ${request.dataset} has no config ${request.config} (configs: ${configs.join(', ') || 'none'})`,
      splitNames(splits),
      'config',
    );
  }
  const only = configs.length === 1 ? configs[0] : configs.includes('default') ? 'default' : undefined;
  if (only !== undefined) return only;
  throw splitUnavailable(
    `Dataset ${request.dataset} has several configs (${configs.join(', ') || 'none'}): name one in config`,
    splitNames(splits),
    'config',
  );
}

const splitsOf = (splits: HubSplits, config: string) =>
  splits.splits.filter((s) => s.config === config).map((s) => s.split);

/** Every split as `config/split`, for a message that must list them across configs. */
const splitNames = (splits: HubSplits) => splits.splits.map((s) => `${s.config}/${s.split}`);

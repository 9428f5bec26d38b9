/**
 * The source id every memory of a dataset import carries, so a reader can tell where it came from:
 * `hub:<owner/name>@<commit sha>:<config>/<split>#<row>`, the row being the hub's row index. The
 * request's bounds (dataset 96, config and split 48 characters) keep it within a source id's 256.
 */
export function datasetSourceId(source: {
  dataset: string;
  revision: string;
  config: string;
  split: string;
  row: number;
}): string {
  return `hub:${source.dataset}@${source.revision}:${source.config}/${source.split}#${source.row}`;
}

/** The memory source type of rows read from a model hub (files' rows are `import`). */
export const HUB_DATASET_SOURCE_TYPE = 'hub_dataset';

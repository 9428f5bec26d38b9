import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for a model hub (Hugging Face style), outside the system under test: these machines
 * reach no hub. It answers the documented shapes of the Hub API's `GET /api/datasets/{id}` (under
 * `/hub`) and the dataset viewer's `/is-valid`, `/splits`, `/info`, `/size` and `/rows` (under
 * `/viewer`), with their error answers: 401 without a token and 403 with a wrong one for a gated
 * dataset, 404 for an unknown dataset, config or split, 501 with `X-Error-Code:
 * DatasetWithScriptNotSupportedError` for a dataset read by a loading script.
 */
export interface StubDataset {
  id: string;
  sha: string;
  /** config → split → its rows (objects of column values). */
  configs: Record<string, Record<string, Array<Record<string, unknown>>>>;
  /** Column names of every split (the /info features). */
  columns: string[];
  /** A loading script in the repo (`<name>.py` unless named here), which the viewer will not run (501). */
  script?: boolean;
  scriptFile?: string;
  /** Gated: the viewer answers only this token (401 without one, 403 with another). */
  token?: string;
  /** No parquet export: only the first rows are previewable (`viewer: false`). */
  previewOnly?: boolean;
  /** Every answer this late (a hub that times out). */
  delayMs?: number;
  /** The first this-many answers are 503 (a hub that recovers). */
  failFirst?: number;
  /** Every row page is 503 (metadata answers): a started import waits in `processing`. */
  rowsUnavailable?: boolean;
  /** Rows the viewer marks as truncated, by index: their cell `note` is cut. */
  truncatedRows?: Set<number>;
}

export interface StubHub {
  /** HUB_BASE_URL and HUB_DATASETS_SERVER_URL for the template service. */
  env: { HUB_BASE_URL: string; HUB_DATASETS_SERVER_URL: string };
  add: (dataset: StubDataset) => void;
  get: (id: string) => StubDataset;
  /**
   * From now on the dataset's row pages are held unanswered until `release` (a hub as slow as the
   * test needs, exactly when it needs it); `waiting` is how many are held.
   */
  holdRows: (id: string) => { waiting: () => number; release: () => void };
  /** Every request as `path?query`, with the Authorization it carried. */
  requests: Array<{ url: string; authorization: string | undefined }>;
  close: () => Promise<void>;
}

const NOT_FOUND =
  'The dataset does not exist, or is not accessible without authentication (private or gated). ' +
  'Please check the spelling of the dataset name or retry with authentication.';
const SCRIPT =
  "The dataset viewer doesn't support this dataset because it runs arbitrary Python code. " +
  'You can convert it to a Parquet data-only dataset by using the convert_to_parquet CLI from the datasets library.';

export async function startStubHub(): Promise<StubHub> {
  const datasets = new Map<string, StubDataset>();
  const requests: StubHub['requests'] = [];
  const answered = new Map<string, number>();
  /** Row pages held (holdRows), by dataset: their replies, sent on release. */
  const held = new Map<string, Array<() => void>>();

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    requests.push({ url: `${url.pathname}${url.search}`, authorization: req.headers.authorization });
    const dataset = datasetOf(url);
    const known = dataset === undefined ? undefined : datasets.get(dataset);
    const seen = (answered.get(dataset ?? '') ?? 0) + 1;
    answered.set(dataset ?? '', seen);
    const reply = () => {
      if (known?.failFirst !== undefined && seen <= known.failFirst) {
        return send(res, 503, { error: 'The server is busy.' });
      }
      answer(req, res, url, known);
    };
    const holding = url.pathname === '/viewer/rows' ? held.get(dataset ?? '') : undefined;
    if (holding) holding.push(reply);
    else if (known?.delayMs) setTimeout(reply, known.delayMs).unref();
    else reply();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: { HUB_BASE_URL: `${base}/hub`, HUB_DATASETS_SERVER_URL: `${base}/viewer` },
    add: (dataset) => void datasets.set(dataset.id, dataset),
    get: (id) => {
      const found = datasets.get(id);
      if (!found) throw new Error(`no stub dataset ${id}`);
      return found;
    },
    holdRows: (id) => {
      const replies: Array<() => void> = [];
      held.set(id, replies);
      return {
        waiting: () => replies.length,
        release: () => {
          if (held.get(id) === replies) held.delete(id);
          for (const reply of replies.splice(0)) reply();
        },
      };
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function datasetOf(url: URL): string | undefined {
  const hub = /^\/hub\/api\/datasets\/([^/]+\/[^/]+)/.exec(url.pathname);
  return hub?.[1] ?? url.searchParams.get('dataset') ?? undefined;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function answer(req: IncomingMessage, res: ServerResponse, url: URL, dataset: StubDataset | undefined) {
  if (url.pathname.startsWith('/hub/')) return answerHubApi(res, url, dataset);
  if (!dataset) return send(res, 404, { error: NOT_FOUND }, { 'X-Error-Code': 'DatasetNotFoundError' });
  if (dataset.script) {
    return send(res, 501, { error: SCRIPT }, { 'X-Error-Code': 'DatasetWithScriptNotSupportedError' });
  }
  if (dataset.token !== undefined) {
    const sent = req.headers.authorization?.replace(/^Bearer\s+/i, '');
    if (sent === undefined)
      return send(res, 401, { error: NOT_FOUND }, { 'X-Error-Code': 'ExternalUnauthenticatedError' });
    if (sent !== dataset.token) {
      return send(
        res,
        403,
        { error: 'The dataset is gated: access not granted' },
        { 'X-Error-Code': 'ExternalAuthenticatedError' },
      );
    }
  }
  const config = url.searchParams.get('config');
  const split = url.searchParams.get('split');
  const splitRows = config === null || split === null ? undefined : dataset.configs[config]?.[split];
  switch (url.pathname) {
    case '/viewer/is-valid':
      return send(res, 200, {
        preview: true,
        viewer: !dataset.previewOnly,
        search: !dataset.previewOnly,
        filter: !dataset.previewOnly,
        statistics: false,
      });
    case '/viewer/splits':
      return send(res, 200, {
        splits: Object.entries(dataset.configs).flatMap(([c, splits]) =>
          Object.keys(splits).map((s) => ({ dataset: dataset.id, config: c, split: s })),
        ),
        pending: [],
        failed: [],
      });
    case '/viewer/info': {
      const splits = config === null ? undefined : dataset.configs[config];
      if (!splits) return send(res, 404, { error: 'Not found.' }, { 'X-Error-Code': 'ConfigNotFoundError' });
      return send(res, 200, {
        dataset_info: {
          description: '',
          features: Object.fromEntries(dataset.columns.map((c) => [c, { dtype: 'string', _type: 'Value' }])),
          config_name: config,
          splits: Object.fromEntries(
            Object.entries(splits).map(([s, rows]) => [
              s,
              { name: s, num_bytes: 0, num_examples: rows.length, dataset_name: dataset.id },
            ]),
          ),
        },
        partial: false,
      });
    }
    case '/viewer/rows': {
      if (dataset.rowsUnavailable) return send(res, 503, { error: 'The server is busy.' });
      if (dataset.previewOnly)
        return send(
          res,
          501,
          { error: 'No parquet export' },
          { 'X-Error-Code': 'ParquetResponseEmptyError' },
        );
      if (!splitRows)
        return send(res, 404, { error: 'Not found.' }, { 'X-Error-Code': 'SplitNotFoundError' });
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const length = Number(url.searchParams.get('length') ?? 100);
      if (!(length >= 0 && length <= 100)) {
        return send(res, 422, { error: 'Parameter "length" must be between 0 and 100.' });
      }
      return send(res, 200, {
        features: dataset.columns.map((name, i) => ({
          feature_idx: i,
          name,
          type: { dtype: 'string', _type: 'Value' },
        })),
        rows: splitRows.slice(offset, offset + length).map((row, i) => {
          const truncated = dataset.truncatedRows?.has(offset + i) ?? false;
          return {
            row_idx: offset + i,
            row: truncated ? { ...row, note: String(row.note).slice(0, 10) } : row,
            truncated_cells: truncated ? ['note'] : [],
          };
        }),
        num_rows_total: splitRows.length,
        num_rows_per_page: 100,
        partial: false,
      });
    }
    default:
      return send(res, 404, { error: 'Not found.' });
  }
}

function answerHubApi(res: ServerResponse, url: URL, dataset: StubDataset | undefined) {
  if (!dataset) return send(res, 401, { error: 'Invalid username or password.' });
  const revision = /\/revision\/([^/]+)$/.exec(url.pathname)?.[1];
  if (revision !== undefined && revision !== 'main' && revision !== dataset.sha) {
    return send(
      res,
      404,
      { error: `Invalid rev id: ${decodeURIComponent(revision)}` },
      { 'X-Error-Code': 'RevisionNotFound' },
    );
  }
  const name = dataset.id.split('/')[1];
  return send(res, 200, {
    _id: '65f0c0ffee',
    id: dataset.id,
    author: dataset.id.split('/')[0],
    sha: dataset.sha,
    lastModified: '2026-11-01T00:00:00.000Z',
    private: false,
    gated: dataset.token === undefined ? false : 'manual',
    disabled: false,
    downloads: 0,
    likes: 0,
    tags: [],
    cardData: { license: 'cc-by-4.0', pretty_name: name },
    siblings: [
      { rfilename: '.gitattributes' },
      { rfilename: 'README.md' },
      ...(dataset.script
        ? [{ rfilename: dataset.scriptFile ?? `${name}.py` }]
        : [{ rfilename: 'data/train-00000-of-00001.parquet' }]),
    ],
  });
}

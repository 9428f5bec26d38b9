import { AppError, ErrorCode } from '@tm/contracts';

/** The dataset viewer's code for a dataset that only a loading script of its own can read. */
const SCRIPT_ERROR_CODE = 'DatasetWithScriptNotSupportedError';

export function remoteCodeRequired(dataset: string): AppError {
  return new AppError(
    ErrorCode.RemoteCodeRequired,
    `Dataset ${dataset} is read by a loading script of its own (remote code). This service never runs ` +
      'code from a dataset: import a parquet or CSV export of it instead (as a file, or a dataset that ' +
      'holds the exported data files)',
    { fields: [{ path: 'dataset', message: 'needs its own loading script, which is never run' }] },
  );
}

export function datasetGated(dataset: string, tokenSent: boolean, status: number): AppError {
  return new AppError(
    ErrorCode.DatasetGated,
    tokenSent
      ? `The model hub refused the hub_token for dataset ${dataset} (${status}): send a token whose account ` +
          'has access to it (for a gated dataset, accept its conditions on the hub first)'
      : `Dataset ${dataset} is gated or private on the model hub (${status}): send a hub_token with access to it`,
    { fields: [{ path: 'hub_token', message: tokenSent ? 'has no access to the dataset' : 'is required' }] },
  );
}

/** A split (or config) the hub does not have, or cannot serve whole; `available` lists what it has. */
export function splitUnavailable(reason: string, available: string[], path = 'split'): AppError {
  const listed = available.length > 0 ? available.join(', ') : 'none';
  return new AppError(ErrorCode.DatasetSplitUnavailable, `${reason}. Available splits: ${listed}`, {
    fields: [{ path, message: `available: ${listed}` }],
  });
}

/**
 * What a hub refusal means for one dataset. 401/403 is a gate, and so is a 404 for a dataset the hub
 * says is gated or private (the viewer hides what a token cannot see); the viewer's 501 (or its error
 * code) a loading script; the rest, that the hub cannot serve the split (`available` lists the
 * splits it knows, for the message).
 */
export function hubRefusal(
  refusal: { status: number; errorCode: string | null; message: string | null },
  context: { dataset: string; tokenSent: boolean; restricted?: boolean; available: string[] },
): AppError {
  if (refusal.status === 501 || refusal.errorCode === SCRIPT_ERROR_CODE)
    return remoteCodeRequired(context.dataset);
  if (refusal.status === 401 || refusal.status === 403 || (refusal.status === 404 && context.restricted)) {
    return datasetGated(context.dataset, context.tokenSent, refusal.status);
  }
  const said = refusal.message ? `: ${refusal.message}` : '';
  return splitUnavailable(
    `The model hub cannot serve this split of ${context.dataset} (${refusal.status}${said})`,
    context.available,
  );
}

import type { Readable } from 'node:stream';
import { AppError, ErrorCode } from '@tm/contracts';
import busboy from 'busboy';
import type { Request } from 'express';

export interface UploadLimits {
  /** Largest file part; more is discarded as it streams in and the upload refused (413). */
  maxBytes: number;
  /** The client's silence longer than this refuses the upload (408 upload_timeout). */
  stallMs: number;
}

export interface IncomingFile {
  /** The form fields that came before the file part. */
  fields: Record<string, string>;
  fileName: string;
  /** The file's bytes as they arrive; `truncated()` says whether the size limit cut it. */
  stream: Readable;
  truncated: () => boolean;
}

/**
 * Streams a multipart/form-data request to `handleFile` without buffering it: the file must be the
 * last part, named `file` (fields after it are not seen). Answers only once the client has sent its
 * whole body (a refusal mid-upload would otherwise reach it as a reset connection), except when the
 * upload stalls, where waiting is the problem.
 */
export function receiveMultipartUpload<T>(
  req: Request,
  limits: UploadLimits,
  handleFile: (file: IncomingFile) => Promise<T>,
): Promise<T> {
  if (!req.is('multipart/form-data')) {
    return Promise.reject(
      new AppError(
        ErrorCode.UnsupportedMediaType,
        'Upload the file as multipart/form-data, in a part named file (or name a hub dataset in a JSON body)',
      ),
    );
  }
  return new Promise<T>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: limits.maxBytes, files: 1, fields: 20, fieldSize: 16 * 1024 },
      });
    } catch (err) {
      reject(
        new AppError(ErrorCode.ValidationFailed, 'Malformed multipart/form-data request', { cause: err }),
      );
      return;
    }
    const fields: Record<string, string> = {};
    let handled: Promise<T> | undefined;
    let file: Readable | undefined;
    let settled = false;
    const requestEnded = new Promise<void>((done) => {
      req.once('end', done);
      req.once('close', done);
    });

    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const fail = (err: unknown) => {
      // stop parsing but read the rest of the body, so the client hears the answer
      req.unpipe(parser);
      req.resume();
      void requestEnded.then(() => finish(() => reject(err)));
    };

    // The stall timer measures only the client's silence: it runs while the body flows and stops
    // while we hold the upload back (backpressure pauses the request) and once the body has ended,
    // so reading a large file after it arrived is never taken for a stalled upload.
    let timer: NodeJS.Timeout | undefined;
    let bodyEnded = false;
    const armStallTimer = () => {
      clearTimeout(timer);
      if (!settled && !bodyEnded && !req.isPaused()) timer = setTimeout(onStall, limits.stallMs);
    };
    function onStall() {
      const err = new AppError(
        ErrorCode.UploadTimeout,
        `The upload sent nothing for ${Math.round(limits.stallMs / 1000)} s and was abandoned`,
      );
      file?.destroy(err);
      req.unpipe(parser);
      finish(() => reject(err));
    }
    req.on('data', armStallTimer);
    req.on('resume', armStallTimer);
    req.on('pause', () => clearTimeout(timer));
    req.once('end', () => {
      bodyEnded = true;
      clearTimeout(timer);
    });
    armStallTimer();

    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || handled) {
        stream.resume(); // not ours: let it pass
        return;
      }
      file = stream;
      let truncated = false;
      stream.once('limit', () => {
        truncated = true;
      });
      handled = handleFile({
        fields: { ...fields },
        fileName: info.filename ?? '',
        stream,
        truncated: () => truncated,
      });
      handled.then(
        (value) => void requestEnded.then(() => finish(() => resolve(value))),
        (err: unknown) => {
          stream.resume();
          fail(err);
        },
      );
    });
    parser.on('error', (err) =>
      fail(new AppError(ErrorCode.ValidationFailed, 'Malformed multipart/form-data request', { cause: err })),
    );
    parser.on('close', () => {
      if (!handled)
        fail(
          new AppError(ErrorCode.ValidationFailed, 'The form has no file part named file', {
            fields: [{ path: 'file', message: 'is required (as the last part of the form)' }],
          }),
        );
    });
    req.pipe(parser);
  });
}

import { AppError, ErrorCode, isReservedNamespace, RESERVED_NAMESPACE_PREFIX } from '@tm/contracts';

/** The smoke test's namespaces are not the public API's to use. */
export function refuseReserved(namespace: string): string {
  if (isReservedNamespace(namespace)) {
    throw new AppError(ErrorCode.ValidationFailed, 'This namespace is reserved', {
      fields: [{ path: 'namespace', message: `must not start with ${RESERVED_NAMESPACE_PREFIX}` }],
    });
  }
  return namespace;
}

// `@text-memory/sdk/tools`: what the memory tools of every framework adapter share (texts, bounds,
// answer texts, error lines, the remember write, the permission each tool needs). No dependencies: the
// adapters bring their own schema library.
export {
  type RecallReport,
  type RememberReceipt,
  recallAnswer,
  recallReport,
  rememberAnswer,
  rememberReceipt,
} from './answers.js';
export { errorLines, isTextMemoryError } from './error-lines.js';
export { type RememberArguments, rememberWrite } from './remember-write.js';
export {
  EVENT_ID_ARGUMENT,
  NAMESPACE_ARGUMENT,
  RECALL_TOOL,
  REMEMBER_TOOL,
  TIMESTAMP_MESSAGE,
} from './texts.js';
export { TOOL_PERMISSIONS } from './tool-permissions.js';

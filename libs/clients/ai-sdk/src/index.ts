export { type MemoryTools, type MemoryToolsOptions, memoryTools } from './memory-tools.js';
export { RECALL_DESCRIPTION, type RecallInput, type RecallResult } from './recall-tool.js';
export { REMEMBER_DESCRIPTION, type RememberInput, type RememberResult } from './remember-tool.js';
export { TextMemoryToolError } from './tool-error.js';

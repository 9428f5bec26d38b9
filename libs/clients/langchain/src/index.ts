export { type MemoryDocumentMetadata, toDocuments } from './memory-documents.js';
export { type MemoryToolsOptions, memoryTools } from './memory-tools.js';
export { type RecallArtifact, type RecallTool, recallTool } from './recall-tool.js';
export { type RememberArtifact, type RememberTool, rememberTool } from './remember-tool.js';
export { TextMemoryRetriever, type TextMemoryRetrieverInput } from './retriever.js';
export { TextMemoryToolError } from './tool-error.js';

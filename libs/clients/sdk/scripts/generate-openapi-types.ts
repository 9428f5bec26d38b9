// Writes libs/clients/sdk/openapi.json and src/generated/openapi.ts (see openapi-snapshot.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { renderSnapshot, SNAPSHOT_FILES } from './openapi-snapshot.js';

const { document, types } = await renderSnapshot();
for (const [file, text] of [
  [SNAPSHOT_FILES.document, document],
  [SNAPSHOT_FILES.types, types],
] as const) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`wrote ${file}`);
}

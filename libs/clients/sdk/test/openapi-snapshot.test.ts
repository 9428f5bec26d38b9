import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSnapshot, SNAPSHOT_FILES } from '../scripts/openapi-snapshot.js';

// The SDK ships a snapshot of the document and the types generated from it; both must be what the
// schemas in libs/contracts make today. Fix: `pnpm --filter @text-memory/sdk generate`.
describe('the committed OpenAPI snapshot and its generated types', () => {
  it('when the schemas are rendered again, then libs/clients/sdk/openapi.json is unchanged', async () => {
    const { document } = await renderSnapshot();
    expect(
      readFileSync(SNAPSHOT_FILES.document, 'utf8'),
      'openapi.json is stale: run the generate script',
    ).toBe(document);
  });

  it('when the types are generated again, then src/generated/openapi.ts is unchanged', async () => {
    const { types } = await renderSnapshot();
    expect(
      readFileSync(SNAPSHOT_FILES.types, 'utf8'),
      'generated types are stale: run the generate script',
    ).toBe(types);
  });
});

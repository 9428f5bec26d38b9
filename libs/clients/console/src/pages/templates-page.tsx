import { useState } from 'react';
import { DataKeyPicker } from '../components/data-key-picker.js';
import { NeedsDataKey } from '../components/needs-data-key.js';
import { Page } from '../components/page.js';
import { MarketplaceBrowser } from './templates/marketplace-browser.js';
import { PrivateTemplates } from './templates/private-templates.js';
import { TemplateMemoryForm } from './templates/template-memory-form.js';
import type { TemplateChoice } from './templates/template-types.js';

/** Private templates, the marketplace, and memories made from either (the /v1 routes take an API key). */
export function TemplatesPage() {
  const [choice, setChoice] = useState<TemplateChoice>();
  const use = (next: TemplateChoice) => {
    setChoice(next);
    // The form appears at the top of the page; take the reader there.
    requestAnimationFrame(() => document.getElementById('template-memory')?.scrollIntoView());
  };
  return (
    <Page title="Templates" summary="Private templates, the marketplace, and memories made from a template.">
      <DataKeyPicker />
      <NeedsDataKey>
        <div id="template-memory">
          {choice && (
            <TemplateMemoryForm
              key={choice.source === 'private' ? `p:${choice.name}` : `m:${choice.id}`}
              choice={choice}
              onClose={() => setChoice(undefined)}
            />
          )}
        </div>
        <PrivateTemplates onUse={use} />
        <MarketplaceBrowser onUse={use} />
      </NeedsDataKey>
    </Page>
  );
}

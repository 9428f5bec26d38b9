import { DataKeyPicker } from '../components/data-key-picker.js';
import { NeedsDataKey } from '../components/needs-data-key.js';
import { Page } from '../components/page.js';
import { RecallPanel } from './playground/recall-panel.js';
import { WritePanel } from './playground/write-panel.js';

/** Write and recall by hand with an API key, seeing the whole answer: the quickest way to try the API. */
export function PlaygroundPage() {
  return (
    <Page
      title="Playground"
      summary="Write an event and recall it with an API key, and see the whole answer."
    >
      <DataKeyPicker />
      <NeedsDataKey>
        <div className="cards">
          <WritePanel />
          <RecallPanel />
        </div>
      </NeedsDataKey>
    </Page>
  );
}

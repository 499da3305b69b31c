// The Operators tab and its panel, added to the side panel's tabs for admins (index.html has the other four).
import type { Api } from './api.ts';
import { createOperatorsPanel } from './operators-panel.ts';

export function addOperatorsTab(opts: { api: Api; timezone: string; showError: (err: unknown) => void }): void {
  const tablist = document.querySelector('[role=tablist]') as HTMLElement;
  const tab = document.createElement('button');
  Object.assign(tab, { type: 'button', id: 'tab-operators', textContent: 'Operators' });
  tab.setAttribute('role', 'tab');
  tab.setAttribute('aria-controls', 'operators');
  tab.setAttribute('aria-selected', 'false');
  tablist.append(tab);
  const section = document.createElement('section');
  Object.assign(section, { id: 'operators', hidden: true });
  section.setAttribute('role', 'tabpanel');
  section.setAttribute('aria-labelledby', 'tab-operators');
  tablist.parentElement?.append(section);
  const panel = createOperatorsPanel(section, opts);
  // Loaded when first shown: most of an admin's shift is spent on the other tabs.
  let loaded = false;
  tab.addEventListener('click', () => {
    if (loaded) return;
    loaded = true;
    void panel.refresh().catch(opts.showError);
  });
}

// The map's legend (docs/console.md "Map"): what the vessel colours, the zone colours and lines, the rings and
// the dashed track mean. Drawn from the same tables the map draws with, so the two cannot disagree; a
// <details> in the map's corner, open at first, that the operator can fold away (remembered in localStorage).
import { LEVEL_COLOURS } from './map.ts';
import { CATEGORY_COLOURS, UNKNOWN_COLOUR } from './vessel-feed.ts';

const arrow = (colour: string, size = 14) => `<svg width="${size}" height="${size}" viewBox="0 0 24 24" aria-hidden="true"><path d="M12 1 21 22 12 17 3 22Z" fill="${colour}" stroke="#fff" stroke-width="1.5"/></svg>`;
const swatch = (colour: string, dashed: boolean) => `<span class="swatch" style="background:${colour}2e;border:2px ${dashed ? 'dashed' : 'solid'} ${colour}" aria-hidden="true"></span>`;
const ring = (colour: string) => `<span class="ring" style="border-color:${colour}" aria-hidden="true"></span>`;

const FOLDED = 'pss.console.legend-folded';

export function createMapLegend(container: HTMLElement): HTMLElement {
  const legend = document.createElement('details');
  legend.className = 'map-legend';
  // Open until the operator folds it; then folded on this browser from then on.
  legend.open = localStorage.getItem(FOLDED) !== 'true';
  legend.addEventListener('toggle', () => localStorage.setItem(FOLDED, String(!legend.open)));
  // Pleasure and sailing craft share a colour: one entry.
  const categories = new Map<string, string[]>();
  for (const [category, colour] of Object.entries(CATEGORY_COLOURS)) categories.set(colour, [...(categories.get(colour) ?? []), category.replace(/_/g, ' ')]);
  legend.innerHTML = `
    <summary>Legend</summary>
    <h3>Vessels</h3>
    <ul>${[...categories].map(([colour, names]) => `<li>${arrow(colour)} ${names.join(', ')}</li>`).join('')}
      <li>${arrow(UNKNOWN_COLOUR)} other, unknown</li>
      <li>${arrow(UNKNOWN_COLOUR, 10)} smaller: not moving</li></ul>
    <h3>Zones by alert level</h3>
    <ul>${Object.entries(LEVEL_COLOURS).map(([level, colour]) => `<li>${swatch(colour, false)} ${level}</li>`).join('')}
      <li>${swatch('#334155', false)} restricted</li>
      <li>${swatch('#334155', true)} other types</li>
      <li class="wide"><span class="swatch buffer" aria-hidden="true"></span> light band to a dashed line: buffer</li></ul>
    <h3>Marks</h3>
    <ul><li class="wide">${ring(LEVEL_COLOURS.critical as string)} ring: a new event there, by severity (15 s)</li>
      <li class="wide"><span class="track" aria-hidden="true"></span> dashed: the open vessel's track (24 h)</li></ul>`;
  container.append(legend);
  return legend;
}

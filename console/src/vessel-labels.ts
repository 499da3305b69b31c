// Vessel names on the map without a glyph server (docs/console.md "Map"). MapLibre draws text only from
// glyph PBFs, which an offline console would have to ship; instead each name is drawn once on a canvas in the
// browser's own sans-serif font and handed to MapLibre as an icon image ('label:<name>') when a label layer
// first needs it (the missing-image resolver), so only vessels in view at label zoom cost anything. At most
// LABEL_IMAGES names are drawn; past that a name gets an empty image and no label, so a port with thousands of
// named vessels cannot grow the page's memory without bound. Zone names are drawn the same way.
import type { Map as MlMap } from 'maplibre-gl';

export const LABEL_PREFIX = 'label:';
/** Zone names (zone-labels layer), drawn the same way, larger and in the zone's level colour. */
export const ZONE_LABEL_PREFIX = 'zone:';
export const LABEL_IMAGES = 1_000;
const FONT_PX = 12;
const ZONE_FONT_PX = 13;

function drawLabel(text: string, ratio: number, px = FONT_PX, colour = '#0f172a'): ImageData {
  const canvas = document.createElement('canvas');
  const g = canvas.getContext('2d') as CanvasRenderingContext2D;
  const font = `600 ${px * ratio}px system-ui, sans-serif`;
  g.font = font;
  const halo = 3 * ratio;
  canvas.width = Math.ceil(g.measureText(text).width + 2 * halo);
  canvas.height = Math.ceil((px + 6) * ratio);
  // Resizing the canvas resets its state.
  g.font = font;
  g.textBaseline = 'middle';
  g.lineJoin = 'round';
  g.lineWidth = halo;
  g.strokeStyle = 'rgba(255,255,255,0.9)';
  g.fillStyle = colour;
  g.strokeText(text, halo, canvas.height / 2);
  g.fillText(text, halo, canvas.height / 2);
  return g.getImageData(0, 0, canvas.width, canvas.height);
}

/**
 * Makes the map draw 'label:<name>' and 'zone:<level>:<name>' images on demand. Zone names are a few hundred
 * at most (the zones the page loaded), so they do not count against LABEL_IMAGES.
 */
export function installVesselLabels(map: MlMap, levelColours: Record<string, string> = {}): void {
  let drawn = 0;
  const ratio = Math.min(2, window.devicePixelRatio || 1);
  map.setMissingStyleImageResolver((id) => {
    if (id.startsWith(ZONE_LABEL_PREFIX) && !map.hasImage(id)) {
      const [level = '', ...name] = id.slice(ZONE_LABEL_PREFIX.length).split(':');
      return void map.addImage(id, drawLabel(name.join(':').slice(0, 60), ratio, ZONE_FONT_PX, levelColours[level] ?? '#0f172a'), { pixelRatio: ratio });
    }
    if (!id.startsWith(LABEL_PREFIX) || map.hasImage(id)) return;
    const text = id.slice(LABEL_PREFIX.length).slice(0, 40);
    if (text === '' || drawn >= LABEL_IMAGES) return void map.addImage(id, { width: 1, height: 1, data: new Uint8Array(4) });
    drawn++;
    map.addImage(id, drawLabel(text, ratio), { pixelRatio: ratio });
  });
}

// The live map (docs/console.md "Map"): MapLibre GL on a sea-coloured background with the land as vector tiles
// cut by the api role (/console/land/{z}/{x}/{y}.pbf: the site's own land in its box, Natural Earth outside),
// the zones by alert level with their buffers and names, and the vessels as WebGL symbol layers (one per shard of the vessels, vessel-pack.ts) whose GeoJSON
// is built in MapLibre's worker from packed arrays the page posts once per animation frame at most
// (vessel-feed.ts, vessel-worker.ts), with names drawn as label images at high zoom (vessel-labels.ts).
import * as maplibregl from 'maplibre-gl';
import type { GeoJSONSource, Map as MlMap, MapLayerMouseEvent } from 'maplibre-gl';
import { zoneFeatures, zoneLabelPoint, zonesBounds, type ZoneGeometry } from './geometry.ts';
import { createVesselFeed, UNKNOWN_COLOUR, type VesselPosition } from './vessel-feed.ts';
import { SHARDS, unpack } from './vessel-pack.ts';
import { installVesselLabels, LABEL_PREFIX, ZONE_LABEL_PREFIX } from './vessel-labels.ts';
import { bufferFeatures, type ZoneBuffer } from './zone-buffer.ts';

export type { VesselPosition } from './vessel-feed.ts';
export const LEVEL_COLOURS: Record<string, string> = { low: '#2563eb', medium: '#ca8a04', high: '#ea580c', critical: '#dc2626' };
/** Names are shown from this zoom on: a few hundred metres across the screen, where they can be read. */
const LABEL_MIN_ZOOM = 13;
const SHARD_IDS = Array.from({ length: SHARDS }, (_, s) => s);
/** The vessel arrow layers, one per shard, where clicks find vessels. */
const VESSEL_LAYERS = SHARD_IDS.map((s) => `vessels-${s}`);

type MapZone = { id: string; name: string; type: string; alert_level: string; geometry: ZoneGeometry; buffer?: ZoneBuffer | null };

export interface LiveMap {
  map: MlMap;
  setZones(zones: MapZone[]): void;
  /** Frames the zones (the first view): at once, no animation. */
  fitZones(zones: MapZone[]): void;
  /** Flies to a place and circles it (an event's location). */
  flyToPoint(lng: number, lat: number, severity?: string): void;
  /** Applies a positions message; the map takes the changes at the next animation frame. */
  applyPositions(positions: VesselPosition[], left: number[], snapshot: boolean): void;
  setCategory(mmsi: number, category: string | undefined, name: string | undefined): void;
  showTrack(track: GeoJSON.Feature | null): void;
  flashEvent(lng: number, lat: number, severity: string): void;
  vesselCount(): number;
  vessel(mmsi: number): VesselPosition | undefined;
  onVesselClick(handler: (mmsi: number) => void): void;
  bounds(): [number, number, number, number];
}

function arrowImage(): ImageData {
  const size = 24;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  const g = canvas.getContext('2d') as CanvasRenderingContext2D;
  g.fillStyle = '#000';
  g.beginPath();
  g.moveTo(12, 1);
  g.lineTo(21, 22);
  g.lineTo(12, 17);
  g.lineTo(3, 22);
  g.closePath();
  g.fill();
  return g.getImageData(0, 0, size, size);
}

const empty = (): GeoJSON.FeatureCollection => ({ type: 'FeatureCollection', features: [] });

/** Pixels at zoom 0 (a feature property) doubled per zoom level: a length in metres on the ground. */
function metres(property: string): maplibregl.ExpressionSpecification {
  return ['interpolate', ['exponential', 2], ['zoom'], 0, ['get', property], 22, ['*', ['get', property], 4194304]];
}

function levelColour(): maplibregl.ExpressionSpecification {
  return ['match', ['get', 'alert_level'], 'critical', LEVEL_COLOURS.critical as string, 'high', LEVEL_COLOURS.high as string, 'medium', LEVEL_COLOURS.medium as string, LEVEL_COLOURS.low as string];
}

/** The land tiles' deepest zoom (api/console/land-tile-cutter.ts LAND_MAX_ZOOM); the map over-zooms past it. */
const LAND_MAX_ZOOM = 14;
const ZONE_LABEL_MIN_ZOOM = 10;

function style(tileUrl: string | null): maplibregl.StyleSpecification {
  // Absolute, as MapLibre's worker needs; '{z}' must stay unescaped, which new URL() would not do.
  const land = `${location.origin}${location.pathname.replace(/[^/]*$/, '')}land/{z}/{x}/{y}.pbf`;
  return {
    version: 8,
    sources: {
      land: { type: 'vector', tiles: [land], minzoom: 0, maxzoom: LAND_MAX_ZOOM, attribution: '© OpenStreetMap contributors (ODbL), Natural Earth' },
      ...(tileUrl ? { tiles: { type: 'raster', tiles: [tileUrl], tileSize: 256 } } : {}),
      zones: { type: 'geojson', data: empty() },
      'zone-labels': { type: 'geojson', data: empty() },
      buffers: { type: 'geojson', data: empty() },
      ...Object.fromEntries(SHARD_IDS.map((s) => [`vessels-${s}`, { type: 'geojson', data: empty(), maxzoom: 12, buffer: 32 } as const])),
      track: { type: 'geojson', data: empty() },
      flashes: { type: 'geojson', data: empty() },
    },
    layers: [
      { id: 'sea', type: 'background', paint: { 'background-color': '#a9c9de' } },
      { id: 'land', type: 'fill', source: 'land', 'source-layer': 'land', paint: { 'fill-color': '#efe9dc', 'fill-outline-color': '#9aa5ad' } },
      ...(tileUrl ? [{ id: 'tiles', type: 'raster' as const, source: 'tiles' }] : []),
      // The buffer: a light band from the zone's edge out to its distance, under the zone, and a dashed line at the distance.
      { id: 'zone-buffer-band', type: 'line', source: 'buffers', filter: ['==', ['get', 'kind'], 'band'], layout: { 'line-cap': 'round', 'line-join': 'round' }, paint: { 'line-color': levelColour(), 'line-opacity': 0.12, 'line-width': metres('width_px0'), 'line-offset': metres('offset_px0') } },
      { id: 'zone-fill', type: 'fill', source: 'zones', filter: ['!=', ['get', 'shape'], 'Corridor'], paint: { 'fill-color': levelColour(), 'fill-opacity': 0.18 } },
      { id: 'zone-line', type: 'line', source: 'zones', filter: ['!=', ['get', 'shape'], 'Corridor'], paint: { 'line-color': levelColour(), 'line-width': 2, 'line-dasharray': ['case', ['==', ['get', 'zone_type'], 'restricted'], ['literal', [1]], ['literal', [3, 2]]] } },
      { id: 'zone-corridor', type: 'line', source: 'zones', filter: ['==', ['get', 'shape'], 'Corridor'], layout: { 'line-cap': 'round', 'line-join': 'round' }, paint: { 'line-color': levelColour(), 'line-opacity': 0.35, 'line-width': metres('width_px0') } },
      { id: 'zone-buffer-edge', type: 'line', source: 'buffers', filter: ['==', ['get', 'kind'], 'edge'], layout: { 'line-join': 'round' }, paint: { 'line-color': levelColour(), 'line-opacity': 0.7, 'line-width': 1.5, 'line-dasharray': [2, 2], 'line-offset': metres('offset_px0') } },
      // Zone names as images (vessel-labels.ts: no glyph server offline), hidden where they would overlap.
      { id: 'zone-labels', type: 'symbol', source: 'zone-labels', minzoom: ZONE_LABEL_MIN_ZOOM, layout: { 'icon-image': ['concat', ZONE_LABEL_PREFIX, ['get', 'alert_level'], ':', ['get', 'name']], 'icon-padding': 4 } },
      { id: 'track', type: 'line', source: 'track', paint: { 'line-color': '#111827', 'line-width': 2, 'line-dasharray': [2, 1] } },
      { id: 'flashes', type: 'circle', source: 'flashes', paint: { 'circle-radius': 14, 'circle-color': 'rgba(0,0,0,0)', 'circle-stroke-width': 3, 'circle-stroke-color': ['match', ['get', 'severity'], 'critical', LEVEL_COLOURS.critical as string, 'high', LEVEL_COLOURS.high as string, 'medium', LEVEL_COLOURS.medium as string, LEVEL_COLOURS.low as string] } },
      ...SHARD_IDS.map((s): maplibregl.LayerSpecification => ({
        id: `vessels-${s}`, type: 'symbol', source: `vessels-${s}`,
        // 'source' order: overlapping arrows need no sorting by screen position at every placement.
        layout: { 'icon-image': 'arrow', 'icon-rotate': ['get', 'course'], 'icon-rotation-alignment': 'map', 'icon-allow-overlap': true, 'icon-ignore-placement': true, 'symbol-z-order': 'source', 'icon-size': ['case', ['get', 'moving'], 0.8, 0.55] },
        paint: { 'icon-color': ['get', 'colour'], 'icon-halo-color': '#ffffff', 'icon-halo-width': 1 },
      })),
      ...SHARD_IDS.map((s): maplibregl.LayerSpecification => ({
        id: `vessel-labels-${s}`, type: 'symbol', source: `vessels-${s}`, minzoom: LABEL_MIN_ZOOM, filter: ['!=', ['get', 'name'], ''],
        layout: { 'icon-image': ['concat', LABEL_PREFIX, ['get', 'name']], 'icon-anchor': 'left', 'icon-offset': [12, 0], 'icon-ignore-placement': true },
      })),
    ],
  };
}

export function createMap(container: HTMLElement, tileUrl: string | null, onLoad: () => void): LiveMap {
  // No symbol fade: with 10,000 arrows placed again every second, a fade re-renders them all for 300 ms after each.
  const map = new maplibregl.Map({ container, center: [12.6, 55.69], zoom: 10, attributionControl: false, fadeDuration: 0, style: style(tileUrl) });
  map.addControl(new maplibregl.NavigationControl({ showCompass: true }), 'top-left');
  map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-left');
  // The land's licence (ODbL) asks for the attribution; compact, it is an (i) in the corner.
  map.addControl(new maplibregl.AttributionControl({ compact: true }), 'bottom-right');
  installVesselLabels(map, LEVEL_COLOURS);
  const feed = createVesselFeed();
  // One channel per page: a second console tab has its own (not crypto.randomUUID: plain-http pages lack it).
  const channelName = `pss-vessels-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  const channel = new BroadcastChannel(channelName);
  const base = `${location.origin}${location.pathname.replace(/[^/]*$/, '')}`;
  const workerReady = maplibregl.importScriptInWorkers(`${base}vessel-worker.mjs`);
  channel.onmessage = () => {
    // A worker began listening: it needs the looks sent before.
    feed.resendLooks();
    schedule();
  };
  let ready = false;
  /** Where the vessels' GeoJSON is built: in MapLibre's worker, or on this thread if the script did not load there. */
  let inWorker = true;
  // The style, not the land tiles ('load' waits for those): zones and vessels need only their sources.
  map.once('style.load', () => {
    map.addImage('arrow', arrowImage(), { sdf: true });
    onLoad();
    const start = () => {
      ready = true;
      // Positions that came while the style loaded are drawn now.
      schedule();
    };
    workerReady.then(() => {
      performance.mark('console:vessel-worker');
      start();
    }, (err: unknown) => {
      console.warn('vessels: drawn from the main thread, the worker script did not load', err);
      inWorker = false;
      start();
    });
  });
  const looks = new Map<number, { colour: string; name: string }>();

  const flashes: { lng: number; lat: number; severity: string; until: number }[] = [];
  let frame: number | undefined;

  function draw(): void {
    frame = undefined;
    if (!ready || !feed.changed()) return;
    const next = feed.frame();
    if (inWorker) channel.postMessage(next);
    else for (const [mmsi, colour, name] of next.looks) looks.set(mmsi, { colour, name });
    next.shards.forEach((packed, s) => {
      if (!packed) return;
      const source = map.getSource(`vessels-${s}`) as GeoJSONSource;
      void source.setData(inWorker ? `vessels://${channelName}/${s}/${next.seq}` : unpack(packed, looks, UNKNOWN_COLOUR));
    });
    if (!container.dataset.vessels) performance.mark('console:first-vessels');
    container.dataset.vessels = String(feed.size());
  }

  /** One source update per animation frame however many messages came. */
  function schedule(): void {
    frame ??= requestAnimationFrame(draw);
  }

  function drawFlashes(): void {
    const now = Date.now();
    while (flashes.length > 0 && (flashes[0]?.until ?? 0) < now) flashes.shift();
    (map.getSource('flashes') as GeoJSONSource | undefined)?.setData({ type: 'FeatureCollection', features: flashes.map((f) => ({ type: 'Feature', properties: { severity: f.severity }, geometry: { type: 'Point', coordinates: [f.lng, f.lat] } })) });
  }

  return {
    map,
    setZones(zones) {
      (map.getSource('zones') as GeoJSONSource).setData({ type: 'FeatureCollection', features: zones.flatMap((z) => zoneFeatures(z)) });
      const labels = zones.flatMap((z): GeoJSON.Feature[] => {
        const at = zoneLabelPoint(z);
        return at ? [{ type: 'Feature', properties: { id: z.id, name: z.name, alert_level: z.alert_level }, geometry: { type: 'Point', coordinates: at } }] : [];
      });
      (map.getSource('zone-labels') as GeoJSONSource).setData({ type: 'FeatureCollection', features: labels });
      (map.getSource('buffers') as GeoJSONSource).setData({ type: 'FeatureCollection', features: zones.flatMap((z) => bufferFeatures(z)) });
      container.dataset.zones = String(zones.length);
    },
    applyPositions(positions, left, snapshot) {
      if (snapshot && !container.dataset.vessels) performance.mark('console:snapshot');
      feed.apply(positions, left, snapshot);
      schedule();
    },
    setCategory(mmsi, category, name) {
      feed.describe(mmsi, category, name);
      schedule();
    },
    fitZones(zones) {
      const b = zonesBounds(zones);
      if (!b) return;
      const camera = map.cameraForBounds([[b[0], b[1]], [b[2], b[3]]], { padding: 40, maxZoom: 15 });
      if (camera) map.jumpTo(camera);
    },
    flyToPoint(lng, lat, severity) {
      map.flyTo({ center: [lng, lat], zoom: Math.max(map.getZoom(), 14) });
      if (severity) this.flashEvent(lng, lat, severity);
    },
    showTrack(track) {
      (map.getSource('track') as GeoJSONSource).setData({ type: 'FeatureCollection', features: track?.geometry ? [track] : [] });
    },
    flashEvent(lng, lat, severity) {
      flashes.push({ lng, lat, severity, until: Date.now() + 15_000 });
      drawFlashes();
      window.setTimeout(drawFlashes, 15_500);
    },
    vesselCount: () => feed.size(),
    vessel: (mmsi) => feed.get(mmsi),
    onVesselClick(handler) {
      map.on('click', VESSEL_LAYERS, (e: MapLayerMouseEvent) => {
        const mmsi = Number(e.features?.[0]?.properties?.mmsi);
        if (mmsi) handler(mmsi);
      });
      map.on('mouseenter', VESSEL_LAYERS, () => (map.getCanvas().style.cursor = 'pointer'));
      map.on('mouseleave', VESSEL_LAYERS, () => (map.getCanvas().style.cursor = ''));
    },
    bounds() {
      const b = map.getBounds();
      const clamp = (v: number, m: number) => Math.max(-m, Math.min(m, v));
      return [clamp(b.getWest(), 180), clamp(b.getSouth(), 90), clamp(b.getEast(), 180), clamp(b.getNorth(), 90)];
    },
  };
}

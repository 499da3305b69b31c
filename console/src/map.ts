// The live map (docs/console.md "Map"): MapLibre GL on a sea-coloured background with the packaged Natural
// Earth land (world-atlas, 1:10m), the zones by alert level, and the vessels as one WebGL symbol layer fed
// by a GeoJSON source that is replaced at most once a second, as the position stream sends.
import * as maplibregl from 'maplibre-gl';
import type { GeoJSONSource, Map as MlMap, MapLayerMouseEvent } from 'maplibre-gl';
import { feature } from 'topojson-client';
import land10m from 'world-atlas/land-10m.json';
import type { Topology } from 'topojson-specification';
import { zoneFeatures, type ZoneGeometry } from './geometry.ts';

export const LEVEL_COLOURS: Record<string, string> = { low: '#2563eb', medium: '#ca8a04', high: '#ea580c', critical: '#dc2626' };
const CATEGORY_COLOURS: [string, string][] = [
  ['cargo', '#15803d'], ['tanker', '#b91c1c'], ['passenger', '#1d4ed8'], ['fishing', '#a16207'], ['tug', '#7c3aed'],
  ['pilot', '#0e7490'], ['pleasure', '#db2777'], ['sailing', '#db2777'], ['high_speed_craft', '#ea580c'], ['military', '#374151'],
];

export interface VesselPosition {
  mmsi: number;
  lat: number;
  lon: number;
  sog?: number;
  cog?: number;
  heading?: number;
  reported_at: string;
}

export interface LiveMap {
  map: MlMap;
  setZones(zones: { id: string; name: string; type: string; alert_level: string; geometry: ZoneGeometry }[]): void;
  /** Applies a positions message; the map redraws at most once a second. */
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

export function createMap(container: HTMLElement, tileUrl: string | null, onLoad: () => void): LiveMap {
  const topology = land10m as unknown as Topology;
  const landGeo = feature(topology, topology.objects.land as never) as unknown as GeoJSON.FeatureCollection;
  performance.mark('console:land-decoded');
  const map = new maplibregl.Map({
    container,
    center: [12.6, 55.69],
    zoom: 10,
    attributionControl: false,
    style: {
      version: 8,
      sources: {
        land: { type: 'geojson', data: landGeo, tolerance: 0.6, maxzoom: 9 },
        ...(tileUrl ? { tiles: { type: 'raster', tiles: [tileUrl], tileSize: 256 } } : {}),
        zones: { type: 'geojson', data: { type: 'FeatureCollection', features: [] } },
        vessels: { type: 'geojson', data: { type: 'FeatureCollection', features: [] }, maxzoom: 12, buffer: 32 },
        track: { type: 'geojson', data: { type: 'FeatureCollection', features: [] } },
        flashes: { type: 'geojson', data: { type: 'FeatureCollection', features: [] } },
      },
      layers: [
        { id: 'sea', type: 'background', paint: { 'background-color': '#a9c9de' } },
        { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': '#efe9dc', 'fill-outline-color': '#9aa5ad' } },
        ...(tileUrl ? [{ id: 'tiles', type: 'raster' as const, source: 'tiles' }] : []),
        { id: 'zone-fill', type: 'fill', source: 'zones', filter: ['!=', ['get', 'shape'], 'Corridor'], paint: { 'fill-color': levelColour(), 'fill-opacity': 0.18 } },
        { id: 'zone-line', type: 'line', source: 'zones', filter: ['!=', ['get', 'shape'], 'Corridor'], paint: { 'line-color': levelColour(), 'line-width': 2, 'line-dasharray': ['case', ['==', ['get', 'zone_type'], 'restricted'], ['literal', [1]], ['literal', [3, 2]]] } },
        {
          id: 'zone-corridor', type: 'line', source: 'zones', filter: ['==', ['get', 'shape'], 'Corridor'],
          layout: { 'line-cap': 'round', 'line-join': 'round' },
          paint: { 'line-color': levelColour(), 'line-opacity': 0.35, 'line-width': ['interpolate', ['exponential', 2], ['zoom'], 0, ['get', 'width_px0'], 22, ['*', ['get', 'width_px0'], 4194304]] },
        },
        { id: 'track', type: 'line', source: 'track', paint: { 'line-color': '#111827', 'line-width': 2, 'line-dasharray': [2, 1] } },
        { id: 'flashes', type: 'circle', source: 'flashes', paint: { 'circle-radius': 14, 'circle-color': 'rgba(0,0,0,0)', 'circle-stroke-width': 3, 'circle-stroke-color': ['match', ['get', 'severity'], 'critical', LEVEL_COLOURS.critical as string, 'high', LEVEL_COLOURS.high as string, 'medium', LEVEL_COLOURS.medium as string, LEVEL_COLOURS.low as string] } },
        {
          id: 'vessels', type: 'symbol', source: 'vessels',
          layout: { 'icon-image': 'arrow', 'icon-rotate': ['get', 'course'], 'icon-rotation-alignment': 'map', 'icon-allow-overlap': true, 'icon-ignore-placement': true, 'icon-size': ['case', ['get', 'moving'], 0.8, 0.55] },
          paint: { 'icon-color': ['get', 'colour'], 'icon-halo-color': '#ffffff', 'icon-halo-width': 1 },
        },
      ],
    },
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: true }), 'top-left');
  map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-left');
  map.on('load', () => {
    map.addImage('arrow', arrowImage(), { sdf: true });
    // Positions that came while the style loaded are drawn now.
    schedule();
    onLoad();
  });

  const vessels = new Map<number, VesselPosition>();
  const categories = new Map<number, { category?: string | undefined; name?: string | undefined }>();
  const flashes: { lng: number; lat: number; severity: string; until: number }[] = [];
  let dirty = false;
  let lastDraw = 0;
  let drawTimer: number | undefined;

  function colourOf(mmsi: number): string {
    const category = categories.get(mmsi)?.category;
    return CATEGORY_COLOURS.find(([c]) => c === category)?.[1] ?? '#475569';
  }

  function draw(): void {
    drawTimer = undefined;
    lastDraw = performance.now();
    dirty = false;
    const features: GeoJSON.Feature[] = [];
    for (const v of vessels.values()) {
      features.push({
        type: 'Feature', id: v.mmsi,
        properties: { mmsi: v.mmsi, course: v.heading ?? v.cog ?? 0, moving: (v.sog ?? 0) > 0.5, colour: colourOf(v.mmsi), name: categories.get(v.mmsi)?.name ?? '' },
        geometry: { type: 'Point', coordinates: [v.lon, v.lat] },
      });
    }
    const source = map.getSource('vessels') as GeoJSONSource | undefined;
    if (!source) return;
    source.setData({ type: 'FeatureCollection', features });
    if (!container.dataset.vessels) performance.mark('console:first-vessels');
    const now = Date.now();
    while (flashes.length > 0 && (flashes[0]?.until ?? 0) < now) flashes.shift();
    (map.getSource('flashes') as GeoJSONSource | undefined)?.setData({ type: 'FeatureCollection', features: flashes.map((f) => ({ type: 'Feature', properties: { severity: f.severity }, geometry: { type: 'Point', coordinates: [f.lng, f.lat] } })) });
    container.dataset.vessels = String(vessels.size);
  }

  /** At most one redraw a second, however often messages come (maplibre-gl-js #106, #6154). */
  function schedule(): void {
    dirty = true;
    if (drawTimer !== undefined) return;
    const wait = Math.max(0, 1000 - (performance.now() - lastDraw));
    drawTimer = window.setTimeout(() => dirty && draw(), wait);
  }

  return {
    map,
    setZones(zones) {
      const features = zones.flatMap((z) => zoneFeatures(z));
      (map.getSource('zones') as GeoJSONSource).setData({ type: 'FeatureCollection', features });
      container.dataset.zones = String(zones.length);
    },
    applyPositions(positions, left, snapshot) {
      if (snapshot) vessels.clear();
      for (const p of positions) vessels.set(p.mmsi, p);
      for (const mmsi of left) vessels.delete(mmsi);
      schedule();
    },
    setCategory(mmsi, category, name) {
      categories.set(mmsi, { category, name });
    },
    showTrack(track) {
      (map.getSource('track') as GeoJSONSource).setData({ type: 'FeatureCollection', features: track?.geometry ? [track] : [] });
    },
    flashEvent(lng, lat, severity) {
      flashes.push({ lng, lat, severity, until: Date.now() + 15_000 });
      schedule();
      window.setTimeout(schedule, 15_500);
    },
    vesselCount: () => vessels.size,
    vessel: (mmsi) => vessels.get(mmsi),
    onVesselClick(handler) {
      map.on('click', 'vessels', (e: MapLayerMouseEvent) => {
        const mmsi = Number(e.features?.[0]?.properties?.mmsi);
        if (mmsi) handler(mmsi);
      });
      map.on('mouseenter', 'vessels', () => (map.getCanvas().style.cursor = 'pointer'));
      map.on('mouseleave', 'vessels', () => (map.getCanvas().style.cursor = ''));
    },
    bounds() {
      const b = map.getBounds();
      const clamp = (v: number, m: number) => Math.max(-m, Math.min(m, v));
      return [clamp(b.getWest(), 180), clamp(b.getSouth(), 90), clamp(b.getEast(), 180), clamp(b.getNorth(), 90)];
    },
  };
}

function levelColour(): maplibregl.ExpressionSpecification {
  return ['match', ['get', 'alert_level'], 'critical', LEVEL_COLOURS.critical as string, 'high', LEVEL_COLOURS.high as string, 'medium', LEVEL_COLOURS.medium as string, LEVEL_COLOURS.low as string];
}

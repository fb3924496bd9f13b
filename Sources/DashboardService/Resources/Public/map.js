// StepCompass dashboard: the real map of the Markers and Walk panels (Leaflet, OpenStreetMap tiles).
//
// The dashboard serves the system's Leaflet (Debian's libjs-leaflet) at /vendor/leaflet/ and says where in
// GET /api/map, with the tile URL (--tile-url) and the attribution OpenStreetMap requires. The markers become
// map markers (grouped when there are many), a click shows the three nearest as the list does (app.js's
// showNearest), the device's GPS fix is drawn with its accuracy circle, and the dead-reckoned path (x north,
// y east, metres) is placed on the map from the first good fix. Without Leaflet, or when no tile loads, the
// panels keep the plain drawing of app.js and say why.
//
// app.js calls dashboardMap.markers(), .select(), .device() and .path() with what it draws; this file only adds
// the map and never changes app.js's drawing, which stays up to date underneath (the fallback).
'use strict';

const MAP = {
  // After a tile error, how long any tile has to load before the page gives the map up.
  TILE_GRACE_MS: 4000,
  // How long the first tile may take at all (a network that swallows requests never says "error").
  TILE_SILENCE_MS: 15000,
  // More markers than this are grouped: Leaflet.markercluster when installed, else a grid of our own.
  CLUSTER_ABOVE: 200,
  // The own grid's cell, in screen pixels.
  GRID_PX: 64,
  // A fix this accurate (metres), or one without an accuracy, places the walk on the map (the journal's limit).
  GOOD_FIX_M: 50,
  // Metres per degree of latitude, and of longitude at the equator (as the Journal panel's route).
  M_PER_DEG_LAT: 110540,
  M_PER_DEG_LON: 111320,
  MAX_ZOOM: 19,
  WALK_MAX_ZOOM: 18,
};

const dashboardMap = {
  mode: 'loading',   // 'loading' until Leaflet is in, then 'map', or 'plot' (the plain drawing) with `reason`
  reason: '',
  settings: null,    // GET /api/map
  grouping: 'none',  // how the markers are grouped now: 'none', 'markercluster' or 'grid'
  tiles: { loaded: 0, errors: 0, graceTimer: null, silenceTimer: null },
  markersMap: null,  // { map, layer, byId, you }
  walkMap: null,     // { map, line, end, you, anchor, device, lastLength, follow, fitting }
  last: { pins: null, device: null, path: null },
  selected: null,

  // ---- What app.js calls ---------------------------------------------------------------------------------

  markers(pins) {
    this.last.pins = pins;
    if (this.mode === 'map') drawMapMarkers(pins);
  },

  select(id) {
    this.selected = id;
    if (this.mode === 'map') markSelected();
  },

  device(view) {
    this.last.device = view;
    if (this.mode === 'map') placeDevice(view);
  },

  path(device, points) {
    this.last.path = { device, points };
    if (this.mode === 'map') drawWalk();
  },
};

const mapElement = (id) => document.getElementById(id);

function mapShow(id, shown) {
  mapElement(id).toggleAttribute('hidden', !shown);
}

function mapNote(id, text) {
  const note = mapElement(id);
  if (note.textContent !== text) note.textContent = text;
  note.toggleAttribute('hidden', !text);
}

// ---- Start: the settings, then Leaflet ------------------------------------------------------------------

async function startMap() {
  let settings;
  try {
    const response = await fetch('/api/map');
    // Without the access token (401) auth.js asks for it and loads the page again: the map starts then.
    if (response.status === 401) dashboardAuth.unauthorized();
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    settings = await response.json();
  } catch (error) {
    showPlot(`No map: the dashboard's map settings could not be read (${error.message}).`);
    return;
  }
  dashboardMap.settings = settings;
  if (!settings.leaflet) {
    showPlot(settings.unavailableText || 'No map: Leaflet is not installed on the dashboard\'s machine.');
    return;
  }
  try {
    await loadLibrary(settings.leaflet);
    if (!window.L || !window.L.map) throw new Error('it did not define L');
  } catch (error) {
    showPlot(`No map: Leaflet could not be loaded from the dashboard (${error.message}).`);
    return;
  }
  if (settings.markerCluster) {
    // Optional: without it the page groups the markers itself.
    try {
      await loadLibrary(settings.markerCluster);
    } catch (error) {
      console.warn('Leaflet.markercluster could not be loaded; grouping the markers on a grid', error);
    }
  }
  createMaps();
}

function loadLibrary({ script, stylesheets = [] }) {
  const loads = stylesheets.map((href) => new Promise((resolve, reject) => {
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = href;
    link.onload = resolve;
    link.onerror = () => reject(new Error(`${href} did not load`));
    document.head.append(link);
  }));
  loads.push(new Promise((resolve, reject) => {
    const element = document.createElement('script');
    element.src = script;
    element.onload = resolve;
    element.onerror = () => reject(new Error(`${script} did not load`));
    document.head.append(element);
  }));
  return Promise.all(loads);
}

function createMaps() {
  dashboardMap.mode = 'map';
  applyMode();
  const markersMap = newMap('markers-leaflet');
  dashboardMap.markersMap = { map: markersMap, layer: null, byId: new Map(), you: null };
  // Until there are markers: the whole world, so the tiles are tried at once.
  markersMap.setView([20, 0], 1);
  const walkMap = newMap('walk-leaflet');
  const walk = {
    map: walkMap, anchor: null, device: null, lastLength: 0, follow: true, fitting: false, fitted: false, you: null,
    line: L.polyline([], { className: 'map-walk', interactive: false }).addTo(walkMap),
    end: L.circleMarker([0, 0], { className: 'map-walk-end', radius: 5, interactive: false }),
  };
  // The walk follows the walker until the person moves or zooms the map.
  walkMap.on('dragstart', () => { walk.follow = false; });
  walkMap.on('zoomstart', () => { if (!walk.fitting) walk.follow = false; });
  dashboardMap.walkMap = walk;
  const { pins, device, path } = dashboardMap.last;
  if (pins) drawMapMarkers(pins);
  if (device) placeDevice(device);
  if (path) drawWalk();
}

function newMap(id) {
  const map = L.map(id, { worldCopyJump: true, maxZoom: MAP.MAX_ZOOM });
  const tiles = L.tileLayer(dashboardMap.settings.tileUrl, {
    attribution: dashboardMap.settings.attribution, maxZoom: MAP.MAX_ZOOM,
  });
  watchTiles(tiles);
  tiles.addTo(map);
  return map;
}

// ---- Tiles: the map only while they load ----------------------------------------------------------------

function watchTiles(layer) {
  const tiles = dashboardMap.tiles;
  layer.on('tileloadstart', () => {
    if (tiles.loaded || tiles.silenceTimer) return;
    tiles.silenceTimer = setTimeout(() => { if (!tiles.loaded) tilesFailed('did not answer'); }, MAP.TILE_SILENCE_MS);
  });
  layer.on('tileload', () => {
    tiles.loaded += 1;
    clearTimeout(tiles.graceTimer);
    clearTimeout(tiles.silenceTimer);
  });
  layer.on('tileerror', () => {
    tiles.errors += 1;
    if (tiles.loaded || tiles.graceTimer) return;
    tiles.graceTimer = setTimeout(() => { if (!tiles.loaded) tilesFailed('could not be loaded'); }, MAP.TILE_GRACE_MS);
  });
}

function tilesFailed(what) {
  if (dashboardMap.mode !== 'map') return;
  let host = dashboardMap.settings.tileUrl;
  try {
    host = new URL(host.replace(/[{}]/g, ''), location.href).host;
  } catch {
    // Keep the template.
  }
  showPlot(`No map: the map tiles ${what} from ${host} (no network, or the tile server is down), ` +
    'so the markers and the walk are drawn without one.');
}

// ---- Modes -----------------------------------------------------------------------------------------------

function showPlot(reason) {
  dashboardMap.mode = 'plot';
  dashboardMap.reason = reason;
  for (const state of [dashboardMap.markersMap, dashboardMap.walkMap]) if (state) state.map.remove();
  dashboardMap.markersMap = null;
  dashboardMap.walkMap = null;
  applyMode();
}

// The map where there is one; the plain drawing, and why, where there is not. The walk needs a fix first.
function applyMode() {
  const { mode, reason } = dashboardMap;
  document.body.dataset.map = mode;
  const map = mode === 'map';
  const walkPlaced = map && Boolean(dashboardMap.walkMap && dashboardMap.walkMap.anchor);
  mapShow('markers-leaflet', map);
  mapShow('markers-map', !map);
  mapShow('walk-leaflet', walkPlaced);
  mapShow('path-map', !walkPlaced);
  mapShow('path-map-scale', !walkPlaced);
  mapNote('markers-map-note', mode === 'plot' ? reason : '');
  mapNote('path-map-note', mode === 'plot' ? reason : map && !walkPlaced
    ? `The walk goes on the map from the device's first GPS fix (accurate to ${MAP.GOOD_FIX_M} m); until then it is drawn here.`
    : '');
  // A map shown after being hidden measures itself again.
  for (const state of [dashboardMap.markersMap, dashboardMap.walkMap]) if (state) state.map.invalidateSize(false);
}

// ---- Markers ---------------------------------------------------------------------------------------------

function drawMapMarkers(pins) {
  const state = dashboardMap.markersMap;
  if (state.layer) state.map.removeLayer(state.layer);
  state.byId = new Map();
  const markers = pins.map((pin) => {
    const marker = pinMarker(pin);
    state.byId.set(pin.id, marker);
    return marker;
  });
  if (pins.length > MAP.CLUSTER_ABOVE && L.markerClusterGroup) {
    dashboardMap.grouping = 'markercluster';
    state.layer = L.markerClusterGroup({ chunkedLoading: true, showCoverageOnHover: false, maxClusterRadius: 60 });
    state.layer.addLayers(markers);
  } else if (pins.length > MAP.CLUSTER_ABOVE) {
    dashboardMap.grouping = 'grid';
    state.layer = gridGroup(state.map, markers);
  } else {
    dashboardMap.grouping = 'none';
    state.layer = L.layerGroup(markers);
  }
  state.layer.addTo(state.map);
  if (pins.length) {
    const bounds = L.latLngBounds(pins.map((pin) => [pin.latitude, pin.longitude]));
    state.map.fitBounds(bounds.pad(0.05), { animate: false, maxZoom: 17 });
  }
}

function pinMarker(pin) {
  const marker = L.marker([pin.latitude, pin.longitude], {
    icon: L.divIcon({ className: 'map-pin', iconSize: [14, 14] }), title: pin.name, keyboard: true, riseOnHover: true,
  });
  marker.pinId = pin.id;
  marker.on('click', () => showNearest(pin.id));
  // A marker's element exists only while it is on the map (a grouped one has none).
  marker.on('add', () => {
    const element = marker.getElement();
    element.dataset.id = pin.id;
    element.setAttribute('role', 'button');
    element.setAttribute('aria-label', pin.name);
    element.classList.toggle('selected', pin.id === dashboardMap.selected);
  });
  return marker;
}

function markSelected() {
  const state = dashboardMap.markersMap;
  if (!state) return;
  for (const [id, marker] of state.byId) {
    const selected = id === dashboardMap.selected;
    marker.setZIndexOffset(selected ? 1000 : 0);
    const element = marker.getElement();
    if (element) element.classList.toggle('selected', selected);
  }
}

// Grouping without Leaflet.markercluster: the markers near the view, by cells of GRID_PX screen pixels at the
// current zoom; a cell of several is one round marker with their count, a click zooms to them.
function gridGroup(map, markers) {
  const group = L.layerGroup();
  const redraw = () => {
    group.clearLayers();
    const zoom = map.getZoom();
    const near = map.getBounds().pad(0.5);
    const cells = new Map();
    for (const marker of markers) {
      const at = marker.getLatLng();
      if (!near.contains(at)) continue;
      const point = map.project(at, zoom);
      const key = `${Math.floor(point.x / MAP.GRID_PX)},${Math.floor(point.y / MAP.GRID_PX)}`;
      if (!cells.has(key)) cells.set(key, []);
      cells.get(key).push(marker);
    }
    for (const members of cells.values()) {
      if (members.length === 1 || zoom >= map.getMaxZoom()) members.forEach((marker) => group.addLayer(marker));
      else group.addLayer(groupMarker(map, members));
    }
  };
  group.on('add', () => {
    map.on('zoomend moveend', redraw);
    redraw();
  });
  group.on('remove', () => map.off('zoomend moveend', redraw));
  return group;
}

function groupMarker(map, members) {
  const count = members.length;
  const latitude = members.reduce((sum, marker) => sum + marker.getLatLng().lat, 0) / count;
  const longitude = members.reduce((sum, marker) => sum + marker.getLatLng().lng, 0) / count;
  const size = count < 10 ? 30 : count < 100 ? 36 : 44;
  const label = `${count} markers: zoom in`;
  const marker = L.marker([latitude, longitude], {
    icon: L.divIcon({ className: 'map-cluster', html: `<span>${count}</span>`, iconSize: [size, size] }),
    title: label, keyboard: true,
  });
  marker.on('click', () => {
    map.fitBounds(L.latLngBounds(members.map((member) => member.getLatLng())), { padding: [24, 24] });
  });
  marker.on('add', () => {
    const element = marker.getElement();
    element.dataset.count = String(count);
    element.setAttribute('role', 'button');
    element.setAttribute('aria-label', label);
  });
  return marker;
}

// ---- The device: its GPS fix and its walk ----------------------------------------------------------------

function goodFix(location) {
  return location && (location.horizontalAccuracy == null || location.horizontalAccuracy <= MAP.GOOD_FIX_M);
}

function placeDevice(view) {
  const walk = dashboardMap.walkMap;
  if (walk.device !== view.id) {
    // Another device: its walk is placed from its own first fix.
    walk.device = view.id;
    walk.anchor = null;
    walk.lastLength = 0;
    walk.follow = true;
    walk.fitted = false;
  }
  placeFix(dashboardMap.markersMap, view.location);
  placeFix(walk, view.location);
  if (!walk.anchor && goodFix(view.location) && view.x != null && view.y != null) {
    // The first good fix: the walker is there now, at (x, y) of the position service's frame.
    walk.anchor = { latitude: view.location.latitude, longitude: view.location.longitude, x: view.x, y: view.y };
    applyMode();
    drawWalk();
  }
}

// The fix as a dot with its accuracy circle (no circle without an accuracy).
function placeFix(state, location) {
  if (!state) return;
  if (!location) {
    if (state.you) {
      state.you.circle.remove();
      state.you.dot.remove();
      state.you = null;
    }
    return;
  }
  const at = [location.latitude, location.longitude];
  const radius = location.horizontalAccuracy || 0;
  if (!state.you) {
    state.you = {
      circle: L.circle(at, { radius, className: 'map-accuracy', interactive: false }),
      dot: L.circleMarker(at, { radius: 7, className: 'map-you' }).bindTooltip(location.accuracyText || 'GPS position'),
    };
    state.you.circle.addTo(state.map);
    state.you.dot.addTo(state.map);
  }
  state.you.circle.setLatLng(at);
  state.you.circle.setRadius(radius);
  state.you.dot.setLatLng(at);
  state.you.dot.setTooltipContent(location.accuracyText || 'GPS position');
}

// Metres north (x) and east (y) of the position service's frame, on the map from the anchor fix.
function walkLatLng(anchor, x, y) {
  const east = MAP.M_PER_DEG_LON * Math.cos((anchor.latitude * Math.PI) / 180);
  return [anchor.latitude + (x - anchor.x) / MAP.M_PER_DEG_LAT, anchor.longitude + (y - anchor.y) / east];
}

function drawWalk() {
  const walk = dashboardMap.walkMap;
  const path = dashboardMap.last.path;
  if (!walk || !path || (walk.device && path.device !== walk.device)) return;
  const points = path.points;
  if (points.length < walk.lastLength) {
    // The position was reset (the path starts again): placed again from the next good fix.
    walk.anchor = null;
    walk.follow = true;
    walk.fitted = false;
    walk.lastLength = points.length;
    walk.line.setLatLngs([]);
    walk.end.remove();
    applyMode();
    const device = dashboardMap.last.device;
    if (device) placeDevice(device);
    return;
  }
  walk.lastLength = points.length;
  if (!walk.anchor) return;
  const line = points.map((point) => walkLatLng(walk.anchor, point.x, point.y));
  walk.line.setLatLngs(line);
  if (!line.length) {
    walk.end.remove();
    return;
  }
  const last = line[line.length - 1];
  walk.end.setLatLng(last);
  if (!walk.map.hasLayer(walk.end)) walk.end.addTo(walk.map);
  followWalk(walk, last);
}

// Keeps the walk in view while following: fits it when the walker nears the edge (not at every step).
function followWalk(walk, last) {
  if (!walk.follow) return;
  const map = walk.map;
  if (walk.fitted && map.getBounds().pad(-0.15).contains(last)) return;
  let bounds = walk.line.getBounds();
  if (walk.you) bounds = bounds.extend(walk.you.dot.getLatLng());
  // At least about 20 m across, so the first steps do not fill the whole map.
  bounds = bounds.extend(L.latLng(last).toBounds(20));
  walk.fitting = true;
  map.fitBounds(bounds.pad(0.15), { animate: false, maxZoom: MAP.WALK_MAX_ZOOM });
  walk.fitting = false;
  walk.fitted = true;
}

startMap();

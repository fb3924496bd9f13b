// StepCompass dashboard page.
//
// The server's view model (DashboardKit) formats every word and number a person reads; this file only
// copies those texts into the DOM, computes drawing coordinates for the SVGs, and sends the commands.
// Live data arrives as Server-Sent Events from /events (the dashboard's HTTP API, Sources/DashboardService).
// A 401 (the dashboard's access token is missing or wrong) goes to auth.js, which asks for the token.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
const UNIT_KEY = 'stepcompass.elevationUnit';
const RECONNECT_MS = 3000;
// Above this many markers the map shows names only as tooltips (and the chosen one), so labels stay legible.
const MAX_MAP_LABELS = 12;
// The walk shown in the Journal panel is asked for again at most this often while it grows.
const WALK_REFRESH_MS = 5000;
// Past walks listed.
const WALKS_LISTED = 20;

const page = {
  chosenDevice: '',      // the device the user picked; '' follows the server's default (the first seen)
  device: null,          // the last DeviceView
  source: null,          // the EventSource
  reconnectTimer: null,
  markersKey: '',        // what the markers map was last drawn from, to redraw only when it changes
  activityKey: '',       // what the activity chart was last drawn from
  markerNames: new Map(),
  selectedMarker: null,
  nearestRequest: 0,     // counts marker taps, so a late answer never overwrites a newer one
  unit: readUnit(),
  journal: newJournal(''),
};

const $ = (id) => document.getElementById(id);

// Writes only when the text changes: no needless DOM work at ten updates a second, and the aria-live
// heading is announced only when what it says changes.
function setText(id, text) {
  const element = $(id);
  const value = text ?? '';
  if (element.textContent !== value) element.textContent = value;
}

// The hidden attribute rather than the property: SVG elements have no `hidden` property.
function setHidden(element, hidden) {
  element.toggleAttribute('hidden', hidden);
}

// Text that is absent in the view model hides its element instead of leaving an empty line.
function showText(id, text) {
  setText(id, text);
  setHidden($(id), !text);
}

function svg(name, attributes = {}) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

// ---- Live connection ------------------------------------------------------------------------------

function connect() {
  clearTimeout(page.reconnectTimer);
  if (page.source) page.source.close();
  const url = page.chosenDevice ? `/events?device=${encodeURIComponent(page.chosenDevice)}` : '/events';
  const source = new EventSource(url);
  page.source = source;
  source.addEventListener('open', () => setText('connection', 'Live'));
  source.addEventListener('error', () => {
    // While the page waits for the access token (auth.js), the connection says so.
    if (!dashboardAuth.asking) setText('connection', 'Reconnecting…');
    // EventSource retries by itself after a dropped stream, but gives up for good after an HTTP error
    // (e.g. the server restarting behind a proxy): then we start a new one, unless the error was the access token
    // (401: auth.js asks for it and loads the page again with it).
    if (source.readyState === EventSource.CLOSED && page.source === source) {
      dashboardAuth.check().then((asking) => {
        if (!asking && page.source === source) page.reconnectTimer = setTimeout(connect, RECONNECT_MS);
      });
    }
  });
  listen(source, 'devices', renderDevices);
  listen(source, 'device', renderDevice);
  listen(source, 'path', renderPath);
  listen(source, 'markers', renderMarkers);
  listen(source, 'services', renderServices);
  listen(source, 'journal', renderJournal);
}

function listen(source, name, render) {
  source.addEventListener(name, (event) => {
    let data;
    try {
      data = JSON.parse(event.data);
    } catch (error) {
      console.warn(`bad ${name} event`, error);
      return;
    }
    render(data);
  });
}

// ---- Devices -------------------------------------------------------------------------------------

function renderDevices({ devices = [], selected }) {
  const picker = $('device-picker');
  const wanted = devices.join('\n');
  if (picker.dataset.devices !== wanted) {
    picker.dataset.devices = wanted;
    picker.replaceChildren(...(devices.length ? devices : ['']).map((id) => {
      const option = document.createElement('option');
      option.value = id;
      option.textContent = id || 'Waiting for a device…';
      return option;
    }));
  }
  picker.disabled = devices.length === 0;
  picker.value = page.chosenDevice || selected || devices[0] || '';
}

function renderDevice(view) {
  page.device = view;
  setText('steps', view.stepsText);
  setText('heading', view.headingText);
  showText('heading-status', view.headingStatusText);
  setText('accuracy', view.accuracyText);
  setText('tilt', view.tiltText);
  showText('interference', view.interferenceText);
  setText('position', view.positionText);
  setText('distance', view.distanceText);
  setText('north', view.northText);
  setText('north-toggle', view.north === 'magnetic' ? 'Use true north' : 'Use magnetic north');
  setText('declination', view.declinationText);
  setText('calibration-text', view.calibration.text);
  showText('calibration-prompt', view.calibration.prompt);
  renderRose(view);
  renderLock(view.bearingLock);
  renderLocation(view.location);
  dashboardMap.device(view);
  renderPermissions(view.permissions);
  renderActivity(view.activity);
  for (const id of ['lock-button', 'north-toggle', 'calibrate-button', 'reset-position']) $(id).disabled = false;
  renderJournalButtons();
}

// The dial turns by the server's unwrapped angle (a heading going from 359° to 1° arrives as 359 then 361):
// never normalise it here, or the CSS transition would spin the long way round.
function renderRose(view) {
  $('rose-dial').style.transform = `rotate(${-view.roseRotation}deg)`;
  $('rose').setAttribute('aria-label', `Compass rose: ${view.headingText}`);
}

function renderLock(lock) {
  setText('lock-text', lock.text);
  // The label says what the button does; no aria-pressed, which would contradict a changing label.
  setText('lock-button', lock.locked ? 'Unlock bearing' : 'Lock bearing');
  $('lock-button').classList.toggle('active', lock.locked);
  $('lock-panel').classList.toggle('exceeded', lock.exceeded);
  $('lock-panel').classList.toggle('locked', lock.locked);
  const mark = $('lock-mark');
  const drawn = lock.locked && lock.bearing != null;
  setHidden(mark, !drawn);
  mark.classList.toggle('exceeded', lock.exceeded);
  if (!drawn) return;
  // Drawn on the dial at the locked bearing, so it turns with the rose; the band is the allowed deviation.
  mark.setAttribute('transform', `rotate(${lock.bearing})`);
  $('lock-band').setAttribute('d', lock.threshold ? bandPath(lock.threshold, 84, 100) : '');
}

// An annular sector from -half to +half degrees around "up", between two radii.
function bandPath(half, inner, outer) {
  const point = (degrees, radius) => {
    const radians = (degrees * Math.PI) / 180;
    return `${(radius * Math.sin(radians)).toFixed(2)},${(-radius * Math.cos(radians)).toFixed(2)}`;
  };
  const large = half * 2 > 180 ? 1 : 0;
  return `M${point(-half, outer)} A${outer},${outer} 0 ${large} 1 ${point(half, outer)} ` +
    `L${point(half, inner)} A${inner},${inner} 0 ${large} 0 ${point(-half, inner)} Z`;
}

function renderLocation(location) {
  setText('location-text', location ? location.text : 'Location: unknown');
  const link = $('location-link');
  setHidden(link, !location);
  if (location && link.getAttribute('href') !== location.mapURL) link.setAttribute('href', location.mapURL);
  renderElevation();
}

function renderElevation() {
  const location = page.device && page.device.location;
  const feet = page.unit === 'feet';
  const text = location && (feet ? location.elevationFeetText : location.elevationMetresText);
  setText('elevation', text || 'Elevation: unknown');
  setText('elevation-toggle', feet ? 'Show metres' : 'Show feet');
}

function renderPermissions(permissions) {
  setText('permissions', permissions.text);
  showText('permissions-guidance', permissions.guidance);
}

// ---- Activity ------------------------------------------------------------------------------------

// The chart's geometry in its 280×150 view box: seven slots, the bars standing on a baseline, the value above
// each bar and the day's label below.
const CHART = { width: 280, slot: 40, bar: 26, top: 16, baseline: 126, label: 142 };

function renderActivity(activity) {
  if (!activity) return;
  setText('activity-today', activity.todayText);
  setHidden($('activity-waiting'), activity.reported);
  setHidden($('activity-figure'), !activity.days.length);
  setText('activity-week', activity.weekText);
  setText('activity-band', activity.bandDetailText);
  setText('activity-cadence', activity.cadenceText);
  showText('activity-guidance', activity.guidance);
  setText('activity-updated', activity.updatedText);
  renderPlaylist(activity.playlist);
  const key = JSON.stringify([activity.days, activity.maxSteps]);
  if (key === page.activityKey) return;
  page.activityKey = key;
  drawActivityChart(activity);
}

function drawActivityChart(activity) {
  const days = activity.days;
  const height = CHART.baseline - CHART.top;
  const offset = (CHART.width - CHART.slot * days.length) / 2;
  const bars = days.map((day, index) => {
    const centre = offset + CHART.slot * index + CHART.slot / 2;
    // A day without steps still shows a sliver, so seven bars are always there to see.
    const barHeight = Math.max(1, (day.steps / activity.maxSteps) * height);
    const group = svg('g', { class: day.isToday ? 'bar today' : 'bar', 'data-steps': day.steps });
    const title = svg('title');
    title.textContent = day.text;
    const rect = svg('rect', {
      x: (centre - CHART.bar / 2).toFixed(2), y: (CHART.baseline - barHeight).toFixed(2),
      width: CHART.bar, height: barHeight.toFixed(2), rx: 2,
    });
    const value = svg('text', { x: centre.toFixed(2), y: (CHART.baseline - barHeight - 4).toFixed(2), class: 'value' });
    value.textContent = day.stepsText;
    const label = svg('text', { x: centre.toFixed(2), y: CHART.label, class: 'label' });
    label.textContent = day.label;
    group.append(title, rect, value, label);
    return group;
  });
  bars.push(svg('line', { x1: 0, y1: CHART.baseline, x2: CHART.width, y2: CHART.baseline, class: 'baseline' }));
  $('activity-bars').replaceChildren(...bars);
  // The image is named only; the numbers are in the table, so a screen reader does not hear them twice.
  setText('activity-chart-title', activity.chartLabel);
  setText('activity-table-caption', activity.chartLabel);
  $('activity-table-body').replaceChildren(...days.map((day) => {
    const row = document.createElement('tr');
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = day.name;
    const steps = document.createElement('td');
    steps.textContent = day.stepsText;
    row.append(name, steps);
    return row;
  }));
}

function renderPlaylist(playlist) {
  setHidden($('activity-playlist'), !playlist);
  if (!playlist) return;
  setText('playlist-name', playlist.name);
  setText('playlist-tempo', playlist.tempoText);
  setText('playlist-description', playlist.description);
  setText('playlist-reason', playlist.reason);
  const link = $('playlist-link');
  setHidden(link, !playlist.link);
  setText('playlist-link', playlist.linkText);
  if (playlist.link && link.getAttribute('href') !== playlist.link) link.setAttribute('href', playlist.link);
}

// ---- Walked path ---------------------------------------------------------------------------------

// Position frame: x north (drawn up), y east (drawn right). The view box follows the path's extent.
function renderPath({ device, points = [] }) {
  if (page.device && device !== page.device.id) return;
  dashboardMap.path(device, points);
  const dot = $('path-dot');
  const start = $('path-start');
  const coordinates = points.map((point) => [point.y, -point.x]);
  drawLine($('path-line'), coordinates);
  setHidden(dot, coordinates.length === 0);
  setHidden(start, coordinates.length === 0);
  if (!coordinates.length) return;
  // At least 10 m across, so the first steps do not fill the whole plot.
  const frame = fitPlot($('path-map'), coordinates, 10);
  const [lastX, lastY] = coordinates[coordinates.length - 1];
  placeCircle(dot, lastX, lastY, frame.side * 0.025);
  placeCircle(start, coordinates[0][0], coordinates[0][1], frame.side * 0.015);
  drawGrid($('path-grid'), 'path-grid-size', frame);
}

// A polyline through [x, y] points (metres east, metres south: north is up).
function drawLine(line, coordinates) {
  line.setAttribute('points', coordinates.map(([x, y]) => `${x.toFixed(2)},${y.toFixed(2)}`).join(' '));
}

// Sets a plot's square view box round the points: at least `minimum` metres across, 15 % margin round them.
function fitPlot(plot, coordinates, minimum) {
  const xs = coordinates.map(([x]) => x);
  const ys = coordinates.map(([, y]) => y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const side = Math.max(maxX - minX, maxY - minY, minimum) * 1.15;
  const left = (minX + maxX) / 2 - side / 2;
  const top = (minY + maxY) / 2 - side / 2;
  plot.setAttribute('viewBox', `${left.toFixed(2)} ${top.toFixed(2)} ${side.toFixed(2)} ${side.toFixed(2)}`);
  return { left, top, side };
}

function placeCircle(circle, x, y, radius) {
  circle.setAttribute('cx', x.toFixed(2));
  circle.setAttribute('cy', y.toFixed(2));
  circle.setAttribute('r', radius.toFixed(2));
}

// A metre grid of 1, 2 or 5 × 10^n so that four to ten lines cross the plot; its size written in `sizeId`.
function drawGrid(grid, sizeId, { left, top, side }) {
  const rough = side / 6;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough);
  const lines = [];
  for (let x = Math.ceil(left / step) * step; x <= left + side; x += step) {
    lines.push(svg('line', { x1: x, y1: top, x2: x, y2: top + side, class: x === 0 ? 'axis' : '' }));
  }
  for (let y = Math.ceil(top / step) * step; y <= top + side; y += step) {
    lines.push(svg('line', { x1: left, y1: y, x2: left + side, y2: y, class: y === 0 ? 'axis' : '' }));
  }
  grid.replaceChildren(...lines);
  setText(sizeId, String(step));
}

// ---- Markers -------------------------------------------------------------------------------------

function renderMarkers(view) {
  setText('markers-status', view.statusText);
  showText('markers-error', view.errorText);
  setHidden($('markers-retry'), !view.retryAvailable);
  const key = JSON.stringify(view.markers.map((pin) => [pin.id, pin.name, pin.u, pin.v]));
  if (key === page.markersKey) return;
  page.markersKey = key;
  page.markerNames = new Map(view.markers.map((pin) => [pin.id, pin.name]));
  drawMarkerMap(view.markers);
  dashboardMap.markers(view.markers);
  listMarkers(view.markers);
  highlightMarker();
}

// u runs west→east and v north→south, both 0…1, straight onto a 100×100 view box.
function drawMarkerMap(pins) {
  const labelled = pins.length <= MAX_MAP_LABELS;
  $('markers-map').replaceChildren(...pins.map((pin) => {
    const x = (pin.u * 100).toFixed(2);
    const y = (pin.v * 100).toFixed(2);
    const group = svg('g', { class: 'pin', 'data-id': pin.id });
    const title = svg('title');
    title.textContent = pin.name;
    const label = svg('text', { x, y: (pin.v * 100 - 2.6).toFixed(2), class: labelled ? 'label' : 'label hover' });
    label.textContent = pin.name;
    // A larger transparent circle makes the pin easy to hit with a finger.
    group.append(title, svg('circle', { cx: x, cy: y, r: 2.4, class: 'hit' }),
      svg('circle', { cx: x, cy: y, r: 1.6, class: 'dot' }), label);
    return group;
  }));
}

function listMarkers(pins) {
  $('markers-list').replaceChildren(...pins.map((pin) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.id = pin.id;
    button.textContent = pin.name;
    button.setAttribute('aria-pressed', 'false');
    item.append(button);
    return item;
  }));
}

function highlightMarker() {
  for (const pin of $('markers-map').querySelectorAll('.pin')) {
    const selected = pin.dataset.id === page.selectedMarker;
    pin.classList.toggle('selected', selected);
    // SVG paints in document order: moving the chosen pin last keeps its label above its neighbours.
    if (selected) pin.parentNode.append(pin);
  }
  for (const button of $('markers-list').querySelectorAll('button')) {
    button.setAttribute('aria-pressed', String(button.dataset.id === page.selectedMarker));
  }
  dashboardMap.select(page.selectedMarker);
}

async function showNearest(id) {
  page.selectedMarker = id;
  highlightMarker();
  const request = ++page.nearestRequest;
  setText('nearest-title', page.markerNames.get(id) || id);
  $('nearest-list').replaceChildren();
  showText('nearest-error', '');
  $('nearest').setAttribute('aria-busy', 'true');
  let nearest;
  let failure;
  try {
    const response = await fetch(`/api/markers/${encodeURIComponent(id)}/nearest?count=3`);
    if (response.status === 401) dashboardAuth.unauthorized();
    const body = await response.json().catch(() => null);
    if (response.ok && body) nearest = body;
    else failure = errorMessage(body, response);
  } catch (error) {
    failure = `Could not reach the dashboard: ${error.message}`;
  }
  if (request !== page.nearestRequest) return;
  $('nearest').removeAttribute('aria-busy');
  if (failure) {
    showText('nearest-error', failure);
    return;
  }
  setText('nearest-title', nearest.title);
  $('nearest-list').replaceChildren(...nearest.items.map((item) => {
    const entry = document.createElement('li');
    entry.dataset.id = item.id;
    entry.textContent = `${item.name} — ${item.distanceText}`;
    return entry;
  }));
  showText('nearest-error', nearest.errorText);
}

// ---- Journal -------------------------------------------------------------------------------------

// The panel's state for one device. `view` is the server's JournalView (the `journal` event: the walk that is on
// and the photo points the dashboard has seen of it); `detail` is the journal's reply for the walk shown (its route
// and every photo point), asked for over the HTTP API, as the list of past walks is.
function newJournal(device) {
  return {
    device,
    view: null,
    chosen: '',          // a walk of the list the user chose to show; '' shows the walk that is on
    latest: '',          // the newest walk of the list, shown when none is on and none is chosen
    detail: null,        // the last WalkDetailView
    detailFor: '',       // the walk the last detail request was for, and when
    detailAt: 0,
    detailTimer: null,
    detailRequest: 0,    // counts requests, so a late answer never overwrites a newer one
    liveKey: '',         // the walk that is on and its counts, to ask again when it grows
    walksFor: null,      // the walk that was on when the list was last asked for (undefined: never)
    walksRequest: 0,
    pointsKey: '',       // what the photo list and the route were last drawn from
  };
}

function renderJournal({ device, journal }) {
  if (page.device && device !== page.device.id) return;
  if (page.journal.device !== device) {
    clearTimeout(page.journal.detailTimer);
    page.journal = newJournal(device);
  }
  const state = page.journal;
  state.view = journal;
  const walk = journal.walk;
  const status = $('journal-status');
  setText('journal-status', journal.statusText);
  status.classList.toggle('recording', journal.recording);
  status.classList.toggle('warning', journal.walkOn && !journal.recording);
  setHidden($('journal-walk'), !walk);
  if (walk) {
    setText('journal-walk-title', walk.title);
    setText('journal-walk-stats', walk.distanceText);
    setText('journal-walk-counts', walk.countsText);
    setText('journal-walk-date', walk.dateText ? `Started ${walk.dateText}` : '');
  }
  renderJournalButtons();
  // A walk started or stopped: the list changes (the walk that is on is its first entry).
  const liveID = walk ? walk.id : '';
  if (journal.reported && state.walksFor !== liveID) {
    state.walksFor = liveID;
    loadWalks();
  } else if (!journal.reported && state.walksFor === null) {
    setText('journal-walks-status', 'No walks reported.');
  }
  // The walk that is on grew: ask for its route again (at most every WALK_REFRESH_MS).
  const liveKey = walk ? JSON.stringify([walk.id, walk.routePoints, walk.points, walk.photos]) : '';
  const grew = liveKey !== state.liveKey;
  state.liveKey = liveKey;
  if (state.chosen && state.chosen === liveID) state.chosen = '';
  wantDetail(grew && !state.chosen);
  renderJournalWalk();
}

function renderJournalButtons() {
  const view = page.journal.view;
  const walkOn = Boolean(view && view.walkOn);
  $('journal-start').disabled = !page.device || walkOn;
  $('journal-stop').disabled = !page.device || !walkOn;
}

// The walk shown: the one chosen from the list, else the one that is on, else the newest.
function shownWalkID() {
  const state = page.journal;
  return state.chosen || (state.view && state.view.walk ? state.view.walk.id : '') || state.latest;
}

// Asks for the shown walk's route and photo points: at once for another walk, else (`refresh`, the walk grew) no
// sooner than WALK_REFRESH_MS after the last request.
function wantDetail(refresh) {
  const state = page.journal;
  const id = shownWalkID();
  if (!id) {
    clearTimeout(state.detailTimer);
    return;
  }
  if (id === state.detailFor && !refresh) return;
  clearTimeout(state.detailTimer);
  const wait = id === state.detailFor ? Math.max(0, state.detailAt + WALK_REFRESH_MS - Date.now()) : 0;
  state.detailTimer = setTimeout(() => loadDetail(id), wait);
}

async function loadDetail(id) {
  const state = page.journal;
  const request = ++state.detailRequest;
  state.detailFor = id;
  state.detailAt = Date.now();
  const path = `/api/devices/${encodeURIComponent(state.device)}/walks/${encodeURIComponent(id)}`;
  const { body, failure } = await fetchJSON(path);
  if (state !== page.journal || request !== state.detailRequest) return;
  showText('journal-error', failure || '');
  if (body) state.detail = body;
  renderJournalWalk();
}

async function loadWalks() {
  const state = page.journal;
  const request = ++state.walksRequest;
  setText('journal-walks-status', 'Asking the journal for the past walks…');
  const path = `/api/devices/${encodeURIComponent(state.device)}/walks?limit=${WALKS_LISTED}`;
  const { body, failure } = await fetchJSON(path);
  if (state !== page.journal || request !== state.walksRequest) return;
  if (failure) {
    setText('journal-walks-status', failure);
    return;
  }
  setText('journal-walks-status', body.walks.length ? '' : 'No walks yet.');
  state.latest = body.walks.length ? body.walks[0].id : '';
  listWalks(body.walks);
  wantDetail(false);
  renderJournalWalk();
}

// A GET of the dashboard's API: the JSON body when it succeeds, else the failure in words.
async function fetchJSON(path) {
  try {
    const response = await fetch(path);
    if (response.status === 401) dashboardAuth.unauthorized();
    const body = await response.json().catch(() => null);
    if (response.ok && body) return { body };
    return { failure: errorMessage(body, response) };
  } catch (error) {
    return { failure: `Could not reach the dashboard: ${error.message}` };
  }
}

function listWalks(walks) {
  $('journal-walks').replaceChildren(...walks.map((walk) => {
    const item = document.createElement('li');
    item.dataset.walk = walk.id;
    const title = document.createElement('span');
    title.className = 'walk-title';
    title.textContent = walk.active ? `${walk.title} (on)` : walk.title;
    const detail = document.createElement('span');
    detail.className = 'note';
    detail.textContent = [walk.dateText, walk.distanceText, walk.countsText].filter(Boolean).join(' · ');
    const show = document.createElement('button');
    show.type = 'button';
    show.dataset.walk = walk.id;
    show.textContent = 'Show';
    show.setAttribute('aria-label', `Show ${walk.title}`);
    const gpx = document.createElement('a');
    gpx.href = walk.gpxUrl;
    gpx.className = 'gpx';
    gpx.setAttribute('download', '');
    gpx.textContent = 'GPX';
    gpx.setAttribute('aria-label', `GPX download of ${walk.title}`);
    item.append(title, ' ', detail, ' ', show, ' ', gpx);
    return item;
  }));
  markShownWalk();
}

function markShownWalk() {
  const id = shownWalkID();
  for (const button of $('journal-walks').querySelectorAll('button[data-walk]')) {
    button.setAttribute('aria-pressed', String(button.dataset.walk === id));
  }
}

function chooseWalk(id) {
  const state = page.journal;
  const live = state.view && state.view.walk ? state.view.walk.id : '';
  // Choosing the shown walk again goes back to the walk that is on (or the newest).
  state.chosen = id === shownWalkID() || id === live ? '' : id;
  wantDetail(false);
  renderJournalWalk();
}

// The shown walk's photo points, newest first: the journal's reply, and what the live `journal/photo` messages
// say of each point (a decided point — found or none — wins over a pending one).
function shownPoints(id) {
  const state = page.journal;
  const byPoint = new Map();
  const add = (point) => {
    const known = byPoint.get(point.point);
    if (!known || known.status === 'pending' || point.status !== 'pending') byPoint.set(point.point, point);
  };
  if (state.detail && state.detail.walk.id === id) state.detail.points.forEach(add);
  if (state.view && state.view.walk && state.view.walk.id === id) state.view.points.forEach(add);
  return [...byPoint.values()].sort((a, b) => b.point - a.point);
}

function renderJournalWalk() {
  const state = page.journal;
  const id = shownWalkID();
  const detail = state.detail && state.detail.walk.id === id ? state.detail : null;
  const live = state.view && state.view.walk && state.view.walk.id === id ? state.view.walk : null;
  const walk = live || (detail && detail.walk);
  setText('journal-shown-title', walk ? `Photos of ${walk.title}` : 'Photos');
  const points = id ? shownPoints(id) : [];
  const route = detail ? detail.route : [];
  markShownWalk();
  const key = JSON.stringify([id, points, route.length, route[route.length - 1]]);
  if (key === state.pointsKey) return;
  state.pointsKey = key;
  listPhotoPoints(points, id);
  drawRoute(route, points);
}

function listPhotoPoints(points, id) {
  const empty = !id ? 'No walk on: start one, or choose a past walk below.' : 'No photo points yet.';
  setText('journal-photos-empty', points.length ? '' : empty);
  $('journal-photos').replaceChildren(...points.map((point) => {
    const item = document.createElement('li');
    item.className = `journal-point ${point.status}`;
    item.id = `journal-point-${point.point}`;
    item.dataset.point = point.point;
    item.tabIndex = -1;
    const where = document.createElement('p');
    where.className = 'note';
    where.textContent = point.distanceText;
    if (point.photo) {
      item.append(photoFigure(point.photo), where);
    } else {
      const placeholder = document.createElement('div');
      placeholder.className = 'placeholder';
      placeholder.textContent = point.placeholderText;
      item.append(placeholder, where);
      if (point.noteText) {
        const note = document.createElement('p');
        note.className = 'note';
        note.textContent = point.noteText;
        item.append(note);
      }
    }
    return item;
  }));
}

// The image, and under it the attribution its licence asks for: the title linked to the photo's page, the author,
// the licence linked to its text.
function photoFigure(photo) {
  const figure = document.createElement('figure');
  const image = document.createElement('img');
  image.src = photo.imageUrl;
  image.alt = photo.altText;
  image.loading = 'lazy';
  if (photo.width && photo.height) {
    image.width = photo.width;
    image.height = photo.height;
  }
  const caption = document.createElement('figcaption');
  caption.className = 'attribution';
  caption.append(link(photo.title, photo.pageUrl, 'photo-title'));
  if (photo.authorText) {
    const author = document.createElement('span');
    author.className = 'photo-author';
    author.textContent = photo.authorText;
    caption.append(' ', author);
  }
  caption.append(' · ', link(photo.license, photo.licenseUrl, 'photo-license'));
  figure.append(image, caption);
  return figure;
}

// A link opening in a new tab, or plain text without a URL.
function link(text, url, className) {
  const element = document.createElement(url ? 'a' : 'span');
  element.className = className;
  element.textContent = text;
  if (url) {
    element.href = url;
    element.target = '_blank';
    element.rel = 'noopener noreferrer';
  }
  return element;
}

// The route in metres round its first point (east right, north up), as the walked path is drawn, and a pin per
// photo; the pins alone while there is no route yet.
function drawRoute(route, points) {
  const pins = points.filter((point) => point.photo && point.latitude != null && point.longitude != null);
  const places = route.map((point) => [point.latitude, point.longitude])
    .concat(pins.map((point) => [point.latitude, point.longitude]));
  const map = $('journal-map');
  setHidden(map, !places.length);
  setHidden($('journal-map-note'), !places.length);
  if (!places.length) return;
  const [lat0, lon0] = places[0];
  const east = Math.cos((lat0 * Math.PI) / 180) * 111320;
  const project = ([lat, lon]) => [(lon - lon0) * east, -(lat - lat0) * 110540];
  const line = route.map((point) => project([point.latitude, point.longitude]));
  const frame = fitPlot(map, places.map(project), 50);
  drawLine($('journal-route'), line);
  setHidden($('journal-route-start'), !line.length);
  setHidden($('journal-route-end'), !line.length);
  if (line.length) {
    placeCircle($('journal-route-start'), line[0][0], line[0][1], frame.side * 0.015);
    placeCircle($('journal-route-end'), line[line.length - 1][0], line[line.length - 1][1], frame.side * 0.02);
  }
  drawGrid($('journal-grid'), 'journal-grid-size', frame);
  $('journal-pins').replaceChildren(...pins.map((point) => {
    const [x, y] = project([point.latitude, point.longitude]);
    const group = svg('g', { class: 'journal-pin', 'data-point': point.point });
    const title = svg('title');
    title.textContent = `${point.photo.title} (${point.distanceText})`;
    group.append(title,
      svg('circle', { cx: x.toFixed(2), cy: y.toFixed(2), r: (frame.side * 0.035).toFixed(2), class: 'hit' }),
      svg('circle', { cx: x.toFixed(2), cy: y.toFixed(2), r: (frame.side * 0.02).toFixed(2), class: 'dot' }));
    return group;
  }));
}

// A pin's photo, scrolled to and focused.
function showPhotoPoint(point) {
  const item = $(`journal-point-${point}`);
  if (!item) return;
  item.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  item.focus({ preventScroll: true });
}

function startWalk() {
  const name = $('journal-name').value.trim();
  deviceCommand('walk', name ? { action: 'start', name } : { action: 'start' });
  $('journal-name').value = '';
}

// ---- Services ------------------------------------------------------------------------------------

function renderServices(services) {
  $('services').replaceChildren(...services.map((service) => {
    const item = document.createElement('li');
    item.className = `service ${service.state}`;
    item.textContent = service.text;
    return item;
  }));
}

// ---- Commands ------------------------------------------------------------------------------------

async function post(path, body) {
  setText('command-status', '');
  try {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status === 401) dashboardAuth.unauthorized();
    if (!response.ok) {
      const answer = await response.json().catch(() => null);
      setText('command-status', errorMessage(answer, response));
    }
  } catch (error) {
    setText('command-status', `Could not reach the dashboard: ${error.message}`);
  }
}

function errorMessage(body, response) {
  if (body && body.error && body.error.message) return body.error.message;
  if (body && body.errorText) return body.errorText;
  return `The dashboard answered ${response.status} ${response.statusText}`;
}

function deviceCommand(command, body) {
  if (!page.device) return;
  post(`/api/devices/${encodeURIComponent(page.device.id)}/${command}`, body);
}

// ---- Preferences ---------------------------------------------------------------------------------

// localStorage throws in some private modes; the page then just forgets the choice.
function readUnit() {
  try {
    return localStorage.getItem(UNIT_KEY) === 'feet' ? 'feet' : 'metres';
  } catch {
    return 'metres';
  }
}

function toggleUnit() {
  page.unit = page.unit === 'feet' ? 'metres' : 'feet';
  try {
    localStorage.setItem(UNIT_KEY, page.unit);
  } catch {
    // Not remembered; still switched for this visit.
  }
  renderElevation();
}

// ---- Static drawing and wiring -------------------------------------------------------------------

// Ticks every 10°, longer every 30°, with the bearing written every 30° between the cardinals.
function drawTicks() {
  const ticks = [];
  for (let degrees = 0; degrees < 360; degrees += 10) {
    const long = degrees % 30 === 0;
    ticks.push(svg('line', { x1: 0, y1: -100, x2: 0, y2: long ? -86 : -92, transform: `rotate(${degrees})` }));
    if (long && degrees % 90 !== 0) {
      const label = svg('text', { x: 0, y: -76, transform: `rotate(${degrees})`, class: 'degrees' });
      label.textContent = String(degrees);
      ticks.push(label);
    }
  }
  $('rose-ticks').replaceChildren(...ticks);
}

function wire() {
  $('device-picker').addEventListener('change', (event) => {
    page.chosenDevice = event.target.value;
    connect();
  });
  $('lock-button').addEventListener('click', () => {
    const locked = page.device && page.device.bearingLock.locked;
    deviceCommand('bearing-lock', { action: locked ? 'unlock' : 'lock' });
  });
  $('north-toggle').addEventListener('click', () => {
    deviceCommand('settings', { north: page.device && page.device.north === 'magnetic' ? 'true' : 'magnetic' });
  });
  $('calibrate-button').addEventListener('click', () => deviceCommand('calibrate', { action: 'start' }));
  $('reset-position').addEventListener('click', () => deviceCommand('reset-position', {}));
  $('journal-start').addEventListener('click', startWalk);
  $('journal-stop').addEventListener('click', () => deviceCommand('walk', { action: 'stop' }));
  $('journal-name').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !$('journal-start').disabled) startWalk();
  });
  $('journal-walks').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-walk]');
    if (button) chooseWalk(button.dataset.walk);
  });
  $('journal-pins').addEventListener('click', (event) => {
    const pin = event.target.closest('.journal-pin');
    if (pin) showPhotoPoint(pin.dataset.point);
  });
  $('markers-retry').addEventListener('click', () => post('/api/markers/refresh', {}));
  $('elevation-toggle').addEventListener('click', toggleUnit);
  $('markers-list').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-id]');
    if (button) showNearest(button.dataset.id);
  });
  $('markers-map').addEventListener('click', (event) => {
    const pin = event.target.closest('.pin');
    if (pin) showNearest(pin.dataset.id);
  });
}

drawTicks();
wire();
renderElevation();
connect();

#!/usr/bin/env python3
"""Drives the StepCompass dashboard page in headless Chromium, against a running stack.

Started by scripts/check-dashboard-browser.sh, which runs a private broker and the real services; this
script only talks to the page (Selenium + Debian's chromedriver, no Selenium Manager download) and, to
see that the page's buttons reach the bus, to the broker with `mosquitto_sub` (and `mosquitto_pub` for
the activity service's and the journal's messages, and to answer the journal's requests: the stack runs
neither service).

Checks, each reported on its own line (a failed check does not stop the later ones):
  - the page loads and the browser log has no SEVERE entry (JavaScript errors, failed requests);
  - the steps, heading and position texts appear in the contract's formats and change as the walker walks;
  - the rose's dial turns (its transform changes, with a CSS transition) and its label follows the heading;
  - the lock button publishes cmd/bearing-lock {"action": "lock"} and the page shows "Locked on …",
    the lock drawn on the rose; a bearing far off the heading shows the red state; the button unlocks;
  - the north toggle publishes cmd/settings and the page follows the published north;
  - the markers status says ready; choosing a marker (from the list with the keyboard, and on the map
    with the mouse) shows its three nearest as "Name — 1.23 mi", ascending;
  - the real map (Leaflet from the dashboard's /vendor/leaflet/, tiles from a tile server this script runs on
    --tile-port, generated PNGs, no network): OpenStreetMap's attribution, a map marker per listed marker inside the
    view, a click on one lists its nearest three; 3,000 markers handed to the page are grouped (Leaflet.markercluster,
    or the page's own grid) and a click on a group zooms in; the walk is placed on the map from the first good fix and
    grows with the plot, the fix has its accuracy circle (radius = the reported accuracy);
  - the elevation toggle switches units and is remembered; the OpenStreetMap link opens in a new tab;
  - the walked path grows, with the current position's dot;
  - the Activity panel: a retained `activity` message published with `mosquitto_pub` shows today's steps,
    seven bars (each with a <title>, the numbers in a visually hidden table), band, cadence and the
    playlist's link; a `notDetermined` authorization shows the guidance instead of the playlist;
  - the Journal panel: before the journal reports it says so and Start publishes cmd/walk {"action": "start"};
    then retained `journal` and `journal/photo` messages (a walk, two photos, a `none` and a `pending` point)
    show the walk, the photo points newest first, each photo (PNGs made here, in the dashboard's
    --journal-cache-dir, served from /journal/photos/) with its attribution linked, the placeholders, the route
    with a pin per photo and the past walks with a GPX download each; `journal/walks` requests are answered by a
    stand-in for the journal (mosquitto_sub/mosquitto_pub, MQTT 5); Stop publishes {"action": "stop"};
  - controls have names, Tab shows a visible focus, the heading is an aria-live region, the rose is a
    labelled image; light and dark follow prefers-color-scheme.
Then, each in a browser of its own, the other dashboards the shell script runs on the same bus: with the tiles
unreachable (--fallback-url: the page gives the map up within seconds, says why in both panels, and the plain
drawing works: a click on a pin lists the nearest, the path grows), without Leaflet (--plain-url: says so, asks for
no Leaflet file), and with Leaflet but without Leaflet.markercluster (--grid-url: the page's own grouping).
And a dashboard started with an access token (--token-url, its token --token, given to it with --auth-token-file):
the page shows its token form and no data, a wrong token is refused with a message and asked again, the right one
shows live data (the stream, the map's settings) and is kept (localStorage, the cookie the browser then sends), and a
reload keeps working without asking again; no console error after the token is in (the 401s before it are expected).
Last, cross-site requests against the --url dashboard: a page of another origin, served by this script on
--hostile-port as http://127.0.0.1:PORT (the same site, another port: Sec-Fetch-Site same-site) and as
http://localhost:PORT (cross-site), tries every way a page can to POST to reset-position, bearing-lock and
markers/refresh: fetch with Content-Type: application/json (preflighted: the browser must refuse it), fetch no-cors
with a text/plain JSON body, a form (urlencoded, and text/plain smuggling a JSON body) into a hidden iframe, and
sendBeacon. Each attempt is a check: the dashboard's metrics (--metrics-url) must count its refusal (403, or the
preflight's 404), the iframe must show the API's 'forbidden' error, and no command may appear on the bus (a
mosquitto_sub on the command topics and the position). Then, waiting for events only: the walker's position keeps
advancing and its steps never went down (no reset), every request was refused (the metrics, exactly); and, as the
control, the dashboard's own page resets the position (202, the command on the bus, the steps back to 0) and locks
and refreshes: each the first message on its topic since the watch began, so no attempt published one before it.
Without Leaflet on the machine the map's checks are skipped, or fail with --require-leaflet (CI).
Keeps a screenshot (--screenshot) of the first page whatever the outcome.
"""
import argparse
import http.server
import json
import os
import re
import queue
import struct
import subprocess
import sys
import threading
import time
import urllib.request
import zlib

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

STEPS = re.compile(r"^Steps: \d[\d,]*$")
HEADING = re.compile(r"^Heading: \d{1,3}° (N|NE|E|SE|S|SW|W|NW)$")
POSITION = re.compile(r"^Position: \(–?[\d,]+\.\d m, –?[\d,]+\.\d m\)$")
NEAREST_ITEM = re.compile(r"^(.+) — (\d[\d,]*\.\d\d) mi$")
MARKERS_READY = re.compile(r"^Markers: \d[\d,]* markers? ready")
ROTATE = re.compile(r"^rotate\((-?[\d.e+-]+)deg\)$")


class CheckFailed(Exception):
    pass


class Page:
    """The browser and the few ways the checks read the page."""

    def __init__(self, args):
        options = Options()
        options.binary_location = args.chromium
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={args.window_size}",
                     "--no-first-run", "--disable-extensions", "--lang=en-US"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # An explicit chromedriver path: Selenium then never tries to download one (Selenium Manager).
        self.driver = webdriver.Chrome(service=Service(executable_path=args.chromedriver), options=options)
        self.driver.set_page_load_timeout(20)
        self.log = []

    def text(self, element_id):
        return self.driver.execute_script(
            "const e = document.getElementById(arguments[0]); return e ? e.textContent.trim() : null;", element_id)

    def element(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def dial_transform(self):
        return self.js("return document.getElementById('rose-dial').style.transform;")

    def wait(self, what, predicate, timeout):
        """Polls `predicate` until it returns something truthy; fails with `what` and the last value."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            try:
                last = predicate()
            except WebDriverException as error:
                last = f"WebDriver error: {error.msg}"
            else:
                if last:
                    return last
            if time.monotonic() > deadline:
                raise CheckFailed(f"{what} (waited {timeout:.0f} s; last seen: {last!r})")
            time.sleep(0.2)

    def browser_log(self):
        entries = self.driver.get_log("browser")
        self.log.extend(entries)
        return entries

    def quit(self):
        try:
            self.driver.quit()
        except WebDriverException:
            pass


class BusWatch:
    """`mosquitto_sub` waiting for one message, started (and subscribed) before the click that should publish it."""

    def __init__(self, port, topic, timeout=10):
        # -d prints the SUBACK, so we know the subscription is in place before clicking: no guessed sleep;
        # stdbuf makes its output line-buffered in the pipe, or the SUBACK would wait in its buffer.
        self.process = subprocess.Popen(
            ["stdbuf", "-oL", "mosquitto_sub", "-d", "-h", "127.0.0.1", "-p", str(port), "-t", topic, "-C", "1", "-W", str(timeout), "-v"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._until(lambda line: "SUBACK" in line, "mosquitto_sub did not subscribe", 10)

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _until(self, wanted, failure, timeout):
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None:
                self.process.kill()
                raise CheckFailed(f"{failure} ({' / '.join(seen[-3:]) or 'no output'})")
            if wanted(line):
                return line
            seen.append(line)

    def message(self):
        """The topic and JSON payload of the first message (a `-v` line, among the debug lines)."""
        line = self._until(lambda line: line.startswith("stepcompass/"), "nothing was published", 12)
        self.process.wait(timeout=5)
        topic, _, payload = line.partition(" ")
        return topic, json.loads(payload)


def red_dominates(css_colour):
    match = re.match(r"rgba?\((\d+), (\d+), (\d+)", css_colour or "")
    if not match:
        return False
    r, g, b = (int(v) for v in match.groups())
    return r > g + 60 and r > b + 60


def post(base, path, body):
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


# ---- The checks, in order; each gets the page and the options ------------------------------------------

def check_loads(page, args):
    page.driver.get(args.url)
    page.wait("the document has the page's title", lambda: page.driver.title == "StepCompass", 10)
    page.wait("the live connection opens", lambda: page.text("connection") == "Live", 10)
    device = page.wait("the device picker offers the walker",
                       lambda: page.js("const p = document.getElementById('device-picker'); return !p.disabled && p.value;"), 20)
    return f"page loaded, event stream live, device {device!r}"


def check_formats(page, args):
    steps = page.wait("steps appear as 'Steps: N'", lambda: STEPS.match(page.text("steps")) and page.text("steps"), 30)
    heading = page.wait("heading appears as 'Heading: 270° W'",
                        lambda: HEADING.match(page.text("heading")) and page.text("heading"), 30)
    position = page.wait("position appears as 'Position: (12.3 m, –4.5 m)'",
                         lambda: POSITION.match(page.text("position")) and page.text("position"), 30)
    return f"{steps!r}, {heading!r}, {position!r}"


def check_changes(page, args):
    first = {name: page.text(name) for name in ("steps", "heading", "position")}
    first["dial"] = page.dial_transform()
    seen = {name: {value} for name, value in first.items()}

    angles = []

    def all_changed():
        current = {name: page.text(name) for name in ("steps", "heading", "position")}
        current["dial"] = page.dial_transform()
        for name, value in current.items():
            seen[name].add(value)
        match = ROTATE.match(current["dial"] or "")
        if match:
            angles.append(float(match.group(1)))
        for pattern, name in ((STEPS, "steps"), (HEADING, "heading"), (POSITION, "position")):
            if not pattern.match(current[name]):
                raise CheckFailed(f"{name} lost its format: {current[name]!r}")
        return all(len(values) > 1 for values in seen.values())

    try:
        page.wait("steps, heading, position and the rose all change", all_changed, args.change_timeout)
    except CheckFailed as error:
        summary = {name: f"{len(values)} distinct, e.g. {sorted(values, key=str)[:2]}" for name, values in seen.items()}
        raise CheckFailed(f"{error}; values seen: {summary}") from None
    # The angle is unwrapped by the server: a jump of nearly a turn between two samples 0.2 s apart
    # would be the page normalising it, and the transition spinning the long way round.
    jumps = [(a, b) for a, b in zip(angles, angles[1:]) if abs(b - a) > 300]
    if jumps:
        raise CheckFailed(f"the dial jumped by nearly a turn: {jumps[:3]}")
    return "changed: " + ", ".join(f"{name} {len(values)} values" for name, values in seen.items()) + \
        f"; dial {min(angles, default=0):.0f}…{max(angles, default=0):.0f}°, no jump over 300°"


def check_path(page, args):
    count = "return document.getElementById('path-line').points.numberOfItems;"
    first = page.js(count)
    grown = page.wait(f"the walked path grows beyond its {first} points", lambda: page.js(count) > max(first, 1)
                      and page.js(count), 15)
    if page.element("path-dot").get_attribute("hidden") is not None:
        raise CheckFailed("the current position's dot is hidden")
    box = page.js("return document.getElementById('path-map').getAttribute('viewBox');")
    return f"{first} -> {grown} points, view box {box}"


def check_rose(page, args):
    transform = page.dial_transform()
    if not ROTATE.match(transform or ""):
        raise CheckFailed(f"the dial's transform is not rotate(…deg): {transform!r}")
    style = page.js("const s = getComputedStyle(document.getElementById('rose-dial'));"
                    "return [s.transitionProperty, s.transitionDuration, s.transitionTimingFunction];")
    if style[0] not in ("transform", "all") or style[1] in ("", "0s"):
        raise CheckFailed(f"the dial has no transform transition ({style})")
    duration = f"{style[0]} {style[1]} {style[2]}"
    label = page.element("rose").get_attribute("aria-label") or ""
    if page.element("rose").get_attribute("role") != "img" or "Heading" not in label:
        raise CheckFailed(f"the rose is not a labelled image (aria-label {label!r})")
    if page.element("heading").get_attribute("aria-live") != "polite":
        raise CheckFailed("the heading is not in an aria-live=polite region")
    return f"dial {transform}, transition {duration}, aria-label {label!r}"


def check_lock(page, args):
    if page.text("lock-button") == "Unlock bearing":
        page.element("lock-button").click()
        page.wait("unlocked before the test", lambda: page.text("lock-text") == "Not locked", 10)
    watch = BusWatch(args.mqtt_port, "stepcompass/+/cmd/bearing-lock")
    page.element("lock-button").click()
    topic, payload = watch.message()
    if payload.get("action") != "lock" or not re.match(r"^stepcompass/[^/]+/cmd/bearing-lock$", topic):
        raise CheckFailed(f"the lock button published {topic} {payload}")
    text = page.wait("the page shows 'Locked on …'", lambda: page.text("lock-text").startswith("Locked on ") and
                     page.text("lock-text"), 10)
    if page.text("lock-button") != "Unlock bearing":
        raise CheckFailed(f"the lock button offers {page.text('lock-button')!r} once locked")
    if not page.js("return !document.getElementById('lock-mark').hasAttribute('hidden');"):
        raise CheckFailed("the locked bearing is not drawn on the rose")
    return f"published {topic} {json.dumps(payload)}; page: {text!r}"


def check_red_band(page, args):
    """A lock 120° off the heading: the deviation passes the threshold, so the page must turn red."""
    device = page.js("return document.getElementById('device-picker').value;")
    heading = int(re.match(r"^Heading: (\d+)°", page.text("heading")).group(1))
    bearing = (heading + 120) % 360
    post(args.url.rstrip("/"), f"/api/devices/{device}/bearing-lock",
         {"action": "lock", "bearing": bearing, "threshold": 10})
    page.wait("the lock panel turns red (class exceeded)",
              lambda: page.js("return document.getElementById('lock-panel').classList.contains('exceeded');"), 10)
    drawn = page.element("lock-mark").get_attribute("transform")
    if drawn != f"rotate({bearing})":
        raise CheckFailed(f"the locked bearing {bearing}° is drawn at {drawn!r} on the dial")
    colour = page.js("return getComputedStyle(document.getElementById('lock-panel')).borderTopColor;")
    band = page.js("return getComputedStyle(document.getElementById('lock-band')).fill;")
    if not red_dominates(colour) or not red_dominates(band):
        raise CheckFailed(f"the exceeded state is not red (panel border {colour}, band {band})")
    return f"locked on {bearing}°: {page.text('lock-text')!r}, panel {colour}, band {band}"


def check_unlock(page, args):
    watch = BusWatch(args.mqtt_port, "stepcompass/+/cmd/bearing-lock")
    page.element("lock-button").click()
    topic, payload = watch.message()
    if payload.get("action") != "unlock":
        raise CheckFailed(f"the button of a locked bearing published {payload}")
    page.wait("the page shows 'Not locked'", lambda: page.text("lock-text") == "Not locked", 10)
    return f"published {topic} {json.dumps(payload)}"


def check_north(page, args):
    results = []
    for expected, text in (("magnetic", "Magnetic north"), ("true", "True north")):
        page.wait(f"the north toggle offers {expected}",
                  lambda: page.text("north-toggle") == f"Use {expected} north" and not page.element("north-toggle").get_attribute("disabled"), 10)
        watch = BusWatch(args.mqtt_port, "stepcompass/+/cmd/settings")
        page.element("north-toggle").click()
        topic, payload = watch.message()
        if payload != {"north": expected}:
            raise CheckFailed(f"the north toggle published {topic} {payload}, expected north {expected}")
        page.wait(f"the page says {text}", lambda: page.text("north").startswith(text), 10)
        results.append(f"{topic} {json.dumps(payload)} -> {page.text('north')!r}")
    return "; ".join(results)


def check_markers_ready(page, args):
    status = page.wait("the markers status says ready", lambda: MARKERS_READY.match(page.text("markers-status"))
                       and page.text("markers-status"), 20)
    listed = page.js("return document.querySelectorAll('#markers-list button').length;")
    pins = page.js("return document.querySelectorAll('#markers-map .pin').length;")
    if listed < 4 or listed != pins:
        raise CheckFailed(f"{listed} markers listed and {pins} on the map")
    if page.js("return !document.getElementById('markers-retry').hasAttribute('hidden');"):
        raise CheckFailed("the retry button shows while the markers are ready")
    return f"{status!r}, {listed} markers listed and on the map"


def nearest_shown(page, name):
    """The nearest panel once it shows the answer for `name`: title, items and their marker ids, read at once."""
    title, items, ids, error = page.js("""
        const items = [...document.querySelectorAll('#nearest-list li')];
        return [document.getElementById('nearest-title').textContent, items.map(li => li.textContent),
                items.map(li => li.dataset.id), document.getElementById('nearest-error').textContent];""")
    if error:
        raise CheckFailed(f"nearest of {name} failed: {error!r}")
    if title != f"Nearest to {name}" or len(items) != 3:
        return False
    return title, items, ids


def check_nearest_items(marker_id, shown):
    title, items, ids = shown
    distances = []
    for item in items:
        match = NEAREST_ITEM.match(item)
        if not match:
            raise CheckFailed(f"nearest item {item!r} is not 'Name — 1.23 mi'")
        distances.append(float(match.group(2).replace(",", "")))
    if distances != sorted(distances):
        raise CheckFailed(f"nearest distances are not ascending: {items}")
    if marker_id in ids:
        raise CheckFailed(f"the marker {marker_id} lists itself among its nearest: {ids}")
    return f"{title!r}: {items}"


def check_nearest_keyboard(page, args):
    """The second marker of the list, chosen with the keyboard (focus + Enter on its button)."""
    button = page.driver.find_elements(By.CSS_SELECTOR, "#markers-list button")[1]
    name, marker_id = button.text, button.get_attribute("data-id")
    page.js("arguments[0].focus();", button)
    button.send_keys(Keys.ENTER)
    shown = page.wait(f"three nearest of {name} after Enter on its list button", lambda: nearest_shown(page, name), 10)
    if button.get_attribute("aria-pressed") != "true":
        raise CheckFailed("the chosen marker's button is not marked pressed")
    return check_nearest_items(marker_id, shown)


def check_nearest_map(page, args):
    """A marker clicked with the mouse on the real map: one not chosen yet, and not covered by a neighbour."""
    page.js("document.getElementById('markers-leaflet').scrollIntoView({block: 'center'});")
    pin = page.js("""
        const box = document.getElementById('markers-leaflet').getBoundingClientRect();
        return [...document.querySelectorAll('#markers-leaflet .map-pin:not(.selected)')].find(pin => {
          const r = pin.getBoundingClientRect();
          const [x, y] = [r.x + r.width / 2, r.y + r.height / 2];
          if (x < box.left + 30 || x > box.right - 30 || y < box.top + 30 || y > box.bottom - 30) return false;
          return document.elementFromPoint(x, y) === pin;
        });""")
    if pin is None:
        raise CheckFailed("no marker can be clicked on its own on the map")
    marker_id = pin.get_attribute("data-id")
    name = pin.get_attribute("title")
    if not marker_id or pin.get_attribute("aria-label") != name or pin.get_attribute("role") != "button":
        raise CheckFailed(f"the map marker has id {marker_id!r}, title {name!r}, aria-label {pin.get_attribute('aria-label')!r}")
    webdriver.ActionChains(page.driver).move_to_element(pin).click().perform()
    shown = page.wait(f"three nearest of {name} ({marker_id}) after clicking its map marker",
                      lambda: nearest_shown(page, name), 10)
    page.wait("the clicked map marker is marked chosen", lambda: "selected" in (pin.get_attribute("class") or ""), 5)
    return check_nearest_items(marker_id, shown)


def check_nearest_plot(page, args):
    """A pin clicked with the mouse on the plain drawing (no map): one not chosen yet, and not covered by a neighbour."""
    page.js("document.getElementById('markers-map').scrollIntoView({block: 'center'});")
    pin = page.js("""
        return [...document.querySelectorAll('#markers-map .pin:not(.selected) .dot')].find(dot => {
          const box = dot.getBoundingClientRect();
          const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
          return hit && hit.closest('.pin') === dot.parentNode;
        });""")
    if pin is None:
        raise CheckFailed("no marker pin can be clicked on its own on the map")
    marker_id = page.js("return arguments[0].parentNode.dataset.id;", pin)
    name = page.js("return arguments[0].parentNode.querySelector('title').textContent;", pin)
    webdriver.ActionChains(page.driver).move_to_element(pin).click().perform()
    shown = page.wait(f"three nearest of {name} ({marker_id}) after clicking its pin",
                      lambda: nearest_shown(page, name), 10)
    return check_nearest_items(marker_id, shown)


# ---- The real map (Leaflet, tiles from the check's own tile server) ------------------------------------------

def map_state(page):
    """What the page's map shows, read at once."""
    return page.js("""
        const shown = (id) => { const e = document.getElementById(id); return !e.hasAttribute('hidden') && e.getBoundingClientRect().width > 0; };
        const text = (id) => document.getElementById(id).textContent.trim();
        const attribution = (id) => {
          const c = document.querySelector(`#${id} .leaflet-control-attribution`);
          const a = c && c.querySelector('a[href="https://www.openstreetmap.org/copyright"]');
          return c ? { text: c.textContent, link: a ? a.textContent : null } : null;
        };
        return {
          mode: document.body.dataset.map || '', leaflet: typeof window.L === 'object',
          grouping: dashboardMap.grouping,
          markersMap: shown('markers-leaflet'), markersPlot: shown('markers-map'), markersNote: text('markers-map-note'),
          markersNoteShown: shown('markers-map-note'),
          walkMap: shown('walk-leaflet'), walkPlot: shown('path-map'), walkNote: text('path-map-note'),
          walkNoteShown: shown('path-map-note'),
          tiles: [...document.querySelectorAll('#markers-leaflet img.leaflet-tile-loaded')].map(img => img.src),
          walkTiles: document.querySelectorAll('#walk-leaflet img.leaflet-tile-loaded').length,
          attribution: attribution('markers-leaflet'), walkAttribution: attribution('walk-leaflet'),
          pins: [...document.querySelectorAll('#markers-leaflet .map-pin')].map(pin => pin.dataset.id),
          vendor: performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/vendor/')),
        };""")


def check_map_markers(page, args):
    """The markers on the real map: Leaflet from /vendor/leaflet/, tiles from the check's tile server with
    OpenStreetMap's attribution, one map marker per listed marker, inside the map; the plain drawing hidden."""
    state = page.wait("the page shows the map (Leaflet loaded, tiles loading)",
                      lambda: (s := map_state(page))["mode"] == "map" and s["markersMap"] and s["tiles"] and s, 20)
    if state["markersPlot"] or state["markersNoteShown"]:
        raise CheckFailed(f"with the map, the plain drawing or a note still shows ({state['markersNote']!r})")
    tile_base = f"http://127.0.0.1:{args.tile_port}/"
    if not all(src.startswith(tile_base) for src in state["tiles"]) or not args.tile_server.requests:
        raise CheckFailed(f"the tiles do not come from --tile-url ({state['tiles'][:2]}, {args.tile_server.requests} requests)")
    if not any(name.endswith("/vendor/leaflet/leaflet.min.js") or name.endswith("/vendor/leaflet/leaflet.js")
               for name in state["vendor"]):
        raise CheckFailed(f"Leaflet was not loaded from /vendor/leaflet/: {state['vendor']}")
    attribution = state["attribution"] or {}
    if "©" not in attribution.get("text", "") or attribution.get("link") != "OpenStreetMap contributors":
        raise CheckFailed(f"the map's attribution is {attribution}")
    listed = page.js("return [...document.querySelectorAll('#markers-list button')].map(b => b.dataset.id);")
    pins = page.wait("a map marker for each listed marker",
                     lambda: (ids := map_state(page)["pins"]) and sorted(ids) == sorted(listed) and ids, 10)
    outside = page.js("""
        const box = document.getElementById('markers-leaflet').getBoundingClientRect();
        return [...document.querySelectorAll('#markers-leaflet .map-pin')].filter(pin => {
          const r = pin.getBoundingClientRect();
          return r.right < box.left || r.left > box.right || r.bottom < box.top || r.top > box.bottom;
        }).map(pin => pin.title);""")
    if outside:
        raise CheckFailed(f"markers outside the map's view: {outside[:5]}")
    return (f"{len(pins)} map markers (grouping {state['grouping']}), {len(state['tiles'])} tiles from {tile_base} "
            f"({args.tile_server.requests} served), attribution {attribution['text'].strip()!r}")


def fake_pins(count):
    """`count` markers spread over central Munich, deterministic."""
    return [{"id": f"fake-{i}", "name": f"Fake marker {i}", "latitude": 48.10 + (i * 7919 % 1000) / 1000 * 0.08,
             "longitude": 11.50 + (i * 104729 % 997) / 997 * 0.12, "u": 0.5, "v": 0.5} for i in range(count)]


def grouped(page):
    return page.js("""
        const counts = [...document.querySelectorAll('#markers-leaflet .marker-cluster, #markers-leaflet .map-cluster')]
          .map(e => parseInt(e.textContent, 10));
        return { groups: counts.length, inGroups: counts.reduce((a, b) => a + b, 0),
                 single: document.querySelectorAll('#markers-leaflet .map-pin').length,
                 zoom: dashboardMap.markersMap.map.getZoom(), grouping: dashboardMap.grouping };""")


def check_map_clusters(page, args):
    """Thousands of markers are grouped (Leaflet.markercluster when installed, else the page's own grid): the groups'
    counts and the single markers add up to all of them, and a click on a group zooms in. The page is handed the
    markers directly (the marker service's sample has 44), then the real ones again."""
    count = 3000
    expected = "markercluster" if args.cluster_library else "grid"
    page.js("window.__realPins = dashboardMap.last.pins; dashboardMap.markers(arguments[0]);", fake_pins(count))
    try:
        shown = page.wait(f"{count} markers shown as groups and single markers",
                          lambda: (g := grouped(page))["groups"] and g["inGroups"] + g["single"] == count and g, 20)
        if shown["grouping"] != expected:
            raise CheckFailed(f"grouped by {shown['grouping']}, expected {expected}")
        if shown["groups"] > 300:
            raise CheckFailed(f"{shown['groups']} groups for {count} markers: hardly grouped")
        page.js("document.getElementById('markers-leaflet').scrollIntoView({block: 'center'});")
        group = page.js("""
            const box = document.getElementById('markers-leaflet').getBoundingClientRect();
            return [...document.querySelectorAll('#markers-leaflet .marker-cluster, #markers-leaflet .map-cluster')].find(e => {
              const r = e.getBoundingClientRect();
              const [x, y] = [r.x + r.width / 2, r.y + r.height / 2];
              return x > box.left + 30 && x < box.right - 30 && y > box.top + 30 && y < box.bottom - 30
                && e.contains(document.elementFromPoint(x, y));
            });""")
        if group is None:
            raise CheckFailed("no group can be clicked on its own on the map")
        webdriver.ActionChains(page.driver).move_to_element(group).click().perform()
        zoomed = page.wait("a click on a group zooms in", lambda: (z := grouped(page)["zoom"]) > shown["zoom"] and z, 10)
    finally:
        page.js("dashboardMap.markers(window.__realPins || []);")
    listed = page.js("return document.querySelectorAll('#markers-list button').length;")
    page.wait("the real markers are back on the map", lambda: len(map_state(page)["pins"]) == listed, 10)
    return (f"{count} markers: {shown['groups']} groups holding {shown['inGroups']}, {shown['single']} single "
            f"({shown['grouping']}); a click on a group zoomed {shown['zoom']} -> {zoomed}")


def walk_state(page):
    return page.js("""
        const walk = dashboardMap.walkMap, device = page.device, location = device && device.location;
        if (!walk || !walk.anchor || !location) return null;
        const end = walk.line.getLatLngs();
        return {
          line: end.length, plot: document.getElementById('path-line').points.numberOfItems,
          you: document.querySelectorAll('#walk-leaflet path.map-you').length,
          circle: document.querySelectorAll('#walk-leaflet path.map-accuracy').length,
          endDot: document.querySelectorAll('#walk-leaflet path.map-walk-end').length,
          radius: walk.you ? walk.you.circle.getRadius() : null, accuracy: location.horizontalAccuracy,
          gap: end.length ? Math.round(L.latLng(end[end.length - 1]).distanceTo([location.latitude, location.longitude])) : null,
          anchor: walk.anchor,
          markersYou: document.querySelectorAll('#markers-leaflet path.map-you, #markers-leaflet path.map-accuracy').length,
        };""")


def check_walk_map(page, args):
    """The walk on the map from the first good fix: the dead-reckoned path (the same points as the plot) grows,
    the GPS fix is a dot with its accuracy circle (radius = the reported accuracy), on the markers' map too."""
    page.js("document.getElementById('walk-title').scrollIntoView({block: 'start'});")
    first = page.wait("the walk is placed on the map (a good fix arrived)",
                      lambda: (w := walk_state(page)) and w["line"] >= 2 and w, 30)
    state = map_state(page)
    if not state["walkMap"] or state["walkPlot"] or state["walkNoteShown"]:
        raise CheckFailed(f"walk map shown {state['walkMap']}, plot shown {state['walkPlot']}, note {state['walkNote']!r}")
    grown = page.wait(f"the walk on the map grows beyond its {first['line']} points",
                      lambda: (w := walk_state(page))["line"] > first["line"] and w, 20)
    if abs(grown["line"] - grown["plot"]) > 2:
        raise CheckFailed(f"the map's walk has {grown['line']} points, the plot {grown['plot']}")
    if grown["you"] != 1 or grown["circle"] != 1 or grown["endDot"] != 1 or grown["markersYou"] != 2:
        raise CheckFailed(f"fix dot {grown['you']}, accuracy circle {grown['circle']}, walk end {grown['endDot']}, "
                          f"on the markers' map {grown['markersYou']}")
    if grown["accuracy"] is None or abs(grown["radius"] - grown["accuracy"]) > 1e-6:
        raise CheckFailed(f"the accuracy circle's radius is {grown['radius']} m for an accuracy of {grown['accuracy']} m")
    # Dead reckoning drifts from GPS, but not by a whole district in a minute of walking.
    if grown["gap"] is None or grown["gap"] > 250:
        raise CheckFailed(f"the dead-reckoned position is {grown['gap']} m from the GPS fix")
    tiles = page.wait("the walk map's tiles load", lambda: map_state(page)["walkTiles"], 10)
    attribution = map_state(page)["walkAttribution"] or {}
    if attribution.get("link") != "OpenStreetMap contributors":
        raise CheckFailed(f"the walk map's attribution is {attribution}")
    return (f"{first['line']} -> {grown['line']} points (plot {grown['plot']}), fix ±{grown['accuracy']:.1f} m with its circle, "
            f"walk end {grown['gap']} m from the fix, {tiles} tiles")


def check_map_fallback_tiles(page, args):
    """Tiles unreachable: the page gives the map up within seconds and says why in both panels."""
    state = page.wait("the page falls back to the plain drawing", lambda: (s := map_state(page))["mode"] == "plot" and s, 20)
    host = args.unreachable_tiles
    for panel in ("markersNote", "walkNote"):
        if not (state[panel].startswith("No map: the map tiles could not be loaded from") and host in state[panel]):
            raise CheckFailed(f"the {panel} says {state[panel]!r}, expected why (tiles from {host})")
    if not state["leaflet"]:
        raise CheckFailed("Leaflet was not loaded: this is not the tiles' fallback")
    if state["markersMap"] or state["walkMap"] or not state["markersPlot"] or not state["walkPlot"]:
        raise CheckFailed(f"maps shown {state['markersMap']}/{state['walkMap']}, drawings shown {state['markersPlot']}/{state['walkPlot']}")
    return f"{state['markersNote']!r}"


def check_map_fallback_leaflet(page, args):
    """Leaflet not installed: the page asks for none of its files and says why in both panels."""
    state = page.wait("the page falls back to the plain drawing", lambda: (s := map_state(page))["mode"] == "plot" and s, 10)
    for panel in ("markersNote", "walkNote"):
        if "libjs-leaflet" not in state[panel] or not state[panel].startswith("No map:"):
            raise CheckFailed(f"the {panel} says {state[panel]!r}, expected why (Leaflet not installed)")
    if state["leaflet"] or state["vendor"]:
        raise CheckFailed(f"Leaflet was asked for although it is missing: {state['vendor']}")
    if state["markersMap"] or state["walkMap"] or not state["markersPlot"] or not state["walkPlot"]:
        raise CheckFailed(f"maps shown {state['markersMap']}/{state['walkMap']}, drawings shown {state['markersPlot']}/{state['walkPlot']}")
    return f"{state['markersNote']!r}"


def check_map_ready(page, args):
    """The map with Leaflet but without Leaflet.markercluster: markers on the map, tiles loaded."""
    state = page.wait("the page shows the map", lambda: (s := map_state(page))["mode"] == "map" and s["tiles"] and s, 20)
    if any("markercluster" in name for name in state["vendor"]):
        raise CheckFailed(f"Leaflet.markercluster was loaded from a folder without it: {state['vendor']}")
    listed = page.wait("the markers are listed", lambda: page.js("return document.querySelectorAll('#markers-list button').length;"), 20)
    page.wait("a map marker for each", lambda: len(map_state(page)["pins"]) == listed, 10)
    return f"{listed} map markers, {len(state['tiles'])} tiles, no markercluster"


def check_console_except_tiles(page, args):
    """No console error but the unreachable tiles' (expected in this run)."""
    host = args.unreachable_tiles
    severe = [entry for entry in page.browser_log() if entry.get("level") == "SEVERE" and host not in entry.get("message", "")]
    if severe:
        raise CheckFailed("browser console errors: " + " | ".join(entry["message"] for entry in severe))
    return f"{len(page.log)} console entries, none SEVERE but the unreachable tiles'"


class TileServer:
    """The map's tiles for the check (no network): any /{z}/{x}/{y}.png is one generated 256×256 PNG."""

    def __init__(self, port):
        tile = png(256, 256, (232, 226, 206))
        server_self = self
        self.requests = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if not re.match(r"^/\d+/-?\d+/-?\d+\.png$", self.path):
                    self.send_error(404)
                    return
                server_self.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(tile)))
                self.send_header("Cache-Control", "max-age=3600")
                self.end_headers()
                self.wfile.write(tile)

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def check_place(page, args):
    link = page.wait("the OpenStreetMap link appears",
                     lambda: not page.js("return document.getElementById('location-link').hasAttribute('hidden');")
                     and page.element("location-link"), 20)
    href = link.get_attribute("href")
    if not href.startswith("https://www.openstreetmap.org/") or link.get_attribute("target") != "_blank" \
            or "noopener" not in (link.get_attribute("rel") or ""):
        raise CheckFailed(f"map link {href!r} target {link.get_attribute('target')!r} rel {link.get_attribute('rel')!r}")
    before = page.text("elevation")
    page.element("elevation-toggle").click()
    after = page.wait("the elevation toggle switches the unit", lambda: page.text("elevation") != before
                      and page.text("elevation"), 5)
    stored = page.js("return localStorage.getItem('stepcompass.elevationUnit');")
    if stored not in ("feet", "metres"):
        raise CheckFailed(f"the unit choice is not remembered (localStorage {stored!r})")
    page.element("elevation-toggle").click()
    if not re.match(r"^Elevation: (unknown|–?[\d,]+ m)$", page.text("elevation")):
        raise CheckFailed(f"elevation after switching back: {page.text('elevation')!r}")
    return f"{page.text('location-text')!r} link {href}; {before!r} <-> {after!r} (remembered: {stored})"


ACTIVITY = {
    "timestamp": "2026-11-22T10:15:30.250Z", "timeZone": "UTC", "today": 4321,
    "days": [8000, 12000, 3000, 0, 9000, 7000, 4321], "weekTotal": 43321, "dailyMean": 6188.7,
    "band": "lowActive", "cadence": 104, "authorization": "authorized", "guidance": None,
    "suggestion": {"playlist": {"id": "focused", "name": "Focused", "description": "Steady beats to think by.",
                                "tempo": [95, 115], "link": "https://music.example/focused"},
                   "reason": "A steady walk: music that keeps you going without rushing."},
}


def publish_activity(args, device, payload):
    """Publishes a retained `activity` message as stepcompass-activity would (QoS 1, retained)."""
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(args.mqtt_port), "-q", "1", "-r",
                    "-t", f"stepcompass/{device}/activity", "-m", json.dumps(payload)],
                   check=True, timeout=10, capture_output=True)


def activity_shown(page):
    """What the Activity panel shows, read at once."""
    return page.js("""
        const text = (id) => document.getElementById(id).textContent.trim();
        const shown = (id) => !document.getElementById(id).hasAttribute('hidden');
        const link = document.getElementById('playlist-link');
        return {
          today: text('activity-today'), band: text('activity-band'), cadence: text('activity-cadence'),
          bars: [...document.querySelectorAll('#activity-bars .bar')].map(bar => [
            Number(bar.dataset.steps), bar.querySelector('title').textContent,
            bar.querySelector('rect').getBoundingClientRect().height]),
          rows: [...document.querySelectorAll('#activity-table-body tr')].map(row => row.textContent.trim()),
          chartShown: shown('activity-figure'), chartLabel: document.getElementById('activity-chart')
            .getAttribute('aria-labelledby'),
          playlistShown: shown('activity-playlist'), playlist: text('playlist-name'), tempo: text('playlist-tempo'),
          linkShown: shown('playlist-link'), href: link.getAttribute('href'), target: link.getAttribute('target'),
          rel: link.getAttribute('rel') || '', linkText: link.textContent.trim(),
          guidanceShown: shown('activity-guidance'), guidance: text('activity-guidance'),
        };""")


def check_activity(page, args):
    device = page.js("return document.getElementById('device-picker').value;")
    publish_activity(args, device, ACTIVITY)
    shown = page.wait("the Activity panel shows 'Today: 4,321 steps'",
                      lambda: (s := activity_shown(page))["today"] == "Today: 4,321 steps" and s, 10)
    steps = [bar[0] for bar in shown["bars"]]
    if steps != ACTIVITY["days"]:
        raise CheckFailed(f"the chart's bars are {steps}, expected the 7 days {ACTIVITY['days']}")
    if not shown["chartShown"] or not all(bar[1] and bar[2] > 0 for bar in shown["bars"]):
        raise CheckFailed(f"the bars are not all drawn with a title: {shown['bars']}")
    tallest = max(shown["bars"], key=lambda bar: bar[0])
    if tallest[2] < max(bar[2] for bar in shown["bars"]) or not tallest[1].endswith("12,000 steps"):
        raise CheckFailed(f"the tallest bar is not the 12,000 steps one: {shown['bars']}")
    if len(shown["rows"]) != 7 or "4,321" not in shown["rows"][-1]:
        raise CheckFailed(f"the screen readers' table has {shown['rows']}")
    if not shown["band"].startswith("Activity level: Low active") or shown["cadence"] != "Cadence: 104 steps/min":
        raise CheckFailed(f"band {shown['band']!r}, cadence {shown['cadence']!r}")
    if not (shown["playlistShown"] and shown["playlist"] == "Focused" and shown["tempo"] == "95–115 BPM"):
        raise CheckFailed(f"playlist {shown['playlist']!r} {shown['tempo']!r} (shown: {shown['playlistShown']})")
    if not shown["linkShown"] or shown["href"] != ACTIVITY["suggestion"]["playlist"]["link"] \
            or shown["target"] != "_blank" or "noopener" not in shown["rel"]:
        raise CheckFailed(f"playlist link {shown['href']!r} target {shown['target']!r} rel {shown['rel']!r}")
    if shown["guidanceShown"]:
        raise CheckFailed(f"guidance shown while authorized: {shown['guidance']!r}")
    return (f"{shown['today']!r}, {len(steps)} bars ({shown['bars'][-1][1]!r}), {shown['band']!r}, "
            f"{shown['cadence']!r}, {shown['linkText']!r} -> {shown['href']}")


def check_activity_guidance(page, args):
    device = page.js("return document.getElementById('device-picker').value;")
    guidance = ("Allow motion access when the app asks (Motion & Fitness on iPhone, Physical activity on Android) "
                "to get music that fits your steps.")
    payload = dict(ACTIVITY, authorization="notDetermined", guidance=guidance, suggestion=None, cadence=0,
                   today=4400, days=ACTIVITY["days"][:-1] + [4400])
    publish_activity(args, device, payload)
    shown = page.wait("the guidance appears for a notDetermined authorization",
                      lambda: (s := activity_shown(page))["guidanceShown"] and s, 10)
    if shown["guidance"] != guidance:
        raise CheckFailed(f"the guidance reads {shown['guidance']!r}")
    if shown["playlistShown"]:
        raise CheckFailed("the playlist still shows without motion access")
    if shown["cadence"] or page.js("return getComputedStyle(document.getElementById('activity-cadence')).display;") != "none":
        raise CheckFailed(f"a cadence shows while standing: {shown['cadence']!r}")
    if shown["today"] != "Today: 4,400 steps" or len(shown["bars"]) != 7:
        raise CheckFailed(f"after the update: {shown['today']!r}, {len(shown['bars'])} bars")
    # Back to the suggestion, so the screenshot shows the playlist.
    publish_activity(args, device, ACTIVITY)
    page.wait("the playlist returns", lambda: activity_shown(page)["playlistShown"], 10)
    return f"{shown['guidance'][:60]!r}…, no playlist, no cadence"


# ---- The Journal panel ---------------------------------------------------------------------------------

def png(width, height, rgb):
    """A small PNG of one colour with a darker diagonal, made here (no image files in the repository)."""
    rows = b""
    for y in range(height):
        row = bytearray([0])  # filter: none
        for x in range(width):
            shade = 0.6 if abs(x * height - y * width) < width * 2 else 1.0
            row += bytes(int(channel * shade) for channel in rgb)
        rows += bytes(row)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


WALK_ID = "3f2a9c1e-8d4b-4e6f-9a7c-2b1d0e5f6a7b"
OLD_WALK_ID = "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
PHOTOS = {
    0: {"id": "wikimedia:123", "file": "wikimedia-123.png", "rgb": (40, 120, 200), "title": "Marienplatz in winter",
        "author": "Jane Doe", "license": "CC BY-SA 4.0", "licenseUrl": "https://creativecommons.org/licenses/by-sa/4.0/",
        "pageUrl": "https://commons.wikimedia.org/wiki/File:Marienplatz_in_winter.jpg"},
    2: {"id": "wikimedia:456", "file": "wikimedia-456.png", "rgb": (200, 90, 40), "title": "Viktualienmarkt at noon",
        "author": "Max Mustermann", "license": "CC BY 4.0", "licenseUrl": "https://creativecommons.org/licenses/by/4.0/",
        "pageUrl": "https://commons.wikimedia.org/wiki/File:Viktualienmarkt_at_noon.jpg"},
}
ROUTE = [(48.1370 + 0.0004 * i, 11.5750 + 0.0005 * i) for i in range(12)]


def journal_walk(walk_id=WALK_ID):
    """The walk that is on (named, four photo points so far), or the one before it (unnamed, stopped)."""
    if walk_id == OLD_WALK_ID:
        return {"id": OLD_WALK_ID, "name": None, "started": "2026-06-30T08:00:00.000Z", "stopped": "2026-06-30T09:00:00.000Z",
                "distance": 1840.0, "routePoints": 240, "points": 18, "photos": 15}
    return {"id": WALK_ID, "name": "Morning walk", "started": "2026-07-01T10:00:00.000Z", "stopped": None,
            "distance": 412.4, "routePoints": len(ROUTE), "points": 4, "photos": 2}


def photo_point(point):
    """The `journal/photo` message of a point: 0 and 2 found, 1 none, 3 pending."""
    latitude, longitude = ROUTE[min(len(ROUTE) - 1, 3 * point)]
    payload = {"timestamp": f"2026-07-01T10:0{point}:00.000Z", "walk": WALK_ID, "point": point,
               "distance": 100.0 * (point + 1), "latitude": latitude, "longitude": longitude, "photo": None}
    if point in PHOTOS:
        photo = PHOTOS[point]
        payload.update(status="found", photo={
            "id": photo["id"], "source": "wikimedia", "title": photo["title"], "author": photo["author"],
            "license": photo["license"], "licenseUrl": photo["licenseUrl"], "pageUrl": photo["pageUrl"],
            "imageUrl": f"/journal/photos/{photo['file']}", "width": 64, "height": 48,
            "latitude": latitude, "longitude": longitude, "taken": None})
    elif point == 1:
        payload.update(status="none")
    else:
        payload.update(status="pending", retryAt="2026-07-01T10:05:00.000Z", error="HTTP 503 from commons.wikimedia.org")
    return payload


def walks_reply(request):
    """What stepcompass-journal would answer to a `journal/walks` request of the check's walks."""
    device, walk, form = request.get("device"), request.get("walk"), request.get("format", "json")
    if walk is None:
        return {"device": device, "walks": [journal_walk(), journal_walk(OLD_WALK_ID)]}
    if walk not in (WALK_ID, OLD_WALK_ID):
        return {"error": {"code": "notFound", "message": f"{device} has no walk '{walk}'"}}
    if form == "gpx":
        points = "".join(f'<trkpt lat="{lat}" lon="{lon}"></trkpt>' for lat, lon in ROUTE)
        return {"device": device, "walk": walk, "gpx": '<?xml version="1.0" encoding="UTF-8"?>\n'
                f'<gpx version="1.1" creator="check"><trk><trkseg>{points}</trkseg></trk></gpx>\n'}
    route = [{"time": f"2026-07-01T10:{i:02d}:00.000Z", "latitude": lat, "longitude": lon, "elevation": 519.0,
              "source": "gps", "distance": 37.5 * i} for i, (lat, lon) in enumerate(ROUTE)]
    return {"device": device, "walk": journal_walk(walk), "route": route,
            "points": [photo_point(point) for point in range(4)] if walk == WALK_ID else []}


class JournalResponder:
    """Answers `stepcompass/journal/walks` requests as the journal would (the stack does not run it): a long-lived
    `mosquitto_sub` (MQTT 5, printing each request's response topic and correlation data) and a `mosquitto_pub` per
    reply, with the correlation data, and `correlationId` in the payload too (the contract's MQTT 3.1.1 fallback)."""

    def __init__(self, port):
        self.port = port
        self.requests = []
        self.process = subprocess.Popen(
            ["stdbuf", "-oL", "mosquitto_sub", "-V", "5", "-d", "-q", "1", "-h", "127.0.0.1", "-p", str(port),
             "-t", "stepcompass/journal/walks", "-F", "REQ\t%R\t%D\t%p"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        subscribed = threading.Event()
        threading.Thread(target=self._serve, args=(subscribed,), daemon=True).start()
        if not subscribed.wait(10):
            self.stop()
            raise CheckFailed("the journal stand-in (mosquitto_sub) did not subscribe to stepcompass/journal/walks")

    def _serve(self, subscribed):
        for line in self.process.stdout:
            if "SUBACK" in line:
                subscribed.set()
            if not line.startswith("REQ\t"):
                continue
            _, response_topic, correlation, payload = line.rstrip("\n").split("\t", 3)
            try:
                request = json.loads(payload)
            except ValueError:
                continue
            self.requests.append(request)
            reply = walks_reply(request)
            if correlation:
                reply["correlationId"] = correlation
            command = ["mosquitto_pub", "-V", "5", "-q", "1", "-h", "127.0.0.1", "-p", str(self.port),
                       "-t", response_topic or request.get("replyTo", ""), "-m", json.dumps(reply)]
            if correlation:
                command[-2:-2] = ["-D", "publish", "correlation-data", correlation]
            subprocess.run(command, timeout=10, capture_output=True)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()


def publish(args, topic, payload, retain=True):
    subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(args.mqtt_port), "-q", "1"] + (["-r"] if retain else [])
                   + ["-t", topic, "-m", json.dumps(payload)], check=True, timeout=10, capture_output=True)


def journal_shown(page):
    """What the Journal panel shows, read at once."""
    return page.js("""
        const text = (id) => document.getElementById(id).textContent.trim();
        const shown = (id) => !document.getElementById(id).hasAttribute('hidden');
        return {
          status: text('journal-status'), walkShown: shown('journal-walk'), title: text('journal-walk-title'),
          stats: text('journal-walk-stats'), counts: text('journal-walk-counts'),
          start: !document.getElementById('journal-start').disabled, stop: !document.getElementById('journal-stop').disabled,
          points: [...document.querySelectorAll('#journal-photos > li')].map(li => {
            const img = li.querySelector('img');
            const title = li.querySelector('.photo-title');
            const license = li.querySelector('.photo-license');
            return {
              point: Number(li.dataset.point), status: li.className, placeholder: (li.querySelector('.placeholder') || {}).textContent || '',
              image: img ? img.getAttribute('src') : null, alt: img ? img.alt : null,
              title: title ? title.textContent : null, titleHref: title ? title.getAttribute('href') : null,
              titleTarget: title ? title.getAttribute('target') : null, titleRel: title ? title.getAttribute('rel') || '' : '',
              author: (li.querySelector('.photo-author') || {}).textContent || null,
              license: license ? license.textContent : null, licenseHref: license ? license.getAttribute('href') : null,
            };
          }),
          walks: [...document.querySelectorAll('#journal-walks > li')].map(li => ({
            id: li.dataset.walk, text: li.textContent, gpx: (li.querySelector('a.gpx') || {}).href || null })),
          walksStatus: text('journal-walks-status'), error: text('journal-error'),
          mapShown: shown('journal-map'), route: document.getElementById('journal-route').points.numberOfItems,
          pins: document.querySelectorAll('#journal-pins .journal-pin').length,
        };""")


def check_journal_waiting(page, args):
    """Before the journal has said anything: the panel says so, and Start publishes the walk command."""
    device = page.js("return document.getElementById('device-picker').value;")
    shown = page.wait("the Journal panel says the journal has not reported",
                      lambda: (s := journal_shown(page))["status"].startswith("The journal has not reported") and s, 10)
    if not shown["start"] or shown["stop"] or shown["walkShown"] or shown["points"]:
        raise CheckFailed(f"before the journal reports: Start {shown['start']}, Stop {shown['stop']}, "
                          f"walk shown {shown['walkShown']}, {len(shown['points'])} points")
    page.js("document.getElementById('journal').scrollIntoView({block: 'start'});")
    watch = BusWatch(args.mqtt_port, "stepcompass/+/cmd/walk")
    page.element("journal-start").click()
    topic, payload = watch.message()
    if topic != f"stepcompass/{device}/cmd/walk" or payload != {"action": "start"}:
        raise CheckFailed(f"Start published {topic} {payload}")
    return f"{shown['status']!r}; Start published {topic} {json.dumps(payload)}"


def check_journal(page, args):
    """The retained `journal` and `journal/photo` messages of a walk, the photos served from the journal's cache,
    the past walks (answered by the stand-in for the journal) with their GPX, and Stop."""
    device = page.js("return document.getElementById('device-picker').value;")
    for photo in PHOTOS.values():
        with open(os.path.join(args.journal_cache_dir, photo["file"]), "wb") as file:
            file.write(png(64, 48, photo["rgb"]))
    args.journal_responder = JournalResponder(args.mqtt_port)
    publish(args, f"stepcompass/{device}/journal", {"timestamp": "2026-07-01T10:06:00.000Z", "walk": journal_walk(),
                                                     "recording": True, "reason": None})
    for point in range(4):
        publish(args, f"stepcompass/{device}/journal/photo", photo_point(point))
    shown = page.wait("the Journal panel shows the walk and its four photo points",
                      lambda: (s := journal_shown(page))["title"] == "Morning walk" and len(s["points"]) == 4 and s, 15)
    if shown["status"] != "Recording" or shown["stats"] != "412 m" or shown["counts"] != "4 photo points, 2 photos":
        raise CheckFailed(f"walk: status {shown['status']!r}, {shown['stats']!r}, {shown['counts']!r}")
    if shown["start"] or not shown["stop"]:
        raise CheckFailed(f"while a walk is on: Start enabled {shown['start']}, Stop enabled {shown['stop']}")
    order = [point["point"] for point in shown["points"]]
    if order != [3, 2, 1, 0]:
        raise CheckFailed(f"the photo points are not newest first: {order}")
    newest = shown["points"][1]
    photo = PHOTOS[2]
    if newest["image"] != f"/journal/photos/{photo['file']}" or newest["title"] != photo["title"] \
            or newest["titleHref"] != photo["pageUrl"] or newest["titleTarget"] != "_blank" or "noopener" not in newest["titleRel"] \
            or newest["author"] != f"by {photo['author']}" or newest["license"] != photo["license"] \
            or newest["licenseHref"] != photo["licenseUrl"] or newest["alt"] != f"Photo: {photo['title']}":
        raise CheckFailed(f"the newest photo and its attribution: {newest}")
    if shown["points"][3]["title"] != PHOTOS[0]["title"]:
        raise CheckFailed(f"the oldest photo is {shown['points'][3]}")
    if shown["points"][2]["placeholder"] != "No photo near here" or shown["points"][0]["placeholder"] != "No photo yet":
        raise CheckFailed(f"placeholders: {shown['points'][2]['placeholder']!r} (none), {shown['points'][0]['placeholder']!r} (pending)")
    # The images come from the journal's cache through /journal/photos/.
    page.js("document.getElementById('journal-photos').scrollIntoView({block: 'start'});")
    sizes = page.wait("both photos load from /journal/photos/", lambda: (sizes := page.js("""
        return [...document.querySelectorAll('#journal-photos img')].map(img => img.complete ? img.naturalWidth : 0);"""))
        and all(size == 64 for size in sizes) and sizes, 10)
    # The past walks, from the stand-in journal, each with its GPX.
    shown = page.wait("the past walks are listed with a GPX link each",
                      lambda: (s := journal_shown(page))["walks"] and all(w["gpx"] for w in s["walks"]) and s, 15)
    ids = [walk["id"] for walk in shown["walks"]]
    if ids != [WALK_ID, OLD_WALK_ID] or "1.84 km" not in shown["walks"][1]["text"] or "30 Jun 2026" not in shown["walks"][1]["text"]:
        raise CheckFailed(f"past walks: {shown['walks']}")
    gpx_url = shown["walks"][1]["gpx"]
    if not gpx_url.endswith(f"/api/devices/{device}/walks/{OLD_WALK_ID}.gpx"):
        raise CheckFailed(f"the GPX link is {gpx_url}")
    with urllib.request.urlopen(gpx_url, timeout=10) as response:
        gpx = response.read().decode()
        headers = (response.status, response.headers.get("Content-Type"), response.headers.get("Content-Disposition"))
    if headers[:2] != (200, "application/gpx+xml") or not (headers[2] or "").startswith("attachment;") \
            or "<trkpt" not in gpx:
        raise CheckFailed(f"the GPX download answered {headers} {gpx[:80]!r}")
    # The route with a pin per photo, drawn from the walk's reply.
    shown = page.wait("the route is drawn with a pin per photo",
                      lambda: (s := journal_shown(page))["mapShown"] and s["route"] == len(ROUTE) and s["pins"] == 2 and s, 10)
    if shown["error"]:
        raise CheckFailed(f"the panel shows an error: {shown['error']!r}")
    watch = BusWatch(args.mqtt_port, "stepcompass/+/cmd/walk")
    page.element("journal-stop").click()
    topic, payload = watch.message()
    if payload != {"action": "stop"}:
        raise CheckFailed(f"Stop published {topic} {payload}")
    asked = sorted({(r.get("walk") or "list", r.get("format") or "-") for r in args.journal_responder.requests})
    return (f"walk {shown['title']!r} {shown['stats']!r}; points {order} newest first, photos {sizes} px wide, "
            f"{newest['title']!r} {newest['author']!r} {newest['license']!r}; placeholders; {len(ids)} past walks with GPX "
            f"({headers[2]}); route {shown['route']} points, {shown['pins']} pins; Stop published {json.dumps(payload)}; "
            f"journal asked for {asked}")


def check_names(page, args):
    nameless = page.js("""
        return [...document.querySelectorAll('button, select, a[href]')]
          .filter(e => !e.hidden && !(e.textContent.trim() || e.getAttribute('aria-label') ||
                        (e.id && document.querySelector(`label[for="${e.id}"]`))))
          .map(e => e.outerHTML.slice(0, 80));""")
    if nameless:
        raise CheckFailed(f"controls without a name: {nameless}")
    return "every button, select and link has a name"


def check_keyboard_focus(page, args):
    """Tab moves to a control and the focus is visible (an outline of at least 2 px)."""
    page.js("document.getElementById('device-picker').focus();")
    webdriver.ActionChains(page.driver).send_keys(Keys.TAB).perform()
    focused = page.js("""
        const e = document.activeElement, s = getComputedStyle(e);
        return [e.tagName, e.id || e.textContent.trim(), s.outlineStyle, parseFloat(s.outlineWidth)];""")
    if focused[0] not in ("BUTTON", "SELECT", "A") or focused[2] == "none" or focused[3] < 2:
        raise CheckFailed(f"after Tab the focus is on {focused[0]} {focused[1]!r} with outline {focused[2]} {focused[3]}px")
    return f"Tab -> {focused[0].lower()} {focused[1]!r}, outline {focused[2]} {focused[3]:g}px"


def check_colour_schemes(page, args):
    """The page follows prefers-color-scheme: the background differs between light and dark."""
    backgrounds = {}
    for scheme in ("dark", "light"):
        page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                    {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        backgrounds[scheme] = page.js("return getComputedStyle(document.body).backgroundColor;")
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    if backgrounds["dark"] == backgrounds["light"]:
        raise CheckFailed(f"the same background in light and dark: {backgrounds}")
    return f"light {backgrounds['light']}, dark {backgrounds['dark']}"


# ---- A dashboard with an access token (--token-url) ------------------------------------------------------

AUTH_STATE = """
    const shown = (id) => { const e = document.getElementById(id); return !!e && !e.hidden && e.getClientRects().length > 0; };
    let kept = null;
    try { kept = localStorage.getItem('stepcompass.authToken'); } catch (error) { kept = 'unreadable'; }
    return {
      form: shown('auth'), message: document.getElementById('auth-message').textContent.trim(),
      connection: document.getElementById('connection').textContent.trim(), kept,
      cookie: document.cookie.split('; ').filter((c) => c.startsWith('stepcompass-token')).join('; '),
      focused: document.activeElement && document.activeElement.id, picker: document.getElementById('device-picker').disabled,
      map: typeof dashboardMap === 'object' && !!dashboardMap.settings,
    };"""


def check_token_form(page, args):
    """Without the token the page shows its form (focused, asking once) and no data; the page's files load."""
    page.driver.get(args.url)
    page.wait("the document has the page's title", lambda: page.driver.title == "StepCompass", 10)
    state = page.wait("the token form shows", lambda: (s := page.js(AUTH_STATE))["form"] and s, 10)
    if state["connection"] != "Access token needed" or state["focused"] != "auth-token":
        raise CheckFailed(f"connection {state['connection']!r}, focus on {state['focused']!r}: expected 'Access token needed', the token field")
    if "needs its access token" not in state["message"]:
        raise CheckFailed(f"the form says {state['message']!r}")
    if not state["picker"] or state["kept"] or state["cookie"]:
        raise CheckFailed(f"data or a token before the token was given: {state}")
    forms = page.js("return document.querySelectorAll('#auth-form').length;")
    return f"form shown and focused ({state['message']!r}), connection {state['connection']!r}, {forms} form"


def check_token_wrong(page, args):
    """A wrong token is refused with a message; the form stays and nothing is kept."""
    field = page.element("auth-token")
    field.send_keys("not-the-right-token-0123456789" + Keys.ENTER)
    state = page.wait("the page says the token was not accepted",
                      lambda: (s := page.js(AUTH_STATE))["message"].startswith("That token was not accepted") and s, 10)
    if not state["form"] or state["kept"] or state["cookie"]:
        raise CheckFailed(f"after a wrong token: {state}")
    # The 401s so far (the page's first requests, the wrong token) are expected; later ones are not.
    page.browser_log()
    page.log.clear()
    return f"refused: {state['message']!r}"


def check_token_accepted(page, args):
    """The right token: the page loads again with it, live data appears, and the token is kept."""
    field = page.element("auth-token")
    field.clear()
    field.send_keys(args.token + Keys.ENTER)
    page.wait("the live connection opens", lambda: page.text("connection") == "Live", 15)
    steps = page.wait("steps appear", lambda: STEPS.match(page.text("steps") or "") and page.text("steps"), 30)
    state = page.js(AUTH_STATE)
    if state["form"] or state["kept"] != args.token or not state["cookie"].startswith("stepcompass-token-"):
        raise CheckFailed(f"after the right token: form {state['form']}, kept {state['kept'] == args.token}, cookie {bool(state['cookie'])}")
    page.wait("the map's settings are read with the token", lambda: page.js(AUTH_STATE)["map"], 10)
    return f"live ({steps!r}), token kept in localStorage and the cookie {state['cookie'].split('=')[0]}"


def check_token_reload(page, args):
    """A reload keeps working without asking again."""
    page.driver.refresh()
    page.wait("the live connection opens after a reload", lambda: page.text("connection") == "Live", 15)
    first = page.wait("steps appear after a reload", lambda: STEPS.match(page.text("steps") or "") and page.text("steps"), 30)
    page.wait("the steps change", lambda: page.text("steps") != first and STEPS.match(page.text("steps") or ""), args.change_timeout)
    state = page.js(AUTH_STATE)
    if state["form"] or page.js("return dashboardAuth.asking;"):
        raise CheckFailed(f"the page asked for the token again after a reload: {state}")
    if not state["map"]:
        raise CheckFailed("the map's settings were not read after the reload")
    return f"no form, live, steps {first!r} -> {page.text('steps')!r}"


def check_token_console(page, args):
    """No console error once the token is in (the 401s before it, shown as failed requests, are expected)."""
    severe = [entry for entry in page.browser_log() if entry.get("level") == "SEVERE"]
    if severe:
        raise CheckFailed("browser console errors after the token: " + " | ".join(entry["message"] for entry in severe))
    return f"{len(page.log)} console entries since the token, none SEVERE"


# ---- Pages of other origins try to change state (--hostile-port) -----------------------------------------

# The state-changing endpoints a hostile page aims at: path (with {device}), the route the dashboard's metrics name,
# the valid command it sends (so only the cross-site guard can stop it), the bus topic it would publish (with {device}).
TARGETS = [
    ("reset_position", "/api/devices/{device}/reset-position", "/api/devices/{device}/reset-position", {},
     "stepcompass/{device}/cmd/reset-position"),
    ("bearing_lock", "/api/devices/{device}/bearing-lock", "/api/devices/{device}/bearing-lock",
     {"action": "lock", "bearing": 123, "threshold": 10}, "stepcompass/{device}/cmd/bearing-lock"),
    ("markers_refresh", "/api/markers/refresh", "/api/markers/refresh", {}, "stepcompass/markers/cmd/refresh"),
]
# Every way a page can make the browser POST to another origin: what the page sends, what the dashboard must answer
# (method, status: counted in its metrics once the answer is written).
WAYS = [
    ("fetch_json", "fetch POST, Content-Type: application/json (CORS preflight)", ("OPTIONS", "404")),
    ("fetch_no_cors", "fetch POST, mode no-cors, text/plain JSON body", ("POST", "403")),
    ("form_urlencoded", "<form method=POST> (urlencoded) into a hidden iframe", ("POST", "403")),
    ("form_text", "<form method=POST enctype=text/plain> smuggling a JSON body, into a hidden iframe", ("POST", "403")),
    ("beacon", "navigator.sendBeacon, text/plain JSON body", ("POST", "403")),
]
# The hostile page's origins: another port on the same host (the same *site* for Chromium: Sec-Fetch-Site: same-site,
# an Origin naming another port) and another host name (cross-site).
HOSTILE_ORIGINS = [("same_site", "http://127.0.0.1:{port}"), ("cross_site", "http://localhost:{port}")]
# The watched topics: the commands the endpoints publish, and the device's position (a reset sets its steps to 0).
WATCHED = ["stepcompass/+/cmd/reset-position", "stepcompass/+/cmd/bearing-lock", "stepcompass/markers/cmd/refresh",
           "stepcompass/+/position"]

HOSTILE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not the dashboard</title></head>
<body><h1>A page of another origin</h1>
<script>
'use strict';
const TARGET = %(target)s;
let frames = 0;
// One attempt: resolves with what the page could see of it (never with the dashboard's answer, which it cannot read).
window.attempt = async (way, path, body) => {
  const url = TARGET + path;
  const text = JSON.stringify(body);
  if (way === 'fetch_json') {
    try {
      const r = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text });
      return { seen: 'answered', status: r.status, type: r.type };
    } catch (error) {
      return { seen: 'rejected', error: String(error) };
    }
  }
  if (way === 'fetch_no_cors') {
    const r = await fetch(url, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: text });
    return { seen: 'answered', status: r.status, type: r.type };
  }
  if (way === 'form_urlencoded' || way === 'form_text') {
    const name = `sink-${++frames}`;
    const frame = document.createElement('iframe');
    frame.name = name; frame.id = name;
    frame.style.cssText = 'position:absolute;left:-10px;top:-10px;width:1px;height:1px;border:0;opacity:0';
    document.body.append(frame);
    await new Promise((resolve) => { frame.src = 'about:blank'; frame.onload = resolve; });
    const form = document.createElement('form');
    form.method = 'POST'; form.action = url; form.target = name;
    const input = document.createElement('input');
    input.type = 'hidden';
    if (way === 'form_text') {
      // name=value with the '=' inside a string: the body is the command as JSON, with one key more.
      form.enctype = 'text/plain';
      const padded = JSON.stringify({ ...body, pad: '~cut~' });
      const cut = padded.indexOf('~cut~');
      input.name = padded.slice(0, cut); input.value = padded.slice(cut + 5);
    } else {
      input.name = 'command'; input.value = text;
    }
    form.append(input);
    document.body.append(form);
    const loaded = new Promise((resolve) => { frame.onload = resolve; });
    form.submit();
    await loaded;
    return { seen: 'frame loaded', frame: name };
  }
  if (way === 'beacon') return { seen: navigator.sendBeacon(url, text) ? 'queued' : 'not queued' };
  throw new Error(`unknown way ${way}`);
};
document.title = 'Ready';
</script></body></html>
"""


class HostileServer:
    """The other origin: serves, on 127.0.0.1:--hostile-port, a page whose script attacks the dashboard (`attempt`)."""

    def __init__(self, port, target):
        body = (HOSTILE_PAGE % {"target": json.dumps(target)}).encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.split("?")[0] != "/":
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class BusLog:
    """A long-lived `mosquitto_sub` (QoS 1, stale retained messages left out) recording, in order, every message on
    `topics` as (topic, payload); subscribed (its SUBACK seen) before it returns."""

    def __init__(self, port, topics):
        command = ["stdbuf", "-oL", "mosquitto_sub", "-d", "-R", "-q", "1", "-v", "-h", "127.0.0.1", "-p", str(port)]
        for topic in topics:
            command += ["-t", topic]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.messages = []
        self.lock = threading.Lock()
        subscribed = threading.Event()
        threading.Thread(target=self._read, args=(subscribed,), daemon=True).start()
        if not subscribed.wait(10):
            self.stop()
            raise CheckFailed(f"mosquitto_sub did not subscribe to {topics}")

    def _read(self, subscribed):
        for line in self.process.stdout:
            if "SUBACK" in line:
                subscribed.set()
            if not line.startswith("stepcompass/"):
                continue
            topic, _, text = line.rstrip("\n").partition(" ")
            try:
                payload = json.loads(text)
            except ValueError:
                payload = text
            with self.lock:
                self.messages.append((topic, payload))

    def since(self, index):
        with self.lock:
            return list(self.messages[index:])

    def count(self):
        with self.lock:
            return len(self.messages)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()


# Greedy: a route's label has braces of its own (/api/devices/{device}/reset-position).
REQUESTS_METRIC = re.compile(r"^\w*http_requests_total\{(.*)\} ([0-9.e+]+)$")


def dashboard_requests(args):
    """The dashboard's answered requests by (route, method, status), from its Prometheus metrics (--metrics-url)."""
    with urllib.request.urlopen(args.metrics_url, timeout=5) as response:
        text = response.read().decode()
    counts = {}
    for line in text.splitlines():
        match = REQUESTS_METRIC.match(line)
        if match:
            labels = dict(re.findall(r'(\w+)="([^"]*)"', match.group(1)))
            key = (labels.get("route"), labels.get("method"), labels.get("status"))
            counts[key] = counts.get(key, 0) + int(float(match.group(2)))
    return counts


def requests_delta(before, after):
    return {key: after.get(key, 0) - before.get(key, 0) for key in set(before) | set(after)
            if after.get(key, 0) != before.get(key, 0)}


def commands_in(messages):
    return [(topic, payload) for topic, payload in messages if "/cmd/" in topic]


def position_steps(messages, device):
    return [payload.get("steps") for topic, payload in messages
            if topic == f"stepcompass/{device}/position" and isinstance(payload, dict) and isinstance(payload.get("steps"), int)]


def check_hostile_watch(page, args):
    """Before the attacks: the bus is watched (commands and the device's position), the dashboard's answers counted,
    and the device's position advancing (the walker walks)."""
    args.device = page.js("return document.getElementById('device-picker').value;")
    log = BusLog(args.mqtt_port, WATCHED)
    args.closers.append(log.stop)
    args.bus_log = log
    args.bus_start = log.count()
    args.requests_start = dashboard_requests(args)
    steps = page.wait("position messages of the walker on the bus", lambda: len(s := position_steps(log.since(0), args.device)) >= 2 and s, 20)
    return f"device {args.device!r}; watching {', '.join(WATCHED)}; position steps {steps[0]} -> {steps[-1]}"


def hostile_page(page, args, origin):
    """The hostile page of `origin` in the browser (loaded once per origin)."""
    if not page.driver.current_url.startswith(origin + "/"):
        page.driver.get(origin + "/")
        page.wait(f"the hostile page of {origin} is ready", lambda: page.driver.title == "Ready"
                  and page.js("return typeof window.attempt === 'function';"), 10)


def frame_text(page, frame):
    """The text of the hostile page's iframe (the dashboard's answer, which the page itself cannot read)."""
    page.driver.switch_to.frame(page.element(frame))
    try:
        return page.js("return document.body ? document.body.innerText : document.documentElement.outerHTML;")
    finally:
        page.driver.switch_to.default_content()


def make_attempt(origin_key, origin_pattern, way, way_title, answer, target):
    """A check: the hostile page of one origin attacks one endpoint in one way; the dashboard refuses it (its metrics
    count the refusal, once answered) and nothing of it reaches the bus."""
    endpoint, path_pattern, route, body, topic_pattern = target
    method, status = answer

    def check(page, args):
        origin = origin_pattern.format(port=args.hostile_port)
        path = path_pattern.format(device=args.device)
        hostile_page(page, args, origin)
        before = dashboard_requests(args)
        seen = page.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.attempt(arguments[0], arguments[1], arguments[2]).then(done, (e) => done({ seen: 'threw', error: String(e) }));",
            way, path, body)
        expected = ("NotFound" if method == "OPTIONS" else route, method, status)
        delta = page.wait(f"the dashboard answers {method} {path} with {status}",
                          lambda: (d := requests_delta(before, dashboard_requests(args))).get(expected, 0) >= 1 and d, 10)
        # The page's view of it: a preflighted fetch must fail, a no-cors one is opaque, a beacon queued.
        if way == "fetch_json" and seen.get("seen") != "rejected":
            raise CheckFailed(f"the preflighted fetch was not refused by the browser: {seen}")
        if way == "fetch_no_cors" and seen.get("type") != "opaque":
            raise CheckFailed(f"the no-cors fetch gave {seen}")
        if way == "beacon" and seen.get("seen") != "queued":
            raise CheckFailed(f"the beacon was not sent: {seen}")
        if way.startswith("form_") and seen.get("seen") != "frame loaded":
            raise CheckFailed(f"the form's frame: {seen}")
        accepted = {key: n for key, n in delta.items() if key[0] == route and not key[2].startswith("4")}
        posted = {key: n for key, n in delta.items() if key[0] == route and key[1] == "POST"}
        if accepted or (method == "OPTIONS" and posted):
            raise CheckFailed(f"the dashboard answered {accepted or posted}")
        answer_text = f"{method} {status}"
        if way.startswith("form_"):
            text = frame_text(page, seen["frame"])
            try:
                error = json.loads(text)["error"]
                answer_text += f" {error['code']} ({error['message'][:90]!r})"
            except (ValueError, KeyError, TypeError):
                raise CheckFailed(f"the frame shows {text[:200]!r}, not the API's error") from None
            if error["code"] != "forbidden":
                raise CheckFailed(f"the frame shows {error}")
        commands = commands_in(args.bus_log.since(args.bus_start))
        if commands:
            raise CheckFailed(f"commands on the bus: {commands}")
        browser = seen.get("error") or (f"{seen['seen']}, {seen['type']} status {seen['status']}" if "type" in seen else seen["seen"])
        return f"{origin} -> POST {path}: browser {browser}; dashboard {answer_text}; no command on the bus"

    check.__name__ = f"check_{origin_key}_{way}_{endpoint}"
    check.__doc__ = f"{way_title}, from {origin_pattern}, to {path_pattern}: refused."
    return check


HOSTILE_ATTEMPTS = [make_attempt(origin_key, origin, way, title, answer, target)
                    for origin_key, origin in HOSTILE_ORIGINS for way, title, answer in WAYS for target in TARGETS]


def check_hostile_nothing_changed(page, args):
    """After every attempt was answered: no command was published, the position was never reset (its steps never
    went down) and it keeps advancing, and the dashboard refused every request (its metrics, exactly)."""
    log = args.bus_log
    answered_at = log.count()
    last = max(position_steps(log.since(args.bus_start), args.device), default=-1)
    (advanced,) = page.wait(f"the walker's position advances beyond {last} steps",
                            lambda: (s := position_steps(log.since(answered_at), args.device)) and s[-1] > last and (s[-1],), 30)
    messages = log.since(args.bus_start)
    steps = position_steps(messages, args.device)
    drops = [(a, b) for a, b in zip(steps, steps[1:]) if b < a]
    if drops:
        raise CheckFailed(f"the position's steps went down (a reset): {drops}")
    commands = commands_in(messages)
    if commands:
        raise CheckFailed(f"commands on the bus: {commands}")
    delta = requests_delta(args.requests_start, dashboard_requests(args))
    posts = sum(1 for _, _, (method, _) in WAYS if method == "POST") * len(HOSTILE_ORIGINS)
    preflights = sum(1 for _, _, (method, _) in WAYS if method == "OPTIONS") * len(HOSTILE_ORIGINS) * len(TARGETS)
    expected = {(route, "POST", "403"): posts for _, _, route, _, _ in TARGETS}
    expected[("NotFound", "OPTIONS", "404")] = preflights
    state_changing = {key: n for key, n in delta.items() if key[1] != "GET"}
    if state_changing != expected:
        raise CheckFailed(f"the dashboard's answers since the watch began: {state_changing}, expected {expected}")
    answers = ", ".join(f"{n}x {method} {route.split('/')[-1] or route} {status}"
                        for (route, method, status), n in sorted(state_changing.items(), key=str))
    return (f"{len(HOSTILE_ATTEMPTS)} attempts answered: {answers}; no command on the bus; "
            f"{len(steps)} positions, steps never went down, {steps[0]} -> {advanced}")


def own_page(page, args):
    """The dashboard's own page, live, with its device's buttons enabled."""
    if not page.driver.current_url.startswith(args.url):
        page.driver.get(args.url)
    page.wait("the live connection opens", lambda: page.text("connection") == "Live", 10)
    page.wait("the Reset position button is enabled",
              lambda: page.js("return document.getElementById('device-picker').value === arguments[0] "
                              "&& !document.getElementById('reset-position').disabled;", args.device), 20)


def first_command(args, topic):
    """The first message on `topic` since the watch began, and how many messages came before it."""
    for index, (seen, payload) in enumerate(args.bus_log.since(args.bus_start)):
        if seen == topic:
            return index, payload
    return None


def check_own_page_reset(page, args):
    """The control: the dashboard's own page resets the position (its button), and that works: the command is on the
    bus (the first reset since the watch began, so none came before it) and the position's steps go back to 0."""
    own_page(page, args)
    log = args.bus_log
    topic = f"stepcompass/{args.device}/cmd/reset-position"
    before_steps = page.wait("a position of the walker", lambda: position_steps(log.since(args.bus_start), args.device), 10)[-1]
    mark = log.count()
    before = dashboard_requests(args)
    page.element("reset-position").click()
    index, payload = page.wait(f"{topic} is published", lambda: first_command(args, topic), 10)
    if payload != {} or args.bus_start + index < mark:
        raise CheckFailed(f"the first {topic} since the watch began: {payload} (message {index}, the click at {mark - args.bus_start})")
    # The steps never go down but by a reset (the reset position has 0).
    (reset,) = page.wait(f"a position with fewer steps than {before_steps} (the reset)",
                         lambda: (s := position_steps(log.since(mark), args.device)) and min(s) < before_steps and (min(s),), 10)
    accepted = requests_delta(before, dashboard_requests(args)).get((TARGETS[0][2], "POST", "202"), 0)
    if accepted != 1:
        raise CheckFailed(f"the dashboard accepted {accepted} reset-position requests for one click")
    return f"button -> POST 202, {topic} {json.dumps(payload)} (the first since the watch began); position steps {before_steps} -> {reset}"


def check_own_page_commands(page, args):
    """The control for the other two endpoints: the page's lock button and its markers refresh (post(), what its Retry
    button calls) reach the bus, each the first message on its topic since the watch began."""
    own_page(page, args)
    results = []
    offered = page.text("lock-button")
    action = "unlock" if offered == "Unlock bearing" else "lock"
    topic = f"stepcompass/{args.device}/cmd/bearing-lock"
    mark = args.bus_log.count()
    page.element("lock-button").click()
    index, payload = page.wait(f"{topic} is published", lambda: first_command(args, topic), 10)
    if payload.get("action") != action or args.bus_start + index < mark:
        raise CheckFailed(f"the first {topic} since the watch began: {payload} (message {index}, the click at "
                          f"{mark - args.bus_start}), expected the button's {action}")
    results.append(f"{offered!r} -> {topic} {json.dumps(payload)}")
    topic = "stepcompass/markers/cmd/refresh"
    mark = args.bus_log.count()
    page.js("post('/api/markers/refresh', {});")
    index, payload = page.wait(f"{topic} is published", lambda: first_command(args, topic), 10)
    if args.bus_start + index < mark:
        raise CheckFailed(f"a {topic} before the page's own: {payload} (message {index})")
    results.append(f"post('/api/markers/refresh') -> {topic} {json.dumps(payload)}")
    status = page.text("command-status")
    if status:
        raise CheckFailed(f"the page reports {status!r}")
    return "; ".join(results) + ", each the first on its topic"


def check_console(page, args):
    severe = [entry for entry in page.browser_log() if entry.get("level") == "SEVERE"]
    if severe:
        raise CheckFailed("browser console errors: " + " | ".join(entry["message"] for entry in severe))
    return f"{len(page.log)} console entries, none SEVERE"


# The red band last but two: the screenshot then shows it, with a marker's nearest.
CHECKS = [check_loads, check_formats, check_changes, check_path, check_rose, check_lock, check_unlock, check_north,
          check_markers_ready, check_map_markers, check_nearest_keyboard, check_nearest_map, check_map_clusters,
          check_walk_map, check_place, check_activity, check_activity_guidance, check_journal_waiting, check_journal,
          check_red_band, check_names, check_keyboard_focus, check_colour_schemes, check_console]
# The map's checks, and what replaces them when Leaflet is not installed (outside CI only).
MAP_CHECKS = {check_map_markers, check_nearest_map, check_map_clusters, check_walk_map}
# The other dashboards of the run: the same bus, each with one thing missing.
RUNS = [
    ("fallback_url", "tiles unreachable (--tile-url at a closed port)",
     [check_loads, check_map_fallback_tiles, check_markers_ready, check_nearest_plot, check_path, check_console_except_tiles]),
    ("plain_url", "Leaflet not installed (--leaflet-dir an empty folder)",
     [check_loads, check_map_fallback_leaflet, check_markers_ready, check_nearest_plot, check_path, check_console]),
    ("grid_url", "Leaflet without Leaflet.markercluster (the page groups the markers itself)",
     [check_loads, check_map_ready, check_map_clusters, check_console]),
    ("token_url", "an access token (--auth-token-file): the page asks for it once and keeps it",
     [check_token_form, check_token_wrong, check_token_accepted, check_token_reload, check_token_console]),
    ("hostile_url", "pages of other origins (--hostile-port) try to change state through the --url dashboard: refused; "
     "its own page: accepted",
     [check_loads, check_hostile_watch, *HOSTILE_ATTEMPTS, check_hostile_nothing_changed, check_own_page_reset,
      check_own_page_commands]),
]
# The runs that need no Leaflet.
RUNS_WITHOUT_LEAFLET = {"plain_url", "token_url", "hostile_url"}
# Without the page loaded, or without values, nothing after makes sense.
FATAL = {check_loads, check_formats, check_token_form, check_hostile_watch}


def run_checks(args, checks, screenshot=None):
    """Runs `checks` in a browser of their own; returns (checks run, failures)."""
    page = Page(args)
    failures, run = 0, 0
    try:
        for check in checks:
            name = check.__name__.removeprefix("check_")
            if check in MAP_CHECKS and not args.leaflet_installed:
                print(f"  skip  {name}: Leaflet is not installed (apt-get install libjs-leaflet)", flush=True)
                continue
            run += 1
            try:
                detail = check(page, args)
                print(f"  ok    {name}: {detail}", flush=True)
            except (CheckFailed, WebDriverException, subprocess.SubprocessError, OSError, ValueError) as error:
                failures += 1
                message = error.msg if isinstance(error, WebDriverException) else error
                print(f"  FAIL  {name}: {message}", flush=True)
                if check in FATAL:
                    break
        if screenshot:
            # The heading and the rose at rest, the nearest list shown: the screenshot a person would see.
            page.js("window.scrollTo(0, 0);")
            page.driver.save_screenshot(screenshot)
            print(f"  screenshot: {screenshot}")
    finally:
        page.quit()
    return run, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="the dashboard, e.g. http://127.0.0.1:8080/")
    parser.add_argument("--mqtt-port", type=int, required=True, help="the broker's port on 127.0.0.1")
    parser.add_argument("--screenshot", required=True, help="PNG written at the end")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--window-size", default="1280,1300")
    parser.add_argument("--change-timeout", type=float, default=20)
    parser.add_argument("--journal-cache-dir", required=True,
                        help="the dashboard's --journal-cache-dir: the check writes its photos there")
    parser.add_argument("--tile-port", type=int, required=True,
                        help="the port of the --url dashboard's --tile-url on 127.0.0.1: the check serves the tiles there")
    parser.add_argument("--fallback-url", help="a dashboard whose --tile-url nothing answers")
    parser.add_argument("--unreachable-tiles", default="", help="that dashboard's tile host:port")
    parser.add_argument("--plain-url", help="a dashboard whose --leaflet-dir is empty")
    parser.add_argument("--grid-url", help="a dashboard whose --leaflet-dir has Leaflet without Leaflet.markercluster")
    parser.add_argument("--token-url", help="a dashboard started with an access token (--auth-token-file)")
    parser.add_argument("--token", default="", help="that dashboard's access token")
    parser.add_argument("--hostile-port", type=int,
                        help="a free port on 127.0.0.1: the check serves there the page of another origin that attacks --url")
    parser.add_argument("--metrics-url", help="the --url dashboard's metrics (--metrics-port): how it answered each attack")
    parser.add_argument("--require-leaflet", action="store_true",
                        help="fail (rather than skip the map's checks) when the dashboard has no Leaflet (CI)")
    args = parser.parse_args()
    args.journal_responder = None
    if args.hostile_port and not args.metrics_url:
        parser.error("--hostile-port needs --metrics-url")
    # The hostile run attacks the main dashboard; what its checks start (the bus log) is stopped at the end.
    args.hostile_url = args.url if args.hostile_port else None
    args.closers = []

    started = time.monotonic()
    with urllib.request.urlopen(args.url.rstrip("/") + "/api/map", timeout=10) as response:
        settings = json.load(response)
    args.leaflet_installed = bool(settings.get("leaflet"))
    args.cluster_library = bool(settings.get("markerCluster"))
    if not args.leaflet_installed and args.require_leaflet:
        print(f"  FAIL  map: the dashboard has no Leaflet: {settings.get('unavailableText')}")
        return 1
    args.tile_server = TileServer(args.tile_port)
    if args.hostile_port:
        args.closers.append(HostileServer(args.hostile_port, args.url.rstrip("/")).stop)
    total, failures = 0, 0
    try:
        if args.leaflet_installed:
            print(f"  -- the dashboard with the map (Leaflet{' and Leaflet.markercluster' if args.cluster_library else ''}, "
                  f"tiles from 127.0.0.1:{args.tile_port}): {args.url}", flush=True)
        else:
            print(f"  -- the dashboard, without Leaflet (the map's checks skipped): {args.url}", flush=True)
        count, failed = run_checks(args, CHECKS, screenshot=args.screenshot)
        total, failures = total + count, failures + failed
        # The journal stand-in keeps answering: the walk published above is retained, so the other pages ask for it.
        for option, title, checks in RUNS:
            url = getattr(args, option)
            if not url:
                continue
            if not args.leaflet_installed and option not in RUNS_WITHOUT_LEAFLET:
                print(f"  -- {title}: skipped, Leaflet is not installed", flush=True)
                continue
            print(f"  -- {title}: {url}", flush=True)
            count, failed = run_checks(argparse.Namespace(**dict(vars(args), url=url, cluster_library=False)), checks)
            total, failures = total + count, failures + failed
    finally:
        if args.journal_responder:
            args.journal_responder.stop()
        for close in args.closers:
            close()
        args.tile_server.stop()
    print(f"  {total} checks, {failures} failed, {time.monotonic() - started:.1f} s in the browser")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

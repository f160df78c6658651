// Opens an HTML report in headless Chromium through the DevTools protocol
// and prints what a person would see, as one JSON object: the page's console
// errors and uncaught exceptions, every network request that is not the
// page itself, counts of the timeline's elements, and whether each
// divergence marker links to a table row that exists. Writes a screenshot.
//
//   node --experimental-websocket browser-check.mjs CHROMIUM PAGE.html SHOT.png
//
// Needs Node 20.10+ (WebSocket behind the flag) and nothing from npm.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [chromium, page, shot] = process.argv.slice(2);
if (!chromium || !page || !shot) {
  console.error("usage: browser-check.mjs CHROMIUM PAGE.html SHOT.png");
  process.exit(2);
}
const profile = mkdtempSync(join(tmpdir(), "boinc-audit-chromium-"));
const browser = spawn(chromium, [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
  "--disable-default-apps", "--disable-extensions", `--user-data-dir=${profile}`,
  "--remote-debugging-port=0", "--window-size=1400,1200", "about:blank",
], { stdio: ["ignore", "ignore", "ignore"] });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const exited = new Promise((r) => browser.on("exit", r));
function cleanUp() {
  try { rmSync(profile, { recursive: true, force: true }); } catch { /* left in tmp */ }
}
function fail(message) {
  console.error(message);
  browser.kill("SIGKILL");
  cleanUp();
  process.exit(1);
}
const deadline = setTimeout(() => fail("browser check timed out"), 60000);

// The browser writes its port and path once it listens.
let port, path;
for (let i = 0; i < 200 && !port; i++) {
  const file = join(profile, "DevToolsActivePort");
  if (existsSync(file)) {
    const lines = readFileSync(file, "utf8").split("\n");
    if (lines.length >= 2 && lines[1]) [port, path] = [lines[0], lines[1]];
  }
  if (!port) await sleep(100);
}
if (!port) fail("chromium did not open its DevTools port");

const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`);
await new Promise((ok, err) => { ws.onopen = ok; ws.onerror = () => err(new Error("websocket")); });
let nextId = 1;
const pending = new Map();
const listeners = [];
ws.onmessage = (msg) => {
  const data = JSON.parse(msg.data);
  if (data.id && pending.has(data.id)) {
    const { ok, err } = pending.get(data.id);
    pending.delete(data.id);
    data.error ? err(new Error(JSON.stringify(data.error))) : ok(data.result);
  } else if (data.method) {
    for (const l of listeners) l(data);
  }
};
const send = (method, params = {}, sessionId) => new Promise((ok, err) => {
  const id = nextId++;
  pending.set(id, { ok, err });
  ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
});

const url = pathToFileURL(resolve(page)).href;
const consoleErrors = [];
const requests = [];
let loaded;
const loadedP = new Promise((r) => { loaded = r; });
listeners.push((ev) => {
  if (ev.method === "Runtime.consoleAPICalled" && ["error", "assert"].includes(ev.params.type)) {
    consoleErrors.push(ev.params.args.map((a) => a.value ?? a.description).join(" "));
  } else if (ev.method === "Runtime.exceptionThrown") {
    consoleErrors.push(ev.params.exceptionDetails.exception?.description ?? ev.params.exceptionDetails.text);
  } else if (ev.method === "Log.entryAdded" && ev.params.entry.level === "error") {
    consoleErrors.push(ev.params.entry.text);
  } else if (ev.method === "Network.requestWillBeSent") {
    const u = ev.params.request.url;
    if (u !== url && !u.startsWith("data:") && !u.startsWith("about:")) requests.push(u);
  } else if (ev.method === "Page.loadEventFired") {
    loaded();
  }
});

const { targetId } = await send("Target.createTarget", { url: "about:blank" });
const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
for (const domain of ["Runtime", "Log", "Network", "Page"]) await send(`${domain}.enable`, {}, sessionId);
await send("Emulation.setDeviceMetricsOverride",
  { width: 1400, height: 1200, deviceScaleFactor: 1, mobile: false }, sessionId);
await send("Page.navigate", { url }, sessionId);
await loadedP;
await sleep(300);

const probe = `(() => {
  const q = (s) => document.querySelectorAll(s).length;
  const links = [...document.querySelectorAll('a.divergence-link')];
  const dangling = links.filter((a) => !document.getElementById(a.getAttribute('href').slice(1))).length;
  return JSON.stringify({
    title: document.title,
    lanes: [...document.querySelectorAll('g.lane')].map((g) => g.getAttribute('data-lane')),
    recorded_bars: q('rect.bar.recorded'),
    replayed_bars: q('rect.bar.replayed'),
    fetch_markers: q('.fetch-marker'),
    rpc_markers: q('.rpc-marker'),
    divergence_markers: q('.div-marker'),
    divergence_links: links.length,
    dangling_links: dangling,
    divergence_rows: q('#div-table tr.divergence'),
    kinds_rows: q('table.kinds tbody tr'),
    marker_kinds: [...document.querySelectorAll('.div-marker')].map((m) => m.getAttribute('data-kind')),
    filter_text: (document.getElementById('shown') || {}).textContent || null,
  });
})()`;
const result = await send("Runtime.evaluate", { expression: probe, returnByValue: true }, sessionId);
const dom = JSON.parse(result.result.value);
const { data } = await send("Page.captureScreenshot", { format: "png", captureBeyondViewport: true }, sessionId);
writeFileSync(shot, Buffer.from(data, "base64"));
console.log(JSON.stringify({ page, ...dom, console_errors: consoleErrors, requests }));
clearTimeout(deadline);
ws.close();
browser.kill("SIGKILL");
await exited;
cleanUp();

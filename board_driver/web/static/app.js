// The companion page. Everything it shows comes from the daemon (GET /api/state, then pushes
// over /ws); everything it does is a POST the daemon may refuse with a reason. Text from the
// daemon is set with textContent; only the SVG pictures, which the daemon draws from the game
// alone and escapes, are set as markup.
"use strict";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "treeboard-token";
let state = null;
let socket = null;
let retryMs = 300;
let chosenSite = null;
let confirmAction = null;
let turn3d = 0;  // quarter turns of the 3D view, this page's own choice

// --- the page's language ----------------------------------------------------------------------
// The browser's language (or the one chosen in the switch, kept in this browser); the daemon
// sends the state in it (?lang=) and the page's own words (GET /api/words).
const LANG_KEY = "treeboard-language";
let lang = localStorage.getItem(LANG_KEY) || (navigator.languages || [navigator.language])
  .map((l) => String(l).toLowerCase().split("-")[0]).find((l) => l === "zh" || l === "en") || "en";
let words = {};
const originals = new Map();  // each text node of the page -> its English

function tr(text, fields) {
  const said = words[text] || text;
  return said.replace(/\{(\w+)\}/g, (m, k) => (fields && k in fields ? fields[k] : m));
}

async function loadWords() {
  const response = await fetch(`/api/words?lang=${encodeURIComponent(lang)}`);
  const body = await response.json();
  lang = body.language;
  words = body.words;
  document.documentElement.lang = lang === "zh" ? "zh-Hans" : lang;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!originals.has(node)) originals.set(node, node.nodeValue);
    const english = originals.get(node);
    const text = english.replace(/\s+/g, " ").trim();
    if (text in words) {
      node.nodeValue = english.match(/^\s*/)[0] + words[text] + english.match(/\s*$/)[0];
    }
  }
  const select = $("language");
  select.textContent = "";
  for (const [code, name] of Object.entries(body.languages)) {
    select.append(new Option(name, code, false, code === lang));
  }
}

// --- the live state ---------------------------------------------------------------------------

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${proto}//${location.host}/ws?lang=${encodeURIComponent(lang)}`);
  socket.onopen = () => { retryMs = 300; setConnected(true); };
  socket.onmessage = (event) => show(JSON.parse(event.data));
  socket.onclose = () => {
    // The daemon restarted or the network blinked: try again, backing off to 3 s.
    setConnected(false);
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 3000);
  };
}

function setConnected(on) {
  const conn = $("conn");
  conn.textContent = on ? tr("live") : tr("reconnecting…");
  conn.classList.toggle("off", !on);
  document.body.dataset.connected = on ? "yes" : "no";
}

function show(s) {
  // An answer overtaken by a newer push from the same server: keep the newer one.
  if (state && s.instance === state.instance && s.version < state.version) return;
  const gameChanged = !state || state.game.game !== s.game.game;
  state = s;
  document.body.dataset.version = String(s.version);
  document.body.dataset.game = s.game.game;
  document.title = `${s.title} — treeboard`;
  $("title").textContent = s.title;
  $("about").textContent = s.about;
  $("board").innerHTML = s.svg;
  const has3d = Boolean(s.svg3d);
  $("view3d").hidden = !has3d;
  // A turned view is fetched turned (the push carries the unturned one), so it never flickers.
  if (!has3d || turn3d === 0) $("board3d").innerHTML = has3d ? s.svg3d : "";
  else fetchTurned();
  showStatus(s);
  showFixes(s);
  showRemote(s);
  $("conn").textContent = tr("live") + (s.parts_down ? ` — ${s.parts_down}` : "");
  showEntries(s);
  showMoves(s);
  $("end-turn").hidden = !s.end_turn_button;
  $("end-turn").disabled = !s.end_turn;
  $("takeback").disabled = !s.takeback;
  fillSelect($("hint"), s.hints.map((m) => [m, m]), s.hint);
  $("hint-reason").hidden = !s.hint_reason;  // why the lit best move, in one sentence
  $("hint-reason").textContent = s.hint_reason ? `Hint: ${s.hint_reason}` : "";
  showSeats(s);
  showMeaning(s);
  $("token-box").hidden = !s.token_required;
  if (gameChanged && $("history").open) loadGames();
}

function showSeats(s) {
  // In a remote game the seats are the join's; otherwise each seat's select says who plays it.
  $("seats").hidden = s.seats.includes("remote");
  for (const seat of [0, 1]) {
    $(`seat${seat}-name`).textContent = s.players[seat];
    fillSelect($(`seat${seat}`), s.seat_choices.map((p) => [p, s.seat_labels[p] || p]),
      s.seats[seat]);
  }
}

function showMeaning(s) {
  // The board's legend (one source with the sim's), what the mover must do, who you are.
  let box = $("meaning");
  if (!box) { box = document.createElement("details"); box.id = "meaning"; $("turn").after(box); }
  box.textContent = "";
  const said = [s.you, s.notice].filter(Boolean);   // always in sight: the summary line
  const legend = document.createElement("summary");
  legend.textContent = (said.length ? `${said.join("; ")}. ` : "") + "What the lights mean";
  box.append(legend, ...s.legend.map((e) => { const p = document.createElement("p"); p.append(chip(e.colour || "transparent"), `${e.label}: ${e.means}`); return p; }));
}

function chip(colour) {
  const c = document.createElement("span");
  c.className = "chip";
  c.style.background = colour;
  return c;
}

function showStatus(s) {
  const turn = $("turn");
  turn.textContent = "";
  const [a, b] = s.game.scores;
  if (s.game.over || (s.clocks && s.clocks.flag !== null)) {
    turn.textContent = tr("Game over");
  } else {
    const who = s.game.to_move;
    turn.append(chip(s.colours[`player${who}`]), tr("{player} to move", { player: s.players[who] }));
  }
  const score = $("score");
  score.textContent = "";
  score.append(chip(s.colours.player0), `${s.players[0]} ${a}  `,
               chip(s.colours.player1), `${s.players[1]} ${b}`);
  showClocks(s);
  $("result").hidden = !s.result;
  $("result").textContent = s.result ? tr("{result}. Clear the board for the next game.", { result: s.result }) : "";
}

// The players' clocks: both shown, the running one marked and counted down here between the
// board's pushes (which set it right at every change).
const clocks = { s: null, at: 0, timer: null };

function clockText(ms) {
  if (ms === null) return "-";
  const sec = ms / 1000;
  if (sec < 10) return `0:${(Math.floor(sec * 10) / 10).toFixed(1).padStart(4, "0")}`;
  const whole = Math.ceil(sec - 1e-9);
  const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), r = whole % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${h ? h + ":" : ""}${mm}:${String(r).padStart(2, "0")}`;
}

function drawClocks() {
  const s = clocks.s;
  const box = $("clocks");
  box.textContent = "";
  if (!s || !s.clocks) return;
  const c = s.clocks;
  for (const seat of [0, 1]) {
    let ms = c.left_ms[seat];
    if (ms !== null && c.running === seat) ms = Math.max(0, ms - (performance.now() - clocks.at));
    const span = document.createElement("span");
    span.className = "clock" + (c.running === seat ? " running" : "") + (c.flag === seat ? " flag" : "");
    span.dataset.seat = seat;
    span.append(chip(s.colours[`player${seat}`]), `${s.players[seat]} ${clockText(ms)}`);
    box.append(span);
  }
}

function showClocks(s) {
  clocks.s = s;
  clocks.at = performance.now();
  $("clocks").hidden = !s.clocks;
  drawClocks();
  if (s.clocks && s.clocks.running !== null && clocks.timer === null) {
    clocks.timer = setInterval(drawClocks, 100);
  } else if ((!s.clocks || s.clocks.running === null) && clocks.timer !== null) {
    clearInterval(clocks.timer);
    clocks.timer = null;
  }
}

function showFixes(s) {
  $("banner").hidden = s.fixes.length === 0;
  // Only the other seat's move left to make (the computer's, a remote board's): an
  // invitation, not a mistake.
  const owed = s.fixes.length > 0 && s.fixes.every((f) => f.move);
  $("banner").classList.toggle("owed", owed);
  $("banner-title").textContent = owed ? s.owed_by : tr("The board disagrees with the game.");
  $("banner-sub").textContent = owed ? tr("Make it on the board:") : tr("Put it right there:");
  siteList($("fixes"), s.fixes);
  $("steps").hidden = s.steps.length === 0;
  siteList($("step-list"), s.steps);
}

function showRemote(s) {
  // A remote game: the link to the other board in words, and its takeback request, if any.
  const r = s.remote;
  $("remote").hidden = !r;
  $("join").hidden = Boolean(r);
  if (!r) return;
  $("remote-game").textContent = r.game;
  let words = r.status;
  if (r.asked_to !== null) words += ` — takeback asked, waiting for the other board`;
  $("remote-status").textContent = words;
  $("remote").classList.toggle("bad", r.out_of_step || r.status.startsWith("no broker"));
  $("remote-ask").hidden = r.request === null;
  if (r.request !== null) {
    const move = s.game.moves[r.request];
    $("remote-ask-text").textContent = tr("The other board asks to take back {move}.", { move });
  }
}

function siteList(list, items) {
  list.textContent = "";
  for (const fix of items) {
    const li = document.createElement("li");
    const site = document.createElement("b");
    site.textContent = fix.site;
    li.append(site, `: ${fix.do}`);
    list.append(li);
  }
}

function showEntries(s) {
  $("entry").hidden = s.entries.length === 0;
  const sites = [...new Set(s.entries.map((e) => e.site))];
  if (!sites.includes(chosenSite)) chosenSite = sites[0] || null;
  fillSelect($("entry-site"), sites.map((site) => [site, site]), chosenSite);
  markChosen();
  const kinds = $("entry-kinds");
  kinds.textContent = "";
  for (const e of s.entries.filter((e) => e.site === chosenSite)) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "primary";
    button.textContent = `Place ${kindWords(e.kind)} at ${e.site}`;
    button.dataset.kind = e.kind;
    button.onclick = () => post("/api/enter", { site: e.site, kind: e.kind });
    kinds.append(button);
  }
}

function kindWords(kind) {
  const [colour, what] = kind.split("-");
  return what ? `${colour[0].toUpperCase()}${colour.slice(1)} ${what}` : kind;
}

function markChosen() {
  for (const g of document.querySelectorAll("#board3d .place")) {
    g.classList.toggle("chosen", g.dataset.place === chosenSite);
  }
}

function showMoves(s) {
  const list = $("moves");
  list.textContent = "";
  s.game.moves.forEach((move, i) => {
    const li = document.createElement("li");
    const n = document.createElement("span");
    n.className = "n";
    n.textContent = `${i + 1}.`;
    const text = document.createElement("span");
    text.className = "move";
    text.textContent = move;
    li.append(n, text);
    if (i === s.game.moves.length - 1) li.className = "last";
    list.append(li);
  });
  list.scrollTop = list.scrollHeight;
}

function fillSelect(select, items, value) {
  const same = select.options.length === items.length &&
    items.every(([v], i) => select.options[i].value === v);
  if (!same) {
    select.textContent = "";
    for (const [v, label] of items) select.append(new Option(label, v));
  }
  if (value !== null && value !== undefined) select.value = value;
}

async function fetchTurned() {
  const asked = turn3d;
  const response = await fetch(`/api/picture3d?turn=${asked}`);
  if (!response.ok || asked !== turn3d) return;
  $("board3d").innerHTML = (await response.json()).svg3d;
  markChosen();
}

// --- acting -----------------------------------------------------------------------------------

async function post(path, body) {
  const headers = { "Content-Type": "application/json" };
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers["X-Treeboard-Token"] = token;  // a header, never a cookie
  let response;
  try {
    response = await fetch(`${path}?lang=${encodeURIComponent(lang)}`,
                           { method: "POST", headers, body: JSON.stringify(body || {}) });
  } catch (err) {
    toast(tr("The board does not answer; it may be restarting."));
    return null;
  }
  const data = await response.json().catch(() => ({ error: `refused (${response.status})` }));
  if (!response.ok) {
    toast(data.error || `refused (${response.status})`);
    if (response.status === 401 || response.status === 403) $("token-box").hidden = false;
    return null;
  }
  show(data);
  return data;
}

let toastTimer = null;
function toast(text) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 6000);
}

function ask(text, action, optionsForm) {
  $("confirm-text").textContent = text;
  const box = $("confirm-options");
  box.textContent = "";
  if (optionsForm) box.append(optionsForm);
  confirmAction = action;
  $("confirm").hidden = false;
  $("confirm-yes").focus();
}

function optionInputs() {
  const form = document.createElement("div");
  for (const [name, help] of Object.entries(state.option_help)) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.name = name;
    input.value = state.options[name] ?? "";
    input.title = help;
    label.append(`${name} `, input);
    form.append(label);
  }
  return form;
}

function wire() {
  $("end-turn").onclick = () => post("/api/press", { button: "end_turn" });
  $("remote-accept").onclick = () => post("/api/takeback-answer", { answer: "accept" });
  $("remote-refuse").onclick = () => post("/api/takeback-answer", { answer: "refuse" });
  $("remote-leave").onclick = () =>
    ask("Leave the remote game? Both seats are then played at this board.",
        () => post("/api/remote/leave", {}));
  $("join-form").onsubmit = (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const body = {};
    for (const [key, value] of form.entries()) body[key] = String(value).trim();
    post("/api/remote/join", body);
  };
  $("repeat").onclick = async () => {
    const data = await post("/api/repeat", {});
    if (data) toast(data.said.join(" · "));
  };
  $("takeback").onclick = () => {
    const moves = state.game.moves;
    ask(state.takeback_question || `Take back ${moves[moves.length - 1]}? Lift its piece from the board afterwards.`,
        () => post("/api/takeback", {}));
  };
  $("new-game").onclick = () => {
    const form = optionInputs();
    ask("Abandon this game and start a new one?", () => {
      const options = {};
      for (const input of form.querySelectorAll("input")) {
        if (input.value.trim() !== "" && input.value.trim() !== state.options[input.name]) {
          options[input.name] = input.value.trim();
        }
      }
      return post("/api/new-game", options);
    }, form);
  };
  $("confirm-yes").onclick = () => {
    $("confirm").hidden = true;
    if (confirmAction) confirmAction();
    confirmAction = null;
  };
  $("confirm-no").onclick = () => { $("confirm").hidden = true; confirmAction = null; };
  $("turn3d").onclick = () => { turn3d = (turn3d + 1) % 4; fetchTurned(); };
  $("hint").onchange = (e) => post("/api/hint", { mode: e.target.value });
  for (const seat of ["seat0", "seat1"]) {
    $(seat).onchange = (e) => post("/api/seats", { seat: e.target.dataset.seat, player: e.target.value });
  }
  $("entry-site").onchange = (e) => { chosenSite = e.target.value; showEntries(state); };
  $("board3d").addEventListener("click", (e) => {
    const place = e.target.closest("[data-place]");
    if (!place) return;
    chosenSite = place.dataset.place;
    showEntries(state);
  });
  $("board3d").addEventListener("keydown", (e) => {
    const place = e.target.closest("[data-place]");
    if (place && (e.key === "Enter" || e.key === " ")) {
      chosenSite = place.dataset.place;
      showEntries(state);
      e.preventDefault();
    }
  });
  const token = $("token");
  token.value = localStorage.getItem(TOKEN_KEY) || "";
  // Kept in this browser's storage and sent as a header: never a cookie, which a browser would
  // add to requests that other sites make.
  token.onchange = () => localStorage.setItem(TOKEN_KEY, token.value.trim());
  $("token-box").onsubmit = (e) => {
    e.preventDefault();
    localStorage.setItem(TOKEN_KEY, token.value.trim());
    toast("Token kept in this browser.");
  };
  $("history").addEventListener("toggle", () => { if ($("history").open) loadGames(); });
  $("replay-slider").oninput = (e) => replayTo(Number(e.target.value));
  $("replay-first").onclick = () => replayTo(0);
  $("replay-prev").onclick = () => replayTo(replay.at - 1);
  $("replay-next").onclick = () => replayTo(replay.at + 1);
  $("replay-last").onclick = () => replayTo(replay.moves.length);
  $("replay-review-ask").onclick = () => loadReview(replay.id);
}

// --- history ----------------------------------------------------------------------------------

const replay = { id: null, at: 0, moves: [] };

async function loadGames() {
  const response = await fetch("/api/games");
  if (!response.ok) return;
  const { games } = await response.json();
  const list = $("games");
  list.textContent = "";
  if (games.length === 0) {
    const li = document.createElement("li");
    li.textContent = tr("No finished game yet.");
    list.append(li);
  }
  for (const g of games) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    const when = g.finished_at ? new Date(g.finished_at * 1000).toLocaleString() : "";
    button.textContent = `#${g.id} ${g.game}: ${g.result || g.status}, ${g.moves} moves ${when}`;
    button.dataset.game = String(g.id);
    button.onclick = () => openReplay(g.id);
    li.append(button);
    list.append(li);
  }
}

async function openReplay(id) {
  const response = await fetch(`/api/games/${id}`);
  if (!response.ok) { toast((await response.json()).error); return; }
  const game = await response.json();
  replay.id = id;
  replay.moves = game.moves;
  $("replay").hidden = false;
  $("replay-slider").max = String(game.moves.length);
  $("replay-download").href = `/api/games/${id}?download=1`;
  $("replay-download").setAttribute("download", `treeboard-${game.game}-${id}.json`);
  replayTo(game.moves.length);
  $("replay-review").textContent = "";
}

// --- review graph: the value before each move for the first player, the result changers marked

async function loadReview(id) {
  // Asked for, not loaded with every game: a review costs the computer's worker seconds.
  if (id === null) return;
  const box = $("replay-review");
  box.textContent = "The computer reviews the game…";
  const response = await fetch(`/api/games/${id}/review`);
  if (replay.id !== id) return;  // another game was opened meanwhile
  const body = await response.json().catch(() => ({ error: `refused (${response.status})` }));
  if (!response.ok) { box.textContent = body.error; return; }
  box.textContent = "";
  if (body.moves.length) reviewGraph(box, body.moves);
}

function svgEl(name, attrs, parent) {
  // The SVG namespace taken from the graph's root, which the HTML parser made an SVG element.
  const el = document.createElementNS(parent.namespaceURI, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  parent.append(el);
  return el;
}

function reviewGraph(box, rows) {
  // Exact values are tree margins (scaled by the largest), estimates 0..1 (0.5 even): both
  // drawn from -1 (the second player wins) to +1 (the first wins).
  const scale = Math.max(1, ...rows.filter((r) => r.exact).map((r) => Math.abs(r.before)));
  const value = (r) => (r.exact ? r.before / scale : 2 * r.before - 1) * (r.player === 0 ? 1 : -1);
  const W = 600, H = 160, pad = 10, step = (W - 2 * pad) / Math.max(1, rows.length - 1);
  const x = (i) => pad + i * step, y = (v) => H / 2 - v * (H / 2 - pad);
  box.innerHTML = `<svg viewBox="0 0 ${W} ${H}" class="review" role="img"></svg>`;
  const svg = box.firstChild;
  svgEl("title", {}, svg).textContent = "The value before each move, for the first player " +
    "(up: the first player wins); red: a move that changed the result";
  svgEl("line", { x1: 0, x2: W, y1: H / 2, y2: H / 2, class: "axis" }, svg);
  const points = rows.map((r, i) => `${x(i).toFixed(1)},${y(value(r)).toFixed(1)}`);
  svgEl("polyline", { points: points.join(" "), class: "curve" }, svg);
  rows.forEach((r, i) => {
    const dot = svgEl("circle", { cx: x(i), cy: y(value(r)), r: r.changed_result ? 6 : 3,
      class: r.changed_result ? "changed" : "dot", "data-move": r.n }, svg);
    svgEl("title", {}, dot).textContent = `move ${r.n}: ${r.move}` +
      (r.changed_result ? ` changed the result (best: ${r.best.join(" ")})` : "");
    dot.onclick = () => replayTo(r.n - 1);  // the position before the move
  });
}

async function replayTo(n) {
  if (replay.id === null) return;
  const at = Math.max(0, Math.min(replay.moves.length, n));
  const response = await fetch(`/api/games/${replay.id}/position?move=${at}`);
  if (!response.ok) { toast((await response.json()).error); return; }
  const pos = await response.json();
  replay.at = at;
  $("replay-slider").value = String(at);
  $("replay-at").textContent = at === 0 ? "start" :
    `move ${at} of ${replay.moves.length}: ${replay.moves[at - 1]}`;
  $("replay-board").innerHTML = pos.svg + (pos.svg3d || "");
}

// --- start ------------------------------------------------------------------------------------

function fetchState() {
  fetch(`/api/state?lang=${encodeURIComponent(lang)}`).then((r) => r.json()).then(show).catch(() => {});
}

wire();
$("language").addEventListener("change", async (event) => {
  lang = event.target.value;
  localStorage.setItem(LANG_KEY, lang);
  await loadWords();
  state = null;
  fetchState();
  if (socket) socket.close();  // it reconnects asking for the new language
});
loadWords().catch(() => {}).finally(() => { fetchState(); connect(); });

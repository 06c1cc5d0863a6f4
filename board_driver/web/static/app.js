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
let entry = null;  // the pictures as a move-entry surface while a web seat is to move (entry.js)

// --- the page's language ----------------------------------------------------------------------
// The one chosen in the switch (kept in this browser), else the browser's first language the
// board has a catalog for, else English; the daemon sends the state in it (?lang=), and the
// page's own words and the languages it ships (GET /api/words: the page knows none itself).
const LANG_KEY = "treeboard-language";
const browserLanguages = (navigator.languages || [navigator.language])
  .map((l) => String(l).toLowerCase().split("-")[0]);
let lang = localStorage.getItem(LANG_KEY) || browserLanguages[0] || "en";
let words = {};
const originals = new Map();  // each text node of the page -> its English

function tr(text, fields) {
  const said = words[text] || text;
  return said.replace(/\{(\w+)\}/g, (m, k) => (fields && k in fields ? fields[k] : m));
}

async function loadWords(again = false) {
  const response = await fetch(`/api/words?lang=${encodeURIComponent(lang)}`);
  const body = await response.json();
  if (!again && !localStorage.getItem(LANG_KEY)) {
    const wanted = browserLanguages.find((l) => l in body.languages) || "en";
    if (wanted !== body.language) {
      lang = wanted;
      return loadWords(true);
    }
  }
  lang = body.language;
  words = body.words;
  document.documentElement.lang = body.tag;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!originals.has(node)) originals.set(node, node.nodeValue);
    const english = originals.get(node);
    const text = english.replace(/\s+/g, " ").trim();
    if (text in words) {
      node.nodeValue = english.match(/^\s*/)[0] + words[text] + english.match(/\s*$/)[0];
    }
  }
  languageOptions($("language"), body.languages, lang);
  const voice = $("voice-form").elements.language;
  languageOptions(voice, body.languages, voice.value);
}

// A language select's options: the shipped languages, each by its own name, after any option
// of its own with no value (the voice's "the board's"); `chosen` stays chosen.
function languageOptions(select, languages, chosen) {
  for (const option of [...select.options]) {
    if (option.value) option.remove();
  }
  for (const [code, name] of Object.entries(languages)) select.append(new Option(name, code));
  select.value = chosen;
}

// Every sentence this script writes, in one place, each an English template through `tr`
// (GET /api/words gives `words` for them in the page's language; {field}s are filled in
// after). Sentences from the daemon (the board's words) arrive already composed.
const STRINGS = {
  lobbyEmpty: () => tr("No game is offered in the family's lobby now."),
  lobbyUnreachable: () => tr("the board did not answer"),
  lobbyTake: () => tr("Play it here"),
  live: () => tr("live"),
  reconnecting: () => tr("reconnecting…"),
  pageTitle: (title) => tr("{title} — treeboard", { title }),
  computerLevel: (level) => tr("computer, {level}", { level }),
  voiceOff: () => tr("The board is silent."),
  voiceUp: () => tr("The board speaks."),
  voiceDown: (why) => tr("The voice is down: {why}", { why }),
  voiceSaved: () => tr("The voice's settings are saved: they apply from the next sentence."),
  version: (version) => tr("Version {version}.", { version }),
  onTrial: (version) => tr("Version {version} is on trial: it is kept once it runs.", { version }),
  updateAsked: () => tr("The board looks for an update now, and restarts if it installs one."),
  updated: (r) => tr("Updated to version {version}.", r),
  rolledBack: (r) => tr("The update to version {version} did not work; back to version {running}.", r),
  interrupted: (r) => tr("The update to version {version} was interrupted; version {running} runs on.", r),
  gameOver: () => tr("Game over"),
  toMove: (player) => tr("{player} to move", { player }),
  result: (result) => tr("{result}. Clear the board for the next game.", { result }),
  owedSub: () => tr("Make it on the board:"),
  wrongTitle: () => tr("The board disagrees with the game."),
  wrongSub: () => tr("Put it right there:"),
  takebackAsked: () => tr(" — takeback asked, waiting for the other board"),
  takebackAskedGuest: () => tr(" — takeback asked, waiting for the player in the browser"),
  lightsMean: () => tr("What the lights mean"),
  otherAsks: (move) => tr("The other board asks to take back {move}.", { move }),
  guestAsks: (move) => tr("The player in the browser asks to take back {move}.", { move }),
  place: (kind, where) => tr("Place {kind}: {where}", { kind, where }),
  noAnswer: () => tr("The board does not answer; it may be restarting."),
  refused: (status) => tr("refused ({status})", { status }),
  leaveRemote: () => tr("Leave the remote game? Both seats are then played at this board."),
  takeback: (move) => tr("Take back {move}? Lift its piece from the board afterwards.", { move }),
  newGame: () => tr("Abandon this game and start a new one?"),
  tokenKept: () => tr("Token kept in this browser."),
  noGames: () => tr("No game answers the search."),
  listed: (g, when) => tr("#{id} {title}, {players}: {result}, {moves} moves {when}",
    { id: g.id, title: g.title, result: g.result, moves: g.moves, when,
      players: tr("{first} against {second}", { first: g.players[0], second: g.players[1] }) }),
  imported: (ids) => tr("Imported: game {ids}.", { ids: ids.join(tr(", ")) }),
  chooseFile: () => tr("Choose a record file first."),
  reviewing: () => tr("The computer reviews the game…"),
  reviewTitle: () => tr("Each position's value from the first player's side (up: the first player wins); red: a move that changed the result"),
  reviewUp: () => tr("first player wins"),
  reviewDown: () => tr("second player wins"),
  // (w: the row's moves in the page's words, the answer's "words")
  reviewDot: (r, w) => (r.changed_result
    ? tr("move {n}: {move} changed the result (best: {best})",
         { n: r.n, move: w.move, best: w.best.join(tr(", ")) })
    : tr("move {n}: {move}", { n: r.n, move: w.move })),
  playPrompt: (player) => tr("{player} plays on this page: tap a lit place on the picture.", { player }),
  playChoose: () => tr("Choose the move:"),
  holdSeat: (player) => tr("I play {player} on this page", { player }),
  // (entry.js's own buttons, in the page's words through `tr`)
  entryWords: () => [tr("Undo tap"), tr("Cancel")],
  resign: () => tr("Resign this game?"),
  putAway: () => tr("Put this game away? It waits in the library, with its clocks and seats, until it is taken up again."),
  takeUp: () => tr("Take up"),
  takeUpAsk: (id) => tr("Take up game {id} again? The game in progress is put away first.", { id }),
  replayStart: () => tr("start"),
  replayAt: (at, n, move) => tr("move {at} of {n}: {move}", { at, n, move }),
};

// --- the live state ---------------------------------------------------------------------------

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${proto}//${location.host}/ws?lang=${encodeURIComponent(lang)}&tab=${TAB}`);
  // (after every reconnect the page says again which web seats it holds: web/presence.py)
  socket.onopen = () => { retryMs = 300; setConnected(true); tellPresence(); };
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
  conn.textContent = on ? STRINGS.live() : STRINGS.reconnecting();
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
  document.title = STRINGS.pageTitle(s.title);
  $("title").textContent = s.title;
  $("about").textContent = s.about;
  $("board").innerHTML = s.svg;
  const has3d = Boolean(s.svg3d);
  $("view3d").hidden = !has3d;
  $("board").parentElement.classList.toggle("has3d", has3d);
  // A turned view is fetched turned (the push carries the unturned one), so it never flickers.
  if (!has3d || turn3d === 0) $("board3d").innerHTML = has3d ? s.svg3d : "";
  else fetchTurned();
  showLegend(s.legend.filter((e) => e.colours));  // the game's own, beside the picture
  showStatus(s);
  showFixes(s);
  showRemote(s);
  $("conn").textContent = tr("live") + (s.parts_down ? ` — ${s.parts_down}` : "");
  // (the parts' own reasons, the program's words, as the details a hover shows)
  $("conn").title = (s.parts || []).filter((p) => p.why).map((p) => `${p.name}: ${p.why}`).join("\n");
  showEntries(s);
  showPlay(s);
  showPresence(s);
  showMoves(s);
  $("end-turn").hidden = !s.end_turn_button || Boolean(s.entry);
  $("end-turn").disabled = !s.end_turn;
  $("takeback").disabled = !s.takeback;
  showEnding(s);
  fillSelect($("hint"), s.hints.map((m) => [m, (s.hint_words || {})[m] || m]), s.hint);
  $("hint-reason").hidden = !s.hint_reason;  // why the lit best move, in one sentence
  $("hint-reason").textContent = s.hint_reason ? tr("Hint: {reason}", { reason: s.hint_reason }) : "";
  showMode(s);
  showSeats(s);
  showMeaning(s);
  $("token-box").hidden = !s.token_required;
  if (gameChanged && $("history").open) loadGames();
}

function showSeats(s) {
  // In a remote game the seats are the join's; otherwise each seat's select says who plays it.
  $("seats").hidden = s.seats.includes("remote");
  for (const seat of [0, 1]) {
    // (a computer its time cap cut short says so: it plays weaker than its rating here)
    $(`seat${seat}-name`).textContent = s.players[seat] + (s.limited && s.limited[seat]
      ? ` (${s.limited[seat]})` : "");
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
  legend.textContent = (said.length ? `${said.join("; ")}. ` : "") + STRINGS.lightsMean();
  box.append(legend, ...s.legend.filter((e) => !e.colours).map((e) => { const p = document.createElement("p"); p.append(chip(e.colour || "transparent"), `${e.label}: ${e.means}`); return p; }));
}

function chip(colour, fill) {
  // A player's mark: their pieces as drawn (`fill`: White light, Black dark) ringed in their
  // LED colour, or the LED colour alone where the pieces are drawn in it.
  const c = document.createElement("span");
  c.className = "chip";
  c.style.background = fill || colour;
  if (fill) c.style.boxShadow = `0 0 0 3px ${colour}`;
  return c;
}

function playerChip(s, player) {
  return chip(s.colours[`player${player}`], s.pieces ? s.pieces[player] : null);
}

function showLegend(rows) {
  // The game's own colours (the one legend's entries with "colours"), beside the picture.
  const list = $("picture-legend");
  list.hidden = rows.length === 0;
  list.textContent = "";
  for (const row of rows) {
    const li = document.createElement("li");
    const swatches = document.createElement("span");
    swatches.className = "swatches";
    for (const colour of row.colours) {
      const sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = colour;
      swatches.append(sw);
    }
    const words = document.createElement("span");
    const how = document.createElement("span");
    how.className = "how";
    how.textContent = row.label;
    words.append(`${row.means}: `, how);
    li.append(swatches, words);
    list.append(li);
  }
}

function showStatus(s) {
  const turn = $("turn");
  turn.textContent = "";
  const [a, b] = s.game.scores;
  if (s.game.over || (s.clocks && s.clocks.flag !== null)) {
    turn.textContent = STRINGS.gameOver();
  } else {
    const who = s.game.to_move;
    turn.append(playerChip(s, who), STRINGS.toMove(s.players[who]));
  }
  const score = $("score");
  score.textContent = "";
  // (what the numbers count: "Score", Fangqi's "Counters left")
  const name = s.score_name ? `${s.score_name[0].toUpperCase()}${s.score_name.slice(1)}: ` : "";
  score.append(name, playerChip(s, 0), `${s.players[0]} ${a}  `, playerChip(s, 1), `${s.players[1]} ${b}`);
  showClocks(s);
  $("result").hidden = !s.result;
  $("result").textContent = s.result ? STRINGS.result(s.result) : "";
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
    span.append(playerChip(s, seat), `${s.players[seat]} ${clockText(ms)}`);
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
  $("banner-title").textContent = owed ? s.owed_by : STRINGS.wrongTitle();
  $("banner-sub").textContent = owed ? STRINGS.owedSub() : STRINGS.wrongSub();
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
  $("remote-invite").hidden = !r.guest;   // a seat played from a browser: its invitation
  let words = r.status_words || r.status;
  if (r.asked_to !== null) words += r.guest ? STRINGS.takebackAskedGuest() : STRINGS.takebackAsked();
  // (a seat in a browser: how its last takeback ended, until the game goes on)
  const said = r.takeback_said;
  if (said && said[2] === s.game.moves.length) words += ` — ${said[1]}`;
  $("remote-status").textContent = words;
  $("remote").classList.toggle("bad", r.out_of_step || r.status.startsWith("no broker"));
  $("remote-ask").hidden = r.request === null;
  if (r.request !== null) {
    const move = s.game.moves[r.request];
    $("remote-ask-text").textContent = r.guest ? STRINGS.guestAsks(move) : STRINGS.otherAsks(move);
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

// A web seat's turn: the pictures are the entry surface (entry.js lights what may be tapped,
// narrows the choices, offers the buttons); its move goes to POST /api/play, which the board
// may refuse with a reason (a toast) and then the same choices stand again.
function showPlay(s) {
  if (!entry) {
    entry = TreeboardEntry.create({
      surfaces: [$("board"), $("board3d")], buttons: $("play-buttons"), tr,
      // (a page that moves for a web seat holds it: its player is here)
      onMove: async (move) => {
        const seat = state.game.to_move;
        if (await post("/api/play", { move })) holdSeat(seat, true);
      },
      onChange: (step) => {
        const choosing = step.tapped.length > 0 && step.buttons.length > 0 && step.sites.length === 0;
        if (state && state.entry) {
          $("play-prompt").textContent = choosing ? STRINGS.playChoose()
            : STRINGS.playPrompt(state.players[state.game.to_move]);
        }
      },
    });
  }
  $("play").hidden = !s.entry;
  document.body.dataset.webTurn = s.entry ? "yes" : "no";
  entry.set(s.entry);
}

// --- a web seat held by this page: its player is here (web/presence.py) -----------------------
// The page that plays a web seat holds it (ticked, or by moving for it; kept for this tab in
// sessionStorage): it says so every PRESENCE_MS while shown, lets go as it is hidden or closed,
// and the board says when no page holds the seat (its player is away) and when one does again.
const PRESENCE_MS = 10000;
const TAB = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("");
const HOLD_KEY = "treeboard-holds";
const held = new Set(JSON.parse(sessionStorage.getItem(HOLD_KEY) || "[]"));
let toldSeats = "";

function holdSeat(seat, on) {
  if (on) held.add(seat); else held.delete(seat);
  sessionStorage.setItem(HOLD_KEY, JSON.stringify([...held]));
  tellPresence();
  if (state) showPresence(state);
}

function heldSeats(leaving = false) {
  // The web seats this tab holds while it is shown (none as it is hidden or closes).
  const shown = !leaving && document.visibilityState === "visible";
  return shown && state ? [...held].filter((s) => state.seats[s] === "web").sort().join(" ") : "";
}

function tellPresence(leaving = false) {
  const seats = heldSeats(leaving);
  if (!seats && !toldSeats) return;   // (nothing held, nothing to let go)
  toldSeats = seats;
  const headers = { "Content-Type": "application/json" };
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers["X-Treeboard-Token"] = token;
  // (keepalive: the request outlives a closing tab, as sendBeacon's would, with our headers)
  fetch("/api/presence", { method: "POST", headers, keepalive: true,
    body: JSON.stringify({ tab: TAB, seats: seats || "none" }) }).catch(() => {});
}

function showPresence(s) {
  // Each web seat: this page's box (kept while the seats stay: a push never unticks it under a
  // finger) and whether its player is there.
  const box = $("presence");
  box.hidden = s.presence.length === 0;
  const seats = s.presence.map((p) => p.seat).join(" ");
  if (box.dataset.seats !== seats) {
    box.dataset.seats = seats;
    box.textContent = "";
    for (const p of s.presence) {
      const row = document.createElement("label");
      const tick = document.createElement("input");
      tick.type = "checkbox";
      tick.dataset.holdSeat = String(p.seat);
      tick.onchange = () => holdSeat(p.seat, tick.checked);
      row.append(tick, document.createElement("span"));
      box.append(row);
    }
  }
  s.presence.forEach((p, i) => {
    const row = box.children[i];
    row.className = p.here ? "here" : "away";
    row.firstChild.checked = held.has(p.seat);
    row.lastChild.textContent = ` ${STRINGS.holdSeat(s.players[p.seat])} — ${p.words}`;
  });
  if (heldSeats() !== toldSeats) tellPresence();   // (the state came after the socket opened)
}

document.addEventListener("visibilitychange", () => tellPresence());
window.addEventListener("pagehide", () => tellPresence(true));
window.addEventListener("pageshow", () => tellPresence());
setInterval(() => { if (toldSeats) tellPresence(); }, PRESENCE_MS);

function showEntries(s) {
  $("entry").hidden = s.entries.length === 0 || Boolean(s.entry);
  const sites = [...new Set(s.entries.map((e) => e.site))];
  if (!sites.includes(chosenSite)) chosenSite = sites[0] || null;
  const words = Object.fromEntries(s.entries.map((e) => [e.site, e.words || e.site]));
  fillSelect($("entry-site"), sites.map((site) => [site, words[site]]), chosenSite);
  markChosen();
  const kinds = $("entry-kinds");
  kinds.textContent = "";
  for (const e of s.entries.filter((e) => e.site === chosenSite)) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "primary";
    button.textContent = STRINGS.place(kindWords(e.kind), e.words || e.site);
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
    text.textContent = (s.move_words && s.move_words[i]) || move;
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

// A position being set up, a study or a puzzle (the state's `mode`; docs/study.md).
function showMode(s) {
  const mode = s.mode;
  $("mode").hidden = !mode;
  $("mode-words").textContent = mode ? mode.words || "" : "";
  $("mode-verdict").hidden = !(mode && mode.verdict_words);
  $("mode-verdict").textContent = mode && mode.verdict_words ? mode.verdict_words : "";
  const studying = !!mode && mode.kind === "study";
  $("study-back").hidden = !studying;
  $("study-forward").hidden = !studying;
  $("study-branch").hidden = !studying;
  if (studying) {
    $("study-back").disabled = mode.at === 0;
    $("study-forward").disabled = mode.off || mode.at >= mode.count;
  }
  $("puzzle-next").hidden = !(mode && mode.kind === "puzzle");
}

// --- acting -----------------------------------------------------------------------------------

async function post(path, body) {
  const data = await send(path, body);
  if (data) show(data);
  return data;
}

// A control action's answer (JSON), or null after a toast saying why it was refused.
async function send(path, body) {
  const headers = { "Content-Type": "application/json" };
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers["X-Treeboard-Token"] = token;  // a header, never a cookie
  let response;
  try {
    response = await fetch(`${path}?lang=${encodeURIComponent(lang)}`,
                           { method: "POST", headers, body: JSON.stringify(body || {}) });
  } catch (err) {
    toast(STRINGS.noAnswer());
    return null;
  }
  const data = await response.json().catch(() => ({ error: STRINGS.refused(response.status) }));
  if (!response.ok) {
    toast(data.error || STRINGS.refused(response.status));
    if (response.status === 401 || response.status === 403) $("token-box").hidden = false;
    return null;
  }
  return data;
}

// --- the board's voice: [voice] as the page changes it (GET/POST /api/voice) -------------------

function showVoice(v) {
  const form = $("voice-form");
  form.elements.enabled.checked = v.enabled;
  form.elements.language.value = v.language || "";
  form.elements.voice.value = v.voice || "";
  for (const key of ["rate", "volume", "repeat_moves"]) form.elements[key].value = String(v[key]);
  form.elements.quiet_hours.value = v.quiet_hours;
  $("voice-health").textContent = v.health === "off" ? STRINGS.voiceOff() :
    v.health === "up" || v.health === "stopped" ? STRINGS.voiceUp() : STRINGS.voiceDown(v.health.replace(/^down: /, ""));
}

async function loadVoice() {
  const response = await fetch(`/api/voice?lang=${encodeURIComponent(lang)}`).catch(() => null);
  if (response && response.ok) showVoice(await response.json());
}

async function saveVoice(event) {
  event.preventDefault();
  const f = event.target.elements;
  // (numbers as typed: the board checks them and says which is wrong)
  const number = (text) => (/^-?\d+$/.test(text.trim()) ? Number(text) : text);
  const body = {
    enabled: f.enabled.checked, language: f.language.value, voice: f.voice.value.trim(),
    rate: number(f.rate.value), volume: number(f.volume.value),
    quiet_hours: f.quiet_hours.value.trim(), repeat_moves: number(f.repeat_moves.value),
  };
  const data = await send("/api/voice", body);
  if (data) {
    showVoice(data);
    toast(STRINGS.voiceSaved(), true);
  }
}

// --- this board's software: its version and the Update button (GET/POST /api/update) ----------

async function loadSoftware() {
  const response = await fetch("/api/update").catch(() => null);
  if (!response || !response.ok) return;
  const u = await response.json();
  $("software-version").textContent = u.trial ? STRINGS.onTrial(u.trial.version) : STRINGS.version(u.version);
  const last = u.last || {};
  const said = { confirmed: STRINGS.updated, "rolled-back": STRINGS.rolledBack,
                 interrupted: STRINGS.interrupted }[last.result];
  $("software-last").textContent = said ? said(last) : "";
}

// The family's lobby (web/lobby.py): the offers listed, each with a button that takes it.
async function lookInLobby() {
  const response = await fetch(`/api/lobby?lang=${encodeURIComponent(lang)}`).catch(() => null);
  if (!response) return toast(STRINGS.lobbyUnreachable());
  const data = await response.json().catch(() => ({}));
  if (!response.ok) return toast(data.error || STRINGS.lobbyUnreachable());
  const list = $("lobby-offers");
  list.innerHTML = "";
  if (!data.offers.length) toast(STRINGS.lobbyEmpty(), true);
  for (const offer of data.offers) {
    const li = document.createElement("li");
    li.dataset.game = offer.game_id;
    li.textContent = `${offer.game_id}: ${offer.summary} `;
    const take = document.createElement("button");
    take.type = "button";
    take.textContent = STRINGS.lobbyTake();
    take.onclick = async () => {
      if (await post("/api/lobby/take", { game: offer.game_id })) list.innerHTML = "";
    };
    li.appendChild(take);
    list.appendChild(li);
  }
}

async function askUpdate() {
  if (await send("/api/update", {})) toast(STRINGS.updateAsked(), true);
}

let toastTimer = null;
// An error is red and an alert; a success or what the board said is green and polite
// (a family must not read "saved" as "failed").
function toast(text, ok = false) {
  const t = $("toast");
  t.textContent = text;
  t.classList.toggle("ok", ok);
  t.setAttribute("role", ok ? "status" : "alert");
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

// A game its players end or pause (web/endings.py): the buttons, and a draw on offer with its
// answer when a person here is asked.
function showEnding(s) {
  const e = s.ending || {};
  $("resign").disabled = !e.can_resign;
  $("offer-draw").disabled = !e.can_offer;
  $("put-away").disabled = !e.can_put_away;
  $("draw-offer").hidden = e.offer_by === null || e.offer_by === undefined;
  $("draw-offer-text").textContent = e.offer_words || "";
  $("draw-answer").hidden = !e.can_answer;
  // The player to move away (web/endings.py: POST /api/absent): the sentence and the present player's choices.
  const a = s.absent;
  $("absent").hidden = !a;
  $("absent-text").textContent = a ? a.words : "";
  $("absent-choices").replaceChildren(...(a ? a.choices : []).map((c) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.choice = c.choice;
    b.textContent = c.words;
    b.onclick = () => post("/api/absent", { choice: c.choice });
    return b;
  }));
}

function wire() {
  $("resign").onclick = () => ask(STRINGS.resign(), () => post("/api/resign", {}));
  $("offer-draw").onclick = () => post("/api/draw", {});
  $("draw-accept").onclick = () => post("/api/draw-answer", { answer: "accept" });
  $("draw-refuse").onclick = () => post("/api/draw-answer", { answer: "refuse" });
  $("put-away").onclick = () => ask(STRINGS.putAway(), () => post("/api/away", {}));
  $("end-turn").onclick = () => post("/api/press", { button: "end_turn" });
  $("remote-accept").onclick = () => post("/api/takeback-answer", { answer: "accept" });
  $("remote-refuse").onclick = () => post("/api/takeback-answer", { answer: "refuse" });
  $("remote-invite").onclick = async () => {
    const data = await send("/api/invitation", {});   // (the token's: the link grants the seat)
    if (!data) return;
    $("invitation-link").href = data.link;
    $("invitation-link").textContent = data.link;
    $("invitation-qr").innerHTML = data.qr;   // SVG drawn by the board (segno)
    $("invitation").hidden = false;
  };
  $("remote-leave").onclick = () =>
    ask(STRINGS.leaveRemote(),
        () => post("/api/remote/leave", {}));
  $("join-form").onsubmit = (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const body = {};
    for (const [key, value] of form.entries()) body[key] = String(value).trim();
    post("/api/remote/join", body);
  };
  $("lobby-look").onclick = lookInLobby;
  $("voice-form").onsubmit = saveVoice;
  $("update-now").onclick = askUpdate;
  $("software").addEventListener("toggle", () => { if ($("software").open) loadSoftware(); });
  $("firmware-update").onclick = updateFirmware;
  $("voice").addEventListener("toggle", () => { if ($("voice").open) loadVoice(); });
  $("repeat").onclick = async () => {
    const data = await post("/api/repeat", {});
    if (data) toast(data.said.join(" · "), true);
  };
  $("takeback").onclick = () => {
    const moves = state.move_words || state.game.moves;
    // The referee's question (against the computer it names the move and the reply).
    ask(state.takeback_question || STRINGS.takeback(moves[moves.length - 1]),
        () => post("/api/takeback", {}));
  };
  $("new-game").onclick = () => {
    const form = optionInputs();
    ask(STRINGS.newGame(), () => {
      const options = {};
      for (const input of form.querySelectorAll("input")) {
        if (input.value.trim() !== "" && input.value.trim() !== state.options[input.name]) {
          options[input.name] = input.value.trim();
        }
      }
      return post("/api/new-game", options);
    }, form);
  };
  $("puzzle").onclick = () => post("/api/puzzle", { number: 1 });
  $("puzzle-next").onclick = () => post("/api/puzzle", {});
  $("study-back").onclick = () => post("/api/study/step", { count: -1 });
  $("study-forward").onclick = () => post("/api/study/step", { count: 1 });
  $("study-branch").onclick = () => post("/api/study/branch", { other: "human" });
  $("replay-study").onclick = () => post("/api/study", { game: Number(replay.id), at: replay.at });
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
    toast(STRINGS.tokenKept(), true);
  };
  $("history").addEventListener("toggle", () => { if ($("history").open) loadGames(); });
  $("library-form").onsubmit = (e) => { e.preventDefault(); loadGames(); };
  $("import-form").onsubmit = (e) => { e.preventDefault(); importRecord(); };
  $("replay-slider").oninput = (e) => replayTo(Number(e.target.value));
  $("replay-first").onclick = () => replayTo(0);
  $("replay-prev").onclick = () => replayTo(replay.at - 1);
  $("replay-next").onclick = () => replayTo(replay.at + 1);
  $("replay-last").onclick = () => replayTo(replay.moves.length);
  $("replay-review-ask").onclick = () => loadReview(replay.id);
}

// --- the library: every game of the journal, searched (GET /api/library), records imported -----

const replay = { id: null, at: 0, moves: [], words: [] };

async function loadGames() {
  const query = new URLSearchParams(new FormData($("library-form")));
  query.set("lang", lang);
  const response = await fetch(`/api/library?${query}`);
  const body = await response.json().catch(() => ({ error: STRINGS.refused(response.status) }));
  if (!response.ok) { toast(body.error); return; }
  const { games, titles } = body;
  const choice = $("library-form").elements.game;
  if (choice.options.length === 1) {
    for (const [name, title] of Object.entries(titles)) choice.append(new Option(title, name));
  }
  const list = $("games");
  list.textContent = "";
  if (games.length === 0) {
    const li = document.createElement("li");
    li.textContent = STRINGS.noGames();
    list.append(li);
  }
  for (const g of games) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    const at = g.finished_at || g.started_at;
    const when = at ? new Date(at * 1000).toLocaleDateString() : "";
    button.textContent = STRINGS.listed(g, when);
    button.dataset.game = String(g.id);
    button.onclick = () => openReplay(g.id);
    li.append(button);
    if (g.status === "away") {   // a game put away: taken up again from here
      const up = document.createElement("button");
      up.type = "button";
      up.textContent = STRINGS.takeUp();
      up.dataset.takeUp = String(g.id);
      up.onclick = () => ask(STRINGS.takeUpAsk(g.id),
                             () => post("/api/take-up", { id: String(g.id) }));
      li.append(" ", up);
    }
    list.append(li);
  }
}

async function importRecord() {
  // The file's bytes as they are (base64 in JSON): the board checks them, UTF-8 included.
  const file = $("import-form").elements.file.files[0];
  if (!file) { toast(STRINGS.chooseFile()); return; }
  const bytes = new Uint8Array(await file.arrayBuffer());
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  const answer = await send("/api/records", { name: file.name, data: btoa(text) });
  if (!answer) return;
  toast(STRINGS.imported(answer.imported), true);
  $("import-form").reset();
  loadGames();
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
  $("replay-record").href = `/api/games/${id}/record?lang=${encodeURIComponent(lang)}`;
  $("replay-record").setAttribute("download", `treeboard-${game.game}-${id}.sgf`);
  $("replay-download").setAttribute("download", `treeboard-${game.game}-${id}.json`);
  replayTo(game.moves.length);
  $("replay-review").textContent = "";
}

// --- review graph: the value before each move for the first player, the result changers marked

async function loadReview(id) {
  // Asked for, not loaded with every game: a review costs the computer's worker seconds.
  if (id === null) return;
  const box = $("replay-review");
  box.textContent = STRINGS.reviewing();
  const response = await fetch(`/api/games/${id}/review?lang=${encodeURIComponent(lang)}`);
  if (replay.id !== id) return;  // another game was opened meanwhile
  const body = await response.json().catch(() => ({ error: STRINGS.refused(response.status) }));
  if (!response.ok) { box.textContent = body.error; return; }
  box.textContent = "";
  if (body.moves.length) reviewGraph(box, body.moves, body.words);
}

function svgEl(name, attrs, parent) {
  // The SVG namespace taken from the graph's root, which the HTML parser made an SVG element.
  const el = document.createElementNS(parent.namespaceURI, name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  parent.append(el);
  return el;
}

// The graph's size in its own units: about a phone's width, so its 13-unit labels stay readable.
const GRAPH = { W: 360, H: 170, left: 12, right: 10, top: 26, bottom: 26 };

function sideOne(value, exact, player, scale) {
  // A value for `player` turned to the first player's side, in -1 (the second player wins) ..
  // +1 (the first wins): exact values are tree margins (scaled by the largest), estimates 0..1.
  const own = exact ? value / scale : 2 * value - 1;
  return Math.max(-1, Math.min(1, own * (player === 0 ? 1 : -1)));
}

function positionValues(rows) {
  // The value of each position (the start, then after each move) from the first player's side.
  // A position is seen twice: by the player who just moved (their move's value) and by the
  // player to move next (their best move's value). Each mover's own search leans its way, so
  // turning each view and plotting it alone zigzags; the two views of one position averaged
  // do not.
  const scale = Math.max(1, ...rows.filter((r) => r.exact).flatMap(
    (r) => [Math.abs(r.before), Math.abs(r.after ?? 0)]));
  return rows.map((_, k) => k).concat([rows.length]).map((k) => {
    const views = [];
    if (k < rows.length) views.push(sideOne(rows[k].before, rows[k].exact, rows[k].player, scale));
    const made = rows[k - 1];
    if (made && made.after !== null && made.after !== undefined)
      views.push(sideOne(made.after, made.exact, made.player, scale));
    return views.length ? views.reduce((a, b) => a + b, 0) / views.length : 0;
  });
}

function reviewGraph(box, rows, shown) {
  // Seen from one fixed side (the first player's): up is good for the first player.
  const values = positionValues(rows);
  const { W, H, left, right, top, bottom } = GRAPH;
  const step = (W - left - right) / Math.max(1, rows.length);
  const x = (k) => left + k * step;   // k moves made: 0 is the start, rows.length the end
  const mid = top + (H - top - bottom) / 2;
  const y = (v) => mid - v * (H - top - bottom) / 2;
  box.innerHTML = `<svg viewBox="0 0 ${W} ${H}" class="review" role="img"></svg>`;
  const svg = box.firstChild;
  svgEl("title", {}, svg).textContent = STRINGS.reviewTitle();
  // The axis: even in the middle, the two results at the top and the bottom, move numbers below.
  svgEl("line", { x1: left, x2: W - right, y1: mid, y2: mid, class: "axis" }, svg);
  svgEl("line", { x1: left, x2: left, y1: top, y2: H - bottom, class: "axis" }, svg);
  svgEl("text", { x: left + 6, y: top - 8, class: "tick" }, svg).textContent = STRINGS.reviewUp();
  svgEl("text", { x: left + 6, y: H - bottom - 6, class: "tick" }, svg).textContent = STRINGS.reviewDown();
  const every = Math.max(1, Math.ceil(rows.length / 8));
  for (let n = every; n <= rows.length; n += every) {
    svgEl("line", { x1: x(n), x2: x(n), y1: mid - 4, y2: mid + 4, class: "axis" }, svg);
    svgEl("text", { x: x(n), y: H - 6, class: "tick num" }, svg).textContent = String(n);
  }
  // The move being viewed.
  svgEl("line", { x1: x(replay.at), x2: x(replay.at), y1: top, y2: H - bottom, class: "marker",
                  id: "review-marker" }, svg);
  const points = values.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`);
  svgEl("polyline", { points: points.join(" "), class: "curve" }, svg);
  rows.forEach((r, i) => {  // each move's dot where it left the game; red: it changed the result
    const dot = svgEl("circle", { cx: x(r.n), cy: y(values[r.n]),
      r: r.changed_result ? 7 : 4, class: r.changed_result ? "changed" : "dot",
      "data-move": r.n }, svg);
    svgEl("title", {}, dot).textContent = STRINGS.reviewDot(r, (shown && shown[i]) ||
                                                               { move: r.move, best: r.best });
    dot.onclick = () => replayTo(r.n);  // the position after the move
  });
}

function markReview() {
  const marker = $("review-marker");
  if (!marker) return;
  const rows = $("replay-review").querySelectorAll("circle").length;
  const { W, left, right } = GRAPH;
  const step = (W - left - right) / Math.max(1, rows);
  const at = left + replay.at * step;   // as reviewGraph's x()
  marker.setAttribute("x1", String(at));
  marker.setAttribute("x2", String(at));
}

async function replayTo(n) {
  if (replay.id === null) return;
  const at = Math.max(0, Math.min(replay.moves.length, n));
  const response = await fetch(`/api/games/${replay.id}/position?move=${at}` +
                                `&lang=${encodeURIComponent(lang)}`);
  if (!response.ok) { toast((await response.json()).error); return; }
  const pos = await response.json();
  replay.at = at;
  replay.words = pos.move_words || replay.moves;
  $("replay-slider").value = String(at);
  $("replay-at").textContent = at === 0 ? STRINGS.replayStart() :
    STRINGS.replayAt(at, replay.moves.length, replay.words[at - 1]);
  markReview();
  $("replay-board").innerHTML = pos.svg + (pos.svg3d || "");
}

// --- the microcontroller's firmware: offered when older than the board's (web/firmware.py) ------

async function loadFirmware() {
  const response = await fetch(`/api/firmware?lang=${encodeURIComponent(lang)}`).catch(() => null);
  if (!response || !response.ok) return;
  const f = await response.json();
  $("firmware").hidden = !(f.bridge && (f.said || f.updating));
  $("firmware-said").textContent = f.said || "";
  // (a firmware before release 3 needs the jumper: the sentence says so, no button)
  $("firmware-update").hidden = !f.offer || f.needs_jumper;
  $("firmware-update").disabled = f.updating;
}

async function updateFirmware() {
  $("firmware-update").disabled = true;
  const data = await send("/api/firmware/update", {});
  if (data) toast(tr("The firmware is updated: the board restarts it and reconnects."), true);
  $("firmware-update").disabled = false;
  loadFirmware();
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
  loadFirmware();
  if (socket) socket.close();  // it reconnects asking for the new language
});
loadWords().catch(() => {}).finally(() => { fetchState(); connect(); loadFirmware(); });
// (the firmware's INFO comes a moment after the bridge connects, and again after each reconnect)
setInterval(loadFirmware, 60000);

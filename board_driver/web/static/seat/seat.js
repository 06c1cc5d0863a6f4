// The seat page: one seat of one game played from a browser, across the internet, through the
// family's MQTT broker over WebSockets (docs/remote.md, "A seat in a browser"). A thin client:
// the hosting board publishes the picture, the sentence, the clocks and the moves this seat
// may make (the Python views draw them); this page shows them, turns taps on the picture's
// [data-site] elements into one of those moves (entry.js, shared with the board's own page),
// proposes it, and shows the board's answer. No rules here.
//
// The link (its fragment, never sent to any server) holds the broker, the game, the seat and
// the seat's key (an invitation), or the broker, the lobby and the lobby key (the lobby link).
// Every message is an envelope {"body": TEXT, "sig": HMAC-SHA256(key, TEXT)}.

// entry.js (loaded before this module; `treeboard seat-page` copies the board page's own)
// defines TreeboardEntry: the taps on [data-site] narrowed to one of the board's moves.
(() => {
"use strict";

const $ = (id) => document.getElementById(id);
const enc = new TextEncoder();
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const unhex = (text) => new Uint8Array(text.match(/../g).map((h) => parseInt(h, 16)));
const PREFIX = "treeboard/v1";

// --- signing: WebCrypto in a secure context (https, localhost), else @noble/hashes ----------
let nobleHmac = null;
async function hmacHex(key, text) {
  const data = enc.encode(text);
  if (window.isSecureContext && window.crypto && crypto.subtle) {
    const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" },
      false, ["sign"]);
    return hex(new Uint8Array(await crypto.subtle.sign("HMAC", k, data)));
  }
  return nobleHex(key, text);
}
async function nobleHex(key, text) {
  if (nobleHmac === null) {
    const { hmac } = await loadNoble("hmac.js");
    const { sha256 } = await loadNoble("sha2.js");
    nobleHmac = (k, d) => hmac(sha256, k, d);
  }
  return hex(nobleHmac(key, enc.encode(text)));
}

// @noble/hashes ships ES modules; a static host such as Mosquitto's http_dir serves .js
// without a JavaScript MIME type, which browsers refuse for modules (not for classic
// scripts). So each vendored module is fetched as text and imported from a blob of the right
// type, its own imports ("./utils.js") pointed at the blobs already made. The files are used
// unchanged.
const nobleBlobs = {};
async function loadNoble(name) {
  if (!(name in nobleBlobs)) {
    nobleBlobs[name] = (async () => {
      let code = await (await fetch(`vendor/noble_hashes/${name}`)).text();
      for (const dep of new Set([...code.matchAll(/from "\.\/([\w.]+\.js)"/g)].map((m) => m[1]))) {
        await loadNoble(dep);
        code = code.split(`from "./${dep}"`).join(`from "${nobleBlobs[dep].url}"`);
      }
      const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
      return { url, module: await import(url) };
    })().then((made) => { nobleBlobs[name] = made; return made; });
  }
  const made = await nobleBlobs[name];
  return made.module;
}
window.treeboardSeat = { hmacHex, nobleHex };   // (the tests compare both signers)

async function seal(key, body) {
  const text = JSON.stringify(body);
  return JSON.stringify({ body: text, sig: await hmacHex(key, text) });
}

// The body of an envelope signed with `key`, or null (a forged, altered or foreign message).
async function open(key, payload) {
  if (payload.length === 0 || payload.length > 256 * 1024) return null;
  let outer;
  try { outer = JSON.parse(new TextDecoder().decode(payload)); } catch { return null; }
  if (!outer || typeof outer.body !== "string" || typeof outer.sig !== "string") return null;
  if ((await hmacHex(key, outer.body)) !== outer.sig) return null;
  try { return JSON.parse(outer.body); } catch { return null; }
}

function readLink() {
  const f = new URLSearchParams(location.hash.slice(1));
  const key = f.get("key") || "";
  if (!/^[0-9a-f]{64}$/.test(key) || !f.get("broker")) return null;
  // (the broker's guest account, where the family's broker asks for one)
  const login = f.get("user") ? { username: f.get("user"), password: f.get("pass") || "" } : {};
  if (f.get("lobby")) {
    return { broker: f.get("broker"), lobby: f.get("lobby"), key: unhex(key), login };
  }
  const seat = Number(f.get("seat"));
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(f.get("game") || "") || !(seat === 0 || seat === 1)) return null;
  return { broker: f.get("broker"), game: f.get("game"), seat, key: unhex(key), login };
}

// Words the page shows before any board told it its own (the board's view carries them in
// the board's language, from its catalogs).
let words = {
  link_up: "connected to the broker", link_down: "no link to the broker: reconnecting…",
  board_here: "the board is here", board_away: "the board is away (its link is down): " +
    "nothing is lost, the game waits", board_unknown: "the board: not heard yet",
  bad_link: "This link does not open this game: the board's messages do not check with its " +
    "key (a link altered, or for another game or seat).",
};

function setLink(up) {
  document.body.dataset.link = up ? "up" : "down";
  $("link-state").textContent = up ? words.link_up : words.link_down;
}

// When the board went away (null: it is here). The board hosts the clocks: while it is away
// the browser's clock does not run (referee/absence.py), so the countdown stops there too.
let boardAwayAt = null;

function setBoard(state) {
  if (state === "away" && boardAwayAt === null) boardAwayAt = Date.now();
  if (state !== "away") boardAwayAt = null;
  document.body.dataset.board = state;
  $("board-state").textContent = words["board_" + state];
}

function connect(link, will) {
  const options = { protocolVersion: 5, clean: true, reconnectPeriod: 1000, connectTimeout: 8000,
    clientId: "treeboard-seat-" + hex(crypto.getRandomValues(new Uint8Array(8))),
    ...link.login };
  if (will) options.will = will;
  const client = mqtt.connect(link.broker, options);
  client.on("close", () => setLink(false));
  client.on("offline", () => setLink(false));
  return client;
}

// --- a seat, by invitation ---------------------------------------------------------------------

async function playSeat(link) {
  const base = `${PREFIX}/${link.game}`;
  const mine = `${base}/seat/${link.seat}`;
  const host = 1 - link.seat;
  const presence = (online) => seal(link.key, { type: "presence", game_id: link.game,
                                                seat: link.seat, online });
  const client = connect(link, { topic: `${mine}/presence`, payload: await presence(false),
                                 qos: 1, retain: true });
  let view = null;
  let clockTimer = null;
  $("seat").hidden = false;
  const entry = TreeboardEntry.create({ surfaces: [$("picture")], buttons: $("buttons"),
                                        onMove: (move) => propose(move),
                                        tr: (text) => words[text] || text });

  $("ask-takeback").addEventListener("click", () => askTakeback());
  $("takeback-accept").addEventListener("click", () => answerTakeback(true));
  $("takeback-refuse").addEventListener("click", () => answerTakeback(false));

  client.on("connect", async () => {   // every (re)connect: subscribe, say this seat is here
    setLink(true);
    // (the board's presence, and its will, under this seat's own topics: the seat's broker
    // account may read nothing else: docs/remote.md, "What each may touch")
    client.subscribe([`${mine}/view`, `${mine}/answer`, `${mine}/host`], { qos: 1 });
    client.publish(`${mine}/presence`, await presence(true), { qos: 1, retain: true });
  });
  window.addEventListener("pagehide", async () => {
    client.publish(`${mine}/presence`, await presence(false), { qos: 1, retain: true });
  });

  // A retained view that does not check is ignored, never drawn: someone else's forgery on
  // the broker (the board replaces it at once: view_guard.py), unless nothing that checks
  // comes: then the link itself is wrong, said after BAD_LINK_MS (a good view, or the
  // board's presence signed with this seat's key, shows the link is right).
  const BAD_LINK_MS = 5000;
  let linkChecked = false;
  let badTimer = null;
  client.on("message", async (topic, payload) => {
    if (topic === `${mine}/host`) return boardPresence(payload);
    const body = await open(link.key, payload);
    if (body === null || body.game_id !== link.game || body.seat !== link.seat) {
      if (topic === `${mine}/view` && payload.length && view === null && !linkChecked &&
          badTimer === null) {
        badTimer = setTimeout(() => { if (view === null && !linkChecked) badLink(); }, BAD_LINK_MS);
      }
      return;
    }
    linkChecked = true;
    if (body.type === "view") showView(body);
    else if (body.type === "gone") showGone(body);
    else if (body.type === "answer") showAnswer(body);
    else if (body.type === "takeback-answer") showTakebackAnswer(body);
  });

  async function boardPresence(payload) {
    let msg;
    try { msg = JSON.parse(new TextDecoder().decode(payload)); } catch { return; }
    if (!msg || typeof msg.seat_sig !== "string" || msg.seat !== host) return;
    const said = `presence ${link.game} ${host} ${msg.online ? "online" : "offline"} ${msg.nonce}`;
    if ((await hmacHex(link.key, said)) !== msg.seat_sig) return;   // forged: ignored
    linkChecked = true;
    setBoard(msg.online ? "here" : "away");
  }

  function badLink() {
    $("bad-link").textContent = words.bad_link;
    $("bad-link").hidden = false;
    $("seat").hidden = true;
  }

  // A board took this seat (the lobby's offer, taken by a board at the same moment): the
  // board's signed word, in its language; this page plays nothing and says it is gone.
  function showGone(body) {
    view = null;
    document.body.dataset.gone = "yes";
    $("bad-link").textContent = body.text;
    $("bad-link").hidden = false;
    $("seat").hidden = true;
    client.publish(`${mine}/presence`, "", { qos: 1, retain: true });
    client.end();
  }

  function showView(body) {
    view = body;
    if (pending && body.index !== pending.index) settle();   // the move was played
    words = { ...words, ...(body.words || {}) };
    setLink(true);
    if (document.body.dataset.board === "unknown") setBoard("here");
    $("bad-link").hidden = true;
    $("seat").hidden = false;
    $("title").textContent = body.title;
    $("you").textContent = body.you;
    $("sentence").textContent = body.sentence;
    $("picture").innerHTML = body.svg;
    document.body.dataset.index = body.index;
    document.body.dataset.turn = body.your_turn ? "yours" : "theirs";
    $("moves").innerHTML = "";
    for (const m of body.moves || []) {
      const li = document.createElement("li");
      li.textContent = m;
      $("moves").appendChild(li);
    }
    showClocks();
    entry.set(body.entry);   // null: not this seat's turn, nothing to tap
    showTakeback(body.takeback || {});
  }

  // --- takebacks (remote/takeback.py): the board's request answered here, this seat's own
  // asked from here; both signed with the seat key, naming the position they are about.
  function showTakeback(t) {
    $("ask-takeback").textContent = words.ask_takeback || "Take back my last move";
    $("takeback-accept").textContent = words.Accept || "Accept";
    $("takeback-refuse").textContent = words.Refuse || "Refuse";
    $("ask-takeback").hidden = !t.may_ask;
    $("takeback").hidden = !t.asked;
    if (t.asked) $("takeback-text").textContent = t.asked.text;
    // What is waiting, else how the last takeback ended (until the game goes on).
    const said = t.asking || (t.said && t.said[2] === view.index ? t.said[1] : "");
    $("takeback-said").textContent = said;
    $("takeback-said").hidden = !said;
  }

  const randomId = () => hex(crypto.getRandomValues(new Uint8Array(8)));

  async function askTakeback() {
    if (!view) return;
    if (document.body.dataset.board === "away") {   // no one there to answer: said, not sent
      $("refused").textContent = words.takeback_away;
      $("refused").hidden = false;
      return;
    }
    $("refused").hidden = true;
    $("ask-takeback").hidden = true;
    const body = { type: "takeback", game_id: link.game, seat: link.seat, epoch: view.epoch,
                   index: view.index, id: randomId() };
    client.publish(`${mine}/takeback`, await seal(link.key, body), { qos: 1 });
  }

  async function answerTakeback(accept) {
    const asked = view && view.takeback && view.takeback.asked;
    if (!asked) return;
    $("takeback").hidden = true;
    const body = { type: "takeback-answer", game_id: link.game, seat: link.seat,
                   epoch: view.epoch, index: asked.index, ask: asked.ask, accept,
                   id: randomId() };
    client.publish(`${mine}/takeback`, await seal(link.key, body), { qos: 1 });
  }

  function showTakebackAnswer(body) {
    if (body.ok) return;   // the view that follows shows the position gone back
    $("refused").textContent = body.reason;
    $("refused").hidden = false;
  }

  function showClocks() {
    clearInterval(clockTimer);
    const clocks = view.clocks;
    $("clocks").hidden = !clocks;
    if (!clocks) return;
    const shownAt = Date.now();
    const draw = () => {
      const parts = clocks.left_ms.map((ms, p) => {
        if (ms === null) return "–";
        const until = boardAwayAt === null ? Date.now() : boardAwayAt;
        const left = Math.max(0, ms - (clocks.running === p ? Math.max(0, until - shownAt) : 0));
        const s = Math.ceil(left / 1000);
        return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
      });
      $("clocks").textContent = parts.join("  |  ");
    };
    draw();
    clockTimer = setInterval(draw, 250);
  }

  // The proposal waiting for the board: entry.js offers nothing more until its answer (or the
  // next position) comes, so a second tap cannot propose twice on one position.
  let pending = null;
  function settle() {
    if (pending) { clearTimeout(pending.timer); pending.resolve(); pending = null; }
  }

  async function propose(move) {
    if (!view) return;
    const body = { type: "play", game_id: link.game, seat: link.seat, epoch: view.epoch,
                   index: view.index, move,
                   id: hex(crypto.getRandomValues(new Uint8Array(8))) };
    $("refused").hidden = true;
    const answered = new Promise((resolve) => {
      // (no answer within 20 s: the link is down; the taps are offered again)
      pending = { id: body.id, index: view.index, resolve, timer: setTimeout(settle, 20000) };
    });
    client.publish(`${mine}/play`, await seal(link.key, body), { qos: 1 });
    return answered;
  }

  function showAnswer(body) {
    if (pending && body.id === pending.id && !body.ok) settle();
    if (body.ok) return;   // the view that follows shows the move played
    $("refused").textContent = `${body.move}: ${body.reason}`;
    $("refused").hidden = false;
  }
}

// --- the family's lobby -------------------------------------------------------------------------

// (`what`: what else is wrapped, as remote/seat.py's wrap names it; the seat key: nothing)
async function xorWrap(lobbyKey, game, seat, wrapped, what = "") {
  const pad = unhex(await hmacHex(lobbyKey, `wrap ${game} ${seat}` + (what ? ` ${what}` : "")));
  return unhex(wrapped).map((b, i) => b ^ pad[i]);
}

function lobby(link) {
  const client = connect(link, null);
  const offers = new Map();
  $("lobby").hidden = false;
  document.body.dataset.board = "lobby";
  $("board-state").textContent = "";
  client.on("connect", () => {
    setLink(true);
    client.subscribe(`${PREFIX}/lobby/${link.lobby}/offer/+`, { qos: 1 });
  });
  client.on("message", async (topic, payload) => {
    const game = topic.split("/").pop();
    const body = payload.length ? await open(link.key, payload) : null;
    if (body && body.type === "offer" && body.game_id === game) offers.set(game, body);
    else offers.delete(game);   // taken, withdrawn, its board gone (its will), or forged
    draw();
  });
  function draw() {
    $("offers").innerHTML = "";
    $("no-offers").hidden = offers.size > 0;
    for (const offer of offers.values()) {
      const li = document.createElement("li");
      li.dataset.game = offer.game_id;
      li.textContent = offer.summary + " ";
      const take = document.createElement("button");
      take.textContent = offer.take;
      take.addEventListener("click", async () => {
        const key = await xorWrap(link.key, offer.game_id, offer.seat, offer.wrapped);
        client.end(true);
        // The broker account: the seat's own, when the offer carries it (named
        // GAME/seat/N: its ACL touches that seat only: docs/remote.md), else the lobby link's.
        const login = new URLSearchParams(location.hash.slice(1));
        let user = login.get("user"), pass = login.get("pass") || "";
        if (typeof offer.login === "string" && /^[0-9a-f]{2,64}$/.test(offer.login)) {
          user = `${offer.game_id}/seat/${offer.seat}`;
          pass = new TextDecoder().decode(
            await xorWrap(link.key, offer.game_id, offer.seat, offer.login, "login"));
        }
        location.hash = `broker=${encodeURIComponent(link.broker)}&game=${offer.game_id}` +
          `&seat=${offer.seat}&key=${hex(key)}` + (user ?
            `&user=${encodeURIComponent(user)}&pass=${encodeURIComponent(pass)}` : "");
        location.reload();
      });
      li.appendChild(take);
      $("offers").appendChild(li);
    }
  }
}

const link = readLink();
if (link === null) {
  $("bad-link").textContent = "This link is not a treeboard invitation (it needs its whole " +
    "fragment, after '#').";
  $("bad-link").hidden = false;
} else if (link.lobby) {
  lobby(link);
} else {
  playSeat(link);
}
})();

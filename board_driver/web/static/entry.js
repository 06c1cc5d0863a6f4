// The picture as a move-entry surface, for a seat with no board (a web seat). No rules here:
// the board sends the entry model (board_driver/views/entry.py), every move the mover may make
// with the sites to tap for it ([data-site] ids of the SVG pictures); this script lights the
// sites that may be tapped next, narrows the choices as they are tapped, offers a button where
// the taps alone do not decide (end turn, pass, a cube's kind, a retreat), and hands the move
// to `onMove`. Used by the board's page (app.js) and the seat page. No dependencies.
//
// By keyboard too (as lichess's keyboard move input and accessible board): the lit sites are
// one tab stop (a roving tabindex), the arrows go to the nearest lit site that way on the
// picture, Enter or Space taps, Backspace takes a tap back, Escape cancels; each lit site is a
// button named as a person says it (the model's "names", from the views); and a box takes a
// move typed in the game's notation, handed to `onMove` as a tapped move is (the board
// refuses what is not a move, with its reason). Every word comes from the model.
//
//   const entry = TreeboardEntry.create({
//     surfaces: [boardDiv, board3dDiv],  // elements whose SVGs are tapped (redrawn freely)
//     buttons: buttonsDiv,               // where the buttons go (the typed box goes after it)
//     onMove: (move) => ...,             // a move's notation, e.g. POST /api/play
//     onChange: (step) => ...,           // optional: after every tap ({tapped, sites, buttons})
//     tr: (text) => text,                // optional: the page's words for Undo / Cancel
//   });
//   entry.set(model);   // the entry model of the position (null: nothing to enter)
//   entry.undo(); entry.cancel(); entry.stop();
"use strict";

(function (global) {
  const NEXT = "tap-next";   // a site that may be tapped now
  const MADE = "tap-made";   // a site tapped so far
  // An arrow key's direction on the screen.
  const ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowDown: [0, 1], ArrowUp: [0, -1] };

  // The rule entry.py's `narrow` says in Python (the tests check both against each other).
  function narrow(choices, tapped) {
    const n = tapped.length;
    const left = choices.filter((c) => tapped.every((site, i) => c.taps[i] === site));
    const sites = [...new Set(left.filter((c) => c.taps.length > n).map((c) => c.taps[n]))].sort();
    const complete = left.filter((c) => c.taps.length === n);
    const made = left.length === 1 && complete.length === 1 && n > 0 ? complete[0].move : null;
    return { left, sites, buttons: made ? [] : complete, made };
  }

  function injectStyle(doc) {
    // Lit sites glow (a filter works on any SVG element, a group as a shape), whatever the
    // page's own style; the page may restyle the two classes. The site with the keyboard's
    // focus has a ring of its own colour (white and magenta), seen on lit and dark sites.
    if (doc.getElementById("treeboard-entry-style")) return;
    const style = doc.createElement("style");
    style.id = "treeboard-entry-style";
    style.textContent =
      `[data-site].${NEXT}{cursor:pointer;filter:drop-shadow(0 0 2px #fff) drop-shadow(0 0 4px #ffd400)}` +
      `[data-site].${MADE}{filter:drop-shadow(0 0 3px #fff) drop-shadow(0 0 6px #00c8ff)}` +
      // (a groove is a thin dashed line: lit, it is solid and wide enough for a finger)
      `line[data-site].${NEXT},line[data-site].${MADE}{stroke-width:10px;stroke-dasharray:none}` +
      "[data-site]:focus{outline:none}" +
      "[data-site]:focus-visible{outline:3px solid #fff;outline-offset:2px;" +
      "filter:drop-shadow(0 0 2px #fff) drop-shadow(0 0 3px #f0f) drop-shadow(0 0 6px #f0f)}" +
      ".entry-buttons button{margin:.2em}.entry-typed{margin-top:.4em}" +
      ".entry-typed input{width:12em;max-width:60%}.entry-typed small{display:block;opacity:.8}";
    doc.head.append(style);
  }

  function centre(e) {
    const r = e.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];
  }

  function create(options) {
    const surfaces = options.surfaces.filter(Boolean);
    const tr = options.tr || ((text) => text);
    const box = options.buttons;
    let choices = [];
    let names = {};
    let moves = null;    // the model's count of moves played: a new one clears the typed box
    let tapped = [];
    let busy = false;    // a move handed over and not yet answered: no second one
    let rover = null;    // the lit site that is the picture's tab stop
    let lastAt = null;   // where the keyboard's focus was last on the picture
    let keyboard = false;   // the keyboard is on the entry: its focus is kept through redraws
    let typing = false;     // ... in the typed box (kept there), else on the picture
    const doc = (surfaces[0] || box).ownerDocument;
    const tabs = new WeakMap();   // a site's own tabindex (or null), before this script's
    injectStyle(doc);
    if (box) box.classList.add("entry-buttons");
    const typed = typedBox();

    function step() { return narrow(choices, tapped); }

    function elements() {
      return surfaces.flatMap((s) => [...s.querySelectorAll("[data-site]")]);
    }

    function button(text, onclick, data) {
      const b = doc.createElement("button");
      b.type = "button";
      b.textContent = text;
      Object.assign(b.dataset, data || {});
      b.onclick = onclick;
      return b;
    }

    // The box a move is typed into (the game's notation, as the move list writes it), after
    // the buttons; its words arrive with the model.
    function typedBox() {
      if (!box) return null;
      const form = doc.createElement("form");
      form.className = "entry-typed";
      form.hidden = true;
      form.innerHTML = '<label><span></span> <input name="move" autocomplete="off" ' +
        'spellcheck="false" autocapitalize="off"></label> <button type="submit"></button>' +
        "<datalist></datalist><small></small>";
      const list = form.querySelector("datalist");
      list.id = "entry-moves-" + Math.random().toString(36).slice(2);
      form.querySelector("small").id = list.id + "-keys";
      form.elements.move.setAttribute("list", list.id);
      form.onsubmit = (event) => {
        event.preventDefault();
        const move = form.elements.move.value.trim();
        if (move && !busy) make(move);
      };
      box.after(form);
      return form;
    }

    function fillTyped(model) {
      if (!typed) return;
      const keys = (model && model.keys) || {};
      typed.querySelector("span").textContent = keys.typed || "";
      typed.querySelector("button").textContent = keys.play || "";
      typed.querySelector("small").textContent = keys.help || "";
      const list = typed.querySelector("datalist");
      list.textContent = "";
      for (const move of new Set(choices.map((c) => c.move))) list.append(new Option("", move));
      typed.hidden = choices.length === 0;
    }

    // A site as this script leaves it: its own tabindex back, no name or role of ours.
    function release(e) {
      if (!tabs.has(e)) return;
      const own = tabs.get(e);
      if (own === null) e.removeAttribute("tabindex"); else e.setAttribute("tabindex", own);
      for (const a of ["role", "aria-label"]) {
        const was = e.getAttribute("data-entry-" + a);
        if (was === null) continue;
        if (was === "") e.removeAttribute(a); else e.setAttribute(a, was);
        e.removeAttribute("data-entry-" + a);
      }
      tabs.delete(e);
    }

    function claim(e, site) {
      if (!tabs.has(e)) {
        tabs.set(e, e.getAttribute("tabindex"));
        for (const a of ["role", "aria-label"]) e.setAttribute("data-entry-" + a, e.getAttribute(a) || "");
      }
      e.setAttribute("role", "button");
      e.setAttribute("aria-label", names[site] || site);
    }

    // The picture's SVG is an image to a screen reader (role img: its parts unread) until it
    // has sites to pick; then it is a group of them, described by the keys' help.
    function markPictures(lit) {
      for (const s of surfaces) {
        for (const svg of s.querySelectorAll("svg")) {
          const has = lit.some((e) => svg.contains(e));
          if (has && svg.getAttribute("role") === "img") {
            svg.setAttribute("role", "group");
            svg.dataset.entryRole = "img";
          } else if (!has && svg.dataset.entryRole) {
            svg.setAttribute("role", svg.dataset.entryRole);
            delete svg.dataset.entryRole;
          }
          if (has && typed) svg.setAttribute("aria-describedby", typed.querySelector("small").id);
          else svg.removeAttribute("aria-describedby");
        }
      }
    }

    // Light the sites, make the lit ones the keyboard's, and put the buttons, for the taps so far.
    function draw() {
      const now = step();
      const next = new Set(busy ? [] : now.sites);
      const made = new Set(tapped);
      const lit = [];
      for (const e of elements()) {
        const site = e.getAttribute("data-site");
        e.classList.toggle(NEXT, next.has(site));
        e.classList.toggle(MADE, made.has(site));
        if (next.has(site) && e.getClientRects().length) lit.push(e); else release(e);
      }
      rover = pickRover(lit);
      for (const e of lit) {
        claim(e, e.getAttribute("data-site"));
        e.setAttribute("tabindex", e === rover ? "0" : "-1");
      }
      markPictures(lit);
      if (box) {
        box.textContent = "";
        for (const c of busy ? [] : now.buttons) {
          box.append(button(c.label, () => make(c.move), { move: c.move }));
        }
        if (tapped.length && !busy) {
          box.append(button(tr("Undo tap"), undo, { entry: "undo" }),
                     button(tr("Cancel"), cancel, { entry: "cancel" }));
        }
        box.hidden = box.childElementCount === 0;
      }
      keepFocus();
      if (options.onChange) options.onChange({ tapped: [...tapped], sites: now.sites, buttons: now.buttons });
    }

    // The tab stop: the site that had it (the same element, or the same site redrawn), else
    // the lit site nearest where the focus was, else the first.
    function pickRover(lit) {
      if (lit.includes(rover)) return rover;
      const same = rover && lit.find((e) => e.getAttribute("data-site") === rover.getAttribute("data-site"));
      if (same) return same;
      if (lastAt && lit.length) {
        const far = (e) => { const [x, y] = centre(e); return Math.hypot(x - lastAt[0], y - lastAt[1]); };
        return lit.reduce((a, b) => (far(b) < far(a) ? b : a));
      }
      return lit[0] || null;
    }

    // While the keyboard is on the picture, its focus follows the tab stop: a tapped site is
    // no longer lit, a redrawn picture has new elements, and the next turn lights others.
    function keepFocus() {
      const active = doc.activeElement;
      const lost = !active || active === doc.body || surfaces.some((s) => s.contains(active));
      if (!keyboard || !lost) return;
      if (typing && !typed.hidden) typed.elements.move.focus();
      else if (rover && active !== rover) rover.focus();
    }

    // The lit site nearest `from` in an arrow's direction, on the same picture: within 60
    // degrees of it if any, nearer and straighter first.
    function toward(from, [dx, dy]) {
      const svg = from.closest("svg");
      const [x, y] = centre(from);
      let best = null;
      let bestScore = Infinity;
      for (const wide of [false, true]) {
        for (const e of elements()) {
          if (e === from || !e.classList.contains(NEXT) || e.closest("svg") !== svg || !tabs.has(e)) continue;
          const [ex, ey] = centre(e);
          const along = (ex - x) * dx + (ey - y) * dy;
          const across = Math.abs((ex - x) * dy - (ey - y) * dx);
          if (along < 1 || (!wide && across > along * 1.8)) continue;
          const score = along + 2 * across;
          if (score < bestScore) { best = e; bestScore = score; }
        }
        if (best) return best;
      }
      return null;
    }

    function focusSite(e) {
      rover.setAttribute("tabindex", "-1");
      rover = e;
      e.setAttribute("tabindex", "0");
      e.focus();
    }

    function onKey(event) {
      if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
      const hit = event.target.closest && event.target.closest("[data-site]");
      const site = hit && surfaces.some((s) => s.contains(hit)) && tabs.has(hit) ? hit : null;
      const key = event.key;
      if (site) lastAt = centre(site);
      if ((key === "Escape" || key === "Backspace") && tapped.length && !busy) {
        keyboard = true;
        if (key === "Escape") cancel(); else undo();
      } else if (site && (key === "Enter" || key === " ")) {
        keyboard = true;
        tap(site.getAttribute("data-site"));
      } else if (site && ARROWS[key]) {
        keyboard = true;
        const to = toward(site, ARROWS[key]);
        if (to) focusSite(to);
      } else {
        return;
      }
      event.preventDefault();
      event.stopPropagation();
    }

    // The keyboard leaves the entry when the focus goes elsewhere, or a pointer is used.
    function onFocus(event) {
      const e = event.target;
      if (!zone.some((z) => z.contains(e))) keyboard = false;
      else if (e.matches && e.matches(":focus-visible")) keyboard = true;
      typing = Boolean(typed) && typed.contains(e);
      if (tabs.has(e)) { rover = e; lastAt = centre(e); }
    }
    function onPointer() { keyboard = false; }

    async function make(move) {
      busy = true;
      draw();
      try {
        await options.onMove(move);
      } finally {
        // What comes next is the board's answer: a new model (set), or, refused, the same
        // choices again from the start (and the typed move, to be put right).
        busy = false;
        tapped = [];
        draw();
      }
    }

    function tap(site) {
      if (busy || !step().sites.includes(site)) return false;
      tapped.push(site);
      const now = step();
      if (now.made !== null) make(now.made);
      else draw();
      return true;
    }

    function undo() { tapped.pop(); draw(); }
    function cancel() { tapped = []; draw(); }

    function onClick(event) {
      const hit = event.target.closest && event.target.closest("[data-site]");
      if (!hit || !surfaces.some((s) => s.contains(hit))) return;
      if (tap(hit.getAttribute("data-site"))) {
        event.preventDefault();
        event.stopPropagation();
      }
    }

    // Pictures are redrawn whenever the board pushes: light the new elements again. (Our own
    // changes are attributes, which the observer does not watch.)
    const observer = new MutationObserver(() => draw());
    const keyed = box ? [...surfaces, box] : surfaces;
    const zone = typed ? [...keyed, typed] : keyed;   // where the keyboard's focus is kept
    for (const s of surfaces) {
      s.addEventListener("click", onClick, true);
      observer.observe(s, { childList: true, subtree: true });
    }
    for (const s of keyed) s.addEventListener("keydown", onKey, true);
    doc.addEventListener("focusin", onFocus);
    doc.addEventListener("pointerdown", onPointer, true);

    return {
      set(model) {
        const fresh = (model && model.choices) || [];
        const same = JSON.stringify(fresh) === JSON.stringify(choices);
        choices = fresh;
        names = (model && model.names) || {};
        if (!same) tapped = [];
        const played = model ? model.moves : null;
        if (typed && played !== moves) typed.elements.move.value = "";
        moves = played;
        fillTyped(model);
        draw();
      },
      tap, undo, cancel,
      get tapped() { return [...tapped]; },
      stop() {
        choices = [];
        tapped = [];
        draw();
        observer.disconnect();
        for (const s of surfaces) s.removeEventListener("click", onClick, true);
        for (const s of keyed) s.removeEventListener("keydown", onKey, true);
        doc.removeEventListener("focusin", onFocus);
        doc.removeEventListener("pointerdown", onPointer, true);
        if (box) { box.textContent = ""; box.hidden = true; }
        if (typed) typed.remove();
      },
    };
  }

  global.TreeboardEntry = { create, narrow };
})(typeof window !== "undefined" ? window : globalThis);

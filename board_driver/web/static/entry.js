// The picture as a move-entry surface, for a seat with no board (a web seat). No rules here:
// the board sends the entry model (board_driver/views/entry.py), every move the mover may make
// with the sites to tap for it ([data-site] ids of the SVG pictures); this script lights the
// sites that may be tapped next, narrows the choices as they are tapped, offers a button where
// the taps alone do not decide (end turn, pass, a cube's kind, a retreat), and hands the move
// to `onMove`. Used by the board's page (app.js) and the seat page. No dependencies.
//
// By keyboard too (as lichess's keyboard move input and accessible board): each picture's lit
// sites are one tab stop (a roving tabindex), the arrows go to the nearest lit site that way on
// the picture, Enter or Space taps, Backspace takes a tap back, Escape cancels; each lit site is a
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
      "[data-site]:focus-visible{outline:3px solid #fff;outline-offset:-3px;" +
      "filter:drop-shadow(0 0 2px #fff) drop-shadow(0 0 3px #f0f) drop-shadow(0 0 6px #f0f)}" +
      ".entry-buttons button{margin:.2em}.entry-typed{margin-top:.4em}" +
      ".entry-typed input,.entry-typed button{font-size:1rem;padding:.4em .7em}" +
      ".entry-typed input{width:12em;max-width:60%}" +
      ".entry-typed small{display:block;font-size:.9em;opacity:.85;margin-top:.3em}";
    doc.head.append(style);
  }

  function centre(e) {
    const r = e.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];
  }

  // --- the keyboard: each picture's lit sites as one tab stop -----------------------------------
  // `act` taps, undoes and cancels as the pointer does; `zone` is where the entry's focus may be
  // (the pictures, the buttons, the typed box), kept there through redraws while the keyboard
  // is used.
  function keyboardOf(doc, surfaces, zone, typed, act) {
    const tabs = new WeakMap();   // a site's own tabindex (or null), before this script's
    let names = {};
    let rovers = [];      // each picture's tab stop: one of its lit sites
    let home = 0;         // the surface the focus was last on
    let lastAt = null;    // where the focus was last on a picture
    let on = false;       // the keyboard is on the entry
    let typing = false;   // ... in the typed box (kept there), else on the pictures
    const helpId = typed ? typed.querySelector("small").id : null;

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

    function claim(e) {
      if (!tabs.has(e)) {
        tabs.set(e, e.getAttribute("tabindex"));
        for (const a of ["role", "aria-label"]) e.setAttribute("data-entry-" + a, e.getAttribute(a) || "");
      }
      const site = e.getAttribute("data-site");
      e.setAttribute("role", "button");
      e.setAttribute("aria-label", names[site] || site);
      e.setAttribute("tabindex", rovers.includes(e) ? "0" : "-1");
    }

    // A picture's SVG is an image to a screen reader (role img: its parts unread) until it
    // has sites to pick; then it is a group of them, described by the keys' help.
    function markPictures(lit) {
      for (const svg of surfaces.flatMap((s) => [...s.querySelectorAll("svg")])) {
        const has = lit.some((e) => svg.contains(e));
        if (has && svg.getAttribute("role") === "img") {
          svg.setAttribute("role", "group");
          svg.dataset.entryRole = "img";
        } else if (!has && svg.dataset.entryRole) {
          svg.setAttribute("role", svg.dataset.entryRole);
          delete svg.dataset.entryRole;
        }
        if (has && helpId) svg.setAttribute("aria-describedby", helpId);
        else svg.removeAttribute("aria-describedby");
      }
    }

    // A picture's tab stop among its lit sites: the site that had it (the same element, or
    // the same site redrawn), else the lit site nearest where the focus was, else the first.
    function pickRover(lit) {
      const site = (e) => e.getAttribute("data-site");
      const had = lit.find((e) => rovers.includes(e)) ||
        lit.find((e) => rovers.some((r) => site(r) === site(e)));
      if (had) return had;
      if (lastAt) {
        const far = (e) => { const [x, y] = centre(e); return Math.hypot(x - lastAt[0], y - lastAt[1]); };
        return lit.reduce((a, b) => (far(b) < far(a) ? b : a));
      }
      return lit[0];
    }

    // The tab stop the focus goes back to: the one on the surface it was last on.
    function rover() {
      return rovers.find((e) => surfaces[home].contains(e)) || rovers[0] || null;
    }

    function becomes(e) {   // `e` its picture's tab stop
      const svg = e.closest("svg");
      rovers = rovers.filter((r) => r.closest("svg") !== svg).concat([e]);
      home = Math.max(0, surfaces.findIndex((s) => s.contains(e)));
      lastAt = centre(e);
    }

    // The lit site nearest `from` in an arrow's direction, on the same picture: within 60
    // degrees of it if any, nearer and straighter first.
    function toward(from, [dx, dy]) {
      const svg = from.closest("svg");
      const [x, y] = centre(from);
      let best = null;
      let bestScore = Infinity;
      for (const wide of [false, true]) {
        for (const e of svg.querySelectorAll(`[data-site].${NEXT}`)) {
          if (e === from || !tabs.has(e)) continue;
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

    function onKey(event) {
      if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
      const hit = event.target.closest && event.target.closest("[data-site]");
      const site = hit && tabs.has(hit) ? hit : null;
      const key = event.key;
      if (site) lastAt = centre(site);
      if ((key === "Escape" || key === "Backspace") && act.canUndo()) {
        on = true;
        if (key === "Escape") act.cancel(); else act.undo();
      } else if (site && (key === "Enter" || key === " ")) {
        on = true;
        act.tap(site.getAttribute("data-site"));
      } else if (site && ARROWS[key]) {
        on = true;
        const to = toward(site, ARROWS[key]);
        if (to) {
          site.setAttribute("tabindex", "-1");
          to.setAttribute("tabindex", "0");
          becomes(to);
          to.focus();
        }
      } else {
        return;
      }
      event.preventDefault();
      event.stopPropagation();
    }

    // The keyboard leaves the entry when the focus goes elsewhere, or a pointer is used.
    function onFocus(event) {
      const e = event.target;
      if (!zone.some((z) => z.contains(e))) on = false;
      else if (e.matches && e.matches(":focus-visible")) on = true;
      typing = Boolean(typed) && typed.contains(e);
      if (tabs.has(e)) becomes(e);
    }
    function onPointer() { on = false; }

    const keyed = zone.filter((z) => z !== typed);   // (keys typed in the box are the box's)
    for (const z of keyed) z.addEventListener("keydown", onKey, true);
    doc.addEventListener("focusin", onFocus);
    doc.addEventListener("pointerdown", onPointer, true);

    return {
      set names(given) { names = given; },
      // The lit sites the keyboard's (one the tab stop), every other site as it was.
      show(all, lit) {
        for (const e of all) if (!lit.includes(e)) release(e);
        const pictures = [...new Set(lit.map((e) => e.closest("svg")))];
        rovers = pictures.map((svg) => pickRover(lit.filter((e) => e.closest("svg") === svg)));
        for (const e of lit) claim(e);
        markPictures(lit);
      },
      // While the keyboard is on the entry, its focus follows the tab stop (a tapped site is
      // no longer lit, a redrawn picture has new elements, the next turn lights others), or
      // stays in the typed box.
      keep() {
        const active = doc.activeElement;
        const lost = !active || active === doc.body || surfaces.some((s) => s.contains(active));
        if (!on || !lost) return;
        const stop = rover();
        if (typing && !typed.hidden) typed.elements.move.focus();
        else if (stop && active !== stop) stop.focus();
      },
      stop() {
        for (const z of keyed) z.removeEventListener("keydown", onKey, true);
        doc.removeEventListener("focusin", onFocus);
        doc.removeEventListener("pointerdown", onPointer, true);
      },
    };
  }

  // --- the box a move is typed into (the game's notation, as the move list writes it) -------
  // After the buttons; its words and its list of moves arrive with the model; a move typed is
  // handed to `submit`, which the board may refuse (the box keeps it, to be put right).
  function typedBox(doc, box, submit) {
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
      if (move) submit(move);
    };
    box.after(form);
    let played = null;   // the model's count of moves: a new one empties the box
    form.fill = (model) => {
      const keys = (model && model.keys) || {};
      form.querySelector("span").textContent = keys.typed || "";
      form.querySelector("button").textContent = keys.play || "";
      form.querySelector("small").textContent = keys.help || "";
      const choices = (model && model.choices) || [];
      list.textContent = "";
      for (const move of new Set(choices.map((c) => c.move))) list.append(new Option("", move));
      form.hidden = choices.length === 0;
      if ((model ? model.moves : null) !== played) form.elements.move.value = "";
      played = model ? model.moves : null;
    };
    return form;
  }

  // --- the entry ------------------------------------------------------------------------------

  function create(options) {
    const surfaces = options.surfaces.filter(Boolean);
    const tr = options.tr || ((text) => text);
    const box = options.buttons;
    let choices = [];
    let tapped = [];
    let busy = false;    // a move handed over and not yet answered: no second one
    const doc = (surfaces[0] || box).ownerDocument;
    injectStyle(doc);
    if (box) box.classList.add("entry-buttons");
    const typed = box ? typedBox(doc, box, (move) => { if (!busy) make(move); }) : null;
    const zone = [...surfaces, box, typed].filter(Boolean);
    const keys = keyboardOf(doc, surfaces, zone, typed,
                            { tap, undo, cancel, canUndo: () => tapped.length > 0 && !busy });

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

    // Light the sites (the lit ones the keyboard's), and put the buttons, for the taps so far.
    function draw() {
      const now = step();
      const next = new Set(busy ? [] : now.sites);
      const made = new Set(tapped);
      const all = elements();
      for (const e of all) {
        const site = e.getAttribute("data-site");
        e.classList.toggle(NEXT, next.has(site));
        e.classList.toggle(MADE, made.has(site));
      }
      // (a site drawn twice is the keyboard's where it is shown: not in a hidden 3D view)
      keys.show(all, all.filter((e) => e.classList.contains(NEXT) && e.getClientRects().length));
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
      keys.keep();
      if (options.onChange) options.onChange({ tapped: [...tapped], sites: now.sites, buttons: now.buttons });
    }

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
    for (const s of surfaces) {
      s.addEventListener("click", onClick, true);
      observer.observe(s, { childList: true, subtree: true });
    }

    return {
      set(model) {
        const fresh = (model && model.choices) || [];
        const same = JSON.stringify(fresh) === JSON.stringify(choices);
        choices = fresh;
        keys.names = (model && model.names) || {};
        if (!same) tapped = [];
        if (typed) typed.fill(model);
        draw();
      },
      tap, undo, cancel,
      get tapped() { return [...tapped]; },
      stop() {
        choices = [];
        tapped = [];
        draw();
        observer.disconnect();
        keys.stop();
        for (const s of surfaces) s.removeEventListener("click", onClick, true);
        if (box) { box.textContent = ""; box.hidden = true; }
        if (typed) typed.remove();
      },
    };
  }

  global.TreeboardEntry = { create, narrow };
})(typeof window !== "undefined" ? window : globalThis);

// The picture as a move-entry surface, for a seat with no board (a web seat). No rules here:
// the board sends the entry model (board_driver/views/entry.py), every move the mover may make
// with the sites to tap for it ([data-site] ids of the SVG pictures); this script lights the
// sites that may be tapped next, narrows the choices as they are tapped, offers a button where
// the taps alone do not decide (end turn, pass, a cube's kind, a retreat), and hands the move
// to `onMove`. Used by the board's page (app.js) and the seat page. No dependencies.
//
//   const entry = TreeboardEntry.create({
//     surfaces: [boardDiv, board3dDiv],  // elements whose SVGs are tapped (redrawn freely)
//     buttons: buttonsDiv,               // where the buttons go
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
    // page's own style; the page may restyle the two classes.
    if (doc.getElementById("treeboard-entry-style")) return;
    const style = doc.createElement("style");
    style.id = "treeboard-entry-style";
    style.textContent =
      `[data-site].${NEXT}{cursor:pointer;filter:drop-shadow(0 0 2px #fff) drop-shadow(0 0 4px #ffd400)}` +
      `[data-site].${MADE}{filter:drop-shadow(0 0 3px #fff) drop-shadow(0 0 6px #00c8ff)}` +
      // (a groove is a thin dashed line: lit, it is solid and wide enough for a finger)
      `line[data-site].${NEXT},line[data-site].${MADE}{stroke-width:10px;stroke-dasharray:none}` +
      ".entry-buttons button{margin:.2em}";
    doc.head.append(style);
  }

  function create(options) {
    const surfaces = options.surfaces.filter(Boolean);
    const tr = options.tr || ((text) => text);
    const box = options.buttons;
    let choices = [];
    let tapped = [];
    let busy = false;   // a move handed over and not yet answered: no second one
    const doc = (surfaces[0] || box).ownerDocument;
    injectStyle(doc);
    if (box) box.classList.add("entry-buttons");

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

    // Light the sites, and put the buttons, for the taps so far.
    function draw() {
      const now = step();
      const next = new Set(busy ? [] : now.sites);
      const made = new Set(tapped);
      for (const e of elements()) {
        const site = e.getAttribute("data-site");
        e.classList.toggle(NEXT, next.has(site));
        e.classList.toggle(MADE, made.has(site));
      }
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
      if (options.onChange) options.onChange({ tapped: [...tapped], sites: now.sites, buttons: now.buttons });
    }

    async function make(move) {
      busy = true;
      draw();
      try {
        await options.onMove(move);
      } finally {
        // What comes next is the board's answer: a new model (set), or, refused, the same
        // choices again from the start.
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

    // Pictures are redrawn whenever the board pushes: light the new elements again.
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
        if (!same) tapped = [];
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
        if (box) { box.textContent = ""; box.hidden = true; }
      },
    };
  }

  global.TreeboardEntry = { create, narrow };
})(typeof window !== "undefined" ? window : globalThis);

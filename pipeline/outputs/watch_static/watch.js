// The watch page: shows the state the server sends (an event on every change). Text goes in
// with textContent only: card names and error messages come from the game and are never markup.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, props, children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children || []) node.append(child);
  return node;
}

let extraFont = null;

function useFont(font) {
  // Characters the page's font subset lacks (a new name, an error message): the server cuts a
  // small extra subset for exactly those. Characters the printing font itself lacks are named.
  if (!font) return;
  const glyphs = $("glyphs");
  glyphs.hidden = !font.missing;
  glyphs.textContent = font.missing ? "The cards' font has no glyph for: " + font.missing : "";
  if (!font.extra || font.extra === extraFont || !window.FontFace) return;
  extraFont = font.extra;
  const face = new FontFace("Cardpress Extra", "url(/font/" + font.extra + ".woff2)");
  face.load().then((f) => {
    for (const old of document.fonts) if (old.family === "Cardpress Extra" && old !== f) document.fonts.delete(old);
    document.fonts.add(f);
  }).catch(() => { extraFont = null; });
}

function render(state) {
  useFont(state.font);
  document.body.dataset.gen = String(state.gen);
  document.body.dataset.status = state.status;
  $("game").textContent = "cardpress watch · " + state.game;
  document.title = "cardpress watch · " + state.game;
  const status = $("status");
  status.textContent = state.message + (state.status === "building" ? " — building…" : "");
  status.className = "status " + state.status;

  $("error").hidden = !state.error;
  $("error-text").textContent = state.error || "";

  const cards = state.changed.map((c) => {
    const img = el("img", { src: c.src, alt: c.name });
    img.dataset.card = c.id;
    return el("figure", { className: "card" }, [img, el("figcaption", { textContent: c.name + " (" + c.id + ")" })]);
  });
  $("cards").replaceChildren(...cards);
  $("no-changes").hidden = cards.length > 0;
  $("changed-at").textContent = state.changed_at ? "at " + state.changed_at : "";
  $("more").hidden = !state.changed_more;
  $("more").textContent = state.changed_more ? state.changed_more + " more changed (see the sheets)" : "";

  const sheets = state.sheets.map((s) => {
    const link = el("a", { href: s.pdf, textContent: s.paper + " PDF" });
    const pages = s.pages.map((src, i) =>
      el("img", { src, loading: "lazy", alt: s.paper + " page " + (i + 1), width: 420 }));
    return el("div", { className: "sheet" }, [
      el("h3", {}, [s.paper + " · " + s.pages.length + " pages · ", link]),
      el("div", { className: "pages" }, pages),
    ]);
  });
  $("sheets").replaceChildren(...sheets);
}

function connect() {
  const source = new EventSource("/api/events");
  // Every (re)connection starts with the current state, so a page that lost the server is fresh.
  source.addEventListener("state", (event) => render(JSON.parse(event.data)));
  source.addEventListener("error", () => {
    const status = $("status");
    status.textContent = "the watcher is not answering (stopped?) — retrying…";
    status.className = "status failed";
  });
}

connect();

// cardpress table page: the board of one game, live on every phone at the table.
//
// Sync (see pipeline/table/server.py): every tap gets an operation id once (crypto.getRandomValues:
// crypto.randomUUID needs a secure context, which plain-HTTP LAN is not) and is kept in a queue in
// localStorage until the server answers; a retry sends the same id, so each tap applies once.
// Boards arrive by server-sent events; EventSource reconnects by itself and sends Last-Event-ID.
// Every text from the server is set with textContent: a player named <script> is just text.
"use strict";
(function () {
  const GAME = document.body.dataset.game;
  const QUEUE_KEY = "cardpress-table-queue:" + GAME;
  const RETRY_MS = 1000;
  const $ = (id) => document.getElementById(id);

  const state = { seq: -1, view: null, log: [], forms: [], queue: loadQueue(), sending: false,
                  retry: null, online: false, extraFont: null, cards: null, tab: "board" };

  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      node.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return node;
  }
  const button = (label, onClick, attrs) => el("button", { type: "button", ...(attrs || {}), on: { click: onClick } }, label);

  // ------------------------------------------------------------------ the queue of taps

  function loadQueue() {
    try {
      const q = JSON.parse(localStorage.getItem(QUEUE_KEY) || "[]");
      return Array.isArray(q) ? q : [];
    } catch (e) { return []; }
  }
  function saveQueue() { try { localStorage.setItem(QUEUE_KEY, JSON.stringify(state.queue)); } catch (e) { /* private mode */ } }

  function opId() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return "op-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function send(command, args, label) {
    state.queue.push({ op: opId(), command, args: args || {}, label: label || command });
    saveQueue();
    renderConn();
    flush();
  }

  function retryLater() {
    if (state.retry === null) state.retry = setTimeout(() => { state.retry = null; flush(); }, RETRY_MS);
  }

  async function flush() {
    if (state.sending) return;
    state.sending = true;
    try {
      while (state.queue.length) {
        const tap = state.queue[0];
        let answer, data = null;
        try {
          answer = await fetch("/api/tap", { method: "POST", credentials: "same-origin",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ op: tap.op, seen: Math.max(state.seq, 0), command: tap.command, args: tap.args }) });
          data = await answer.json();
        } catch (e) {          // offline, server down, or an answer cut short: keep it, same op id later
          setOnline(false);
          retryLater();
          return;
        }
        if (answer.status === 403) { toast("这张牌桌需要加入链接：请重新扫描二维码。", true); return; }
        if (answer.status >= 500) { retryLater(); return; }
        state.queue.shift();
        saveQueue();
        if (data && data.board) showBoard(data);
        if (!answer.ok) toast("未执行「" + tap.label + "」：" + (data && data.error ? data.error : answer.status), true);
      }
    } finally {
      state.sending = false;
      renderConn();
    }
  }

  // ------------------------------------------------------------------ live updates

  function listen() {
    const stream = new EventSource("/api/events");
    stream.addEventListener("board", (ev) => { setOnline(true); showBoard(JSON.parse(ev.data)); });
    stream.addEventListener("open", () => { setOnline(true); flush(); });
    stream.addEventListener("error", () => {
      setOnline(false);
      if (stream.readyState === EventSource.CLOSED) setTimeout(listen, RETRY_MS);  // refused: try again
    });
  }
  window.addEventListener("online", () => flush());

  function setOnline(on) { state.online = on; renderConn(); }
  function renderConn() {
    const conn = $("conn");
    const waiting = state.queue.length;
    conn.className = "conn " + (state.online ? "live" : "off");
    conn.textContent = (state.online ? "已连接" : "离线") + (waiting ? " · 待发送 " + waiting : "");
  }

  // ------------------------------------------------------------------ fonts

  function useExtraFont(key) {
    // Text the page's font subset lacks (a player's name, a note): the server cuts a small
    // extra subset for exactly those characters.
    if (!key || key === state.extraFont || !window.FontFace) return;
    state.extraFont = key;
    const face = new FontFace("Cardpress Extra", "url(/font/extra-" + key + ".woff2)");
    face.load().then((f) => {
      for (const old of document.fonts) if (old.family === "Cardpress Extra" && old !== f) document.fonts.delete(old);
      document.fonts.add(f);
    }).catch(() => { state.extraFont = null; });
  }

  // ------------------------------------------------------------------ the board

  function showBoard(data) {
    if (typeof data.seq !== "number" || data.seq < state.seq) return;   // an older board than ours
    state.seq = data.seq;
    state.view = data.view;
    state.log = data.log || [];
    state.can = { undo: data.can_undo, redo: data.can_redo };
    document.body.dataset.seq = String(state.seq);
    useExtraFont(data.font_extra);
    const glyphs = $("glyph-notice");
    glyphs.hidden = !data.missing_glyphs;
    glyphs.textContent = data.missing_glyphs ? "本工具的字体缺少这些字，由手机自带字体显示：" + data.missing_glyphs : "";
    render();
  }

  function statNode(s) {
    const value = s.of === null || s.of === undefined ? String(s.value) : s.value + "/" + s.of;
    const wide = value.length > 12 ? " wide" : "";      // a pile's names, a list of skills: a line of its own
    return el("span", { class: "stat" + (s.key ? " key" : "") + (s.warn ? " warn" : "") + wide }, s.label, el("b", {}, value));
  }

  function pieceNode(p) {
    const stats = p.stats.map((s) => s.label + (s.of === null || s.of === undefined ? s.value : s.value + "/" + s.of)).join(" ");
    return el("button", { type: "button", class: "piece", "data-piece": p.id, on: { click: () => pieceMenu(p) } },
      el("span", { class: "pid" }, p.id), el("span", { class: "pname" }, p.name),
      stats ? el("span", { class: "pstats" }, stats) : null,
      p.tags.length ? el("span", { class: "ptags" }, p.tags.join(" · ")) : null,
      p.attached.length ? el("span", { class: "pattached" }, "附：" + p.attached.map((a) => (a.id ? a.id + " " : "") + a.name).join("、")) : null);
  }

  function render() {
    const v = state.view;
    if (!v) return;
    document.title = v.game_name + " · " + v.turn_label;
    $("game-name").textContent = v.game_name;
    $("turn").textContent = v.turn_label;
    $("active").textContent = v.active ? "行动方：" + v.active : "";
    $("phases").replaceChildren(...v.phases.map((p) => el("li", { class: p.id === v.phase ? "now" : "" }, p.name)));
    const end = $("end");
    end.hidden = !v.over;
    end.textContent = v.over ? "对局结束" + (v.winner ? "：" + v.winner + " 获胜" : "") + (v.end_reason ? "（" + v.end_reason + "）" : "") : "";
    $("reminders").replaceChildren(...v.reminders.map((r) => el("li", {}, r)));
    $("table-stats").replaceChildren(...v.table.map(statNode));
    $("players").replaceChildren(...v.players.map((p) => el("article", { class: "player" + (p.active ? " active" : ""), "data-player": p.name },
      el("h3", {}, p.name, el("span", { class: "seat" }, p.seat + "座"), p.active ? el("span", { class: "mark" }, "行动中") : null,
        p.deck_list.length ? button("卡组", () => showDeck(p), { class: "deck-button", "data-deck": p.seat }) : null),
      el("div", { class: "stats" }, p.stats.map(statNode)),
      p.alerts.map((a) => el("p", { class: "alert" }, "⚠ " + a)),
      p.zones.map((z) => el("div", { class: "zone" }, el("h4", {}, z.label + (z.slots ? "（" + z.pieces.length + "/" + z.slots + "）" : "")),
        el("div", { class: "pieces" }, z.pieces.length ? z.pieces.map(pieceNode) : el("span", { class: "piece empty" }, "（空）")))))));
    $("sections").replaceChildren(...v.sections.map((s) => el("div", { class: "section" }, el("h4", {}, s.label), s.lines.map((l) => el("p", {}, l)))));
    const recent = state.log.filter((l) => l.in_effect).slice(-3).reverse();
    $("recent").replaceChildren(...(recent.length ? [el("h4", {}, "最近")] : []), ...recent.map((l) => el("p", {}, l.title,
      l.lines.length ? el("span", { class: "why" }, "：" + l.lines.join("；")) : null)));
    $("log").replaceChildren(...state.log.slice().reverse().map((l) => el("li", { class: l.in_effect ? "" : "undone" },
      el("span", { class: "seq" }, "#" + l.seq), l.title, l.in_effect ? null : "（已撤销）", l.lines.map((x) => el("p", {}, x)))));
    $("undo").disabled = !state.can.undo;
    $("redo").disabled = !state.can.redo;
    $("next").disabled = v.over;
    renderConn();
  }

  // ------------------------------------------------------------------ commands as forms

  const KIND_PIECE = "piece";
  const pieces = () => state.view ? state.view.players.flatMap((p) => p.zones.flatMap((z) => z.pieces.map((x) => ({ ...x, owner: p.name })))) : [];

  function renderCommands() {
    const filter = $("command-filter").value.trim();
    const groups = new Map();
    for (const f of state.forms) {
      if (f.command === "next" || f.command === "undo" || f.command === "redo") continue;   // in the bar
      if (filter && !f.label.includes(filter) && !f.words.join(" ").includes(filter)) continue;
      const group = f.game === "core" ? "通用" : (state.view ? state.view.game_name : f.game);
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group).push(button(f.label, () => openForm(f, {}), { "data-command": f.command }));
    }
    $("commands").replaceChildren(...[...groups].flatMap(([g, buttons]) => [el("h4", {}, g), ...buttons]));
  }

  function pieceMenu(p) {
    const usable = state.forms.filter((f) => f.params.some((x) => x.kind === KIND_PIECE));
    openSheet(p.id + " " + p.name, [
      p.card ? button("查看卡牌", () => showCard(p.card)) : null,
      el("div", { class: "commands" }, usable.map((f) => button(f.label, () => {
        const first = f.params.find((x) => x.kind === KIND_PIECE);
        openForm(f, { [first.name]: p.id });
      }, { "data-command": f.command })))]);
  }

  function defaultValue(p, preset) {
    if (p.name in preset) return preset[p.name];
    if (p.kind === "player") return p.required && state.view ? state.view.active : null;
    if (p.kind === "flag") return false;
    if (p.default !== null && p.default !== undefined) return p.default;
    if (p.kind === "signed") return 0;
    if (p.kind === "count" || p.kind === "int") return p.required ? Math.max(p.minimum || 0, 1) : null;
    return null;
  }

  function openForm(form, preset) {
    const values = {};
    const fields = form.params.map((p) => { values[p.name] = defaultValue(p, preset); return field(p, values); });
    const go = button("执行", () => {
      const missing = form.params.filter((p) => p.required && (values[p.name] === null || values[p.name] === ""));
      if (missing.length) { toast("还需填写：" + missing.map((p) => p.label).join("、"), true); return; }
      const args = {};
      for (const p of form.params) {
        const v = values[p.name];
        if (v === null || v === "" || (p.kind === "flag" && v === false)) continue;
        if (p.kind === "signed") args[p.name] = (v > 0 ? "+" : "") + v;
        else args[p.name] = typeof v === "number" ? String(v) : v;
      }
      closeSheet();
      if (form.query) ask(form, args); else send(form.command, args, form.label);
    }, { class: "go", "data-go": form.command });
    openSheet(form.label, [...fields, go]);
  }

  function choiceButtons(options, values, name, onPick) {
    const box = el("div", { class: "choices" });
    const draw = () => box.replaceChildren(...options.map(([value, label]) => button(label, () => { values[name] = value; draw(); if (onPick) onPick(value); },
      { "aria-pressed": String(values[name] === value) })));
    draw();
    return box;
  }

  function stepper(p, values) {
    const out = el("output", {});
    const min = p.kind === "signed" || p.kind === "int" ? -999 : (p.minimum || 0);
    const show = () => { const v = values[p.name]; out.textContent = v === null ? "—" : (p.kind === "signed" && v > 0 ? "+" + v : String(v)); };
    const step = (d) => {
      let v = values[p.name];
      v = v === null ? (d > 0 ? Math.max(min, p.kind === "signed" ? 1 : 1) : null) : v + d;
      if (v !== null && v < min) v = p.required ? min : null;
      values[p.name] = v;
      show();
    };
    show();
    return el("div", { class: "stepper" }, button("−", () => step(-1), { "aria-label": p.label + "减一" }), out,
      button("+", () => step(1), { "aria-label": p.label + "加一" }));
  }

  function field(p, values) {
    const label = el("span", { class: "label" }, p.label + (p.required ? "" : "（可选）"));
    let control;
    if (p.kind === "player") {
      control = choiceButtons(state.view.players.map((x) => [x.name, x.name]), values, p.name);
    } else if (p.kind === "count" || p.kind === "int" || p.kind === "signed") {
      control = stepper(p, values);
    } else if (p.kind === "choice") {
      control = choiceButtons(p.choices.map((c, i) => [c, (p.choice_labels || [])[i] || c]), values, p.name);
    } else if (p.kind === "flag") {
      control = choiceButtons([[true, "是"], [false, "否"]], values, p.name);
    } else if (p.kind === "tristate") {
      control = choiceButtons([[true, "是"], [false, "否"], [null, "按规则"]], values, p.name);
    } else if (p.kind === KIND_PIECE) {
      control = choiceButtons(pieces().map((x) => [x.id, x.id + " " + x.name]), values, p.name);
    } else if (p.kind === "card") {
      control = cardPicker(p, values);
    } else {
      const input = el("input", { type: "text", value: values[p.name] || "", "aria-label": p.label, "data-param": p.name });
      input.addEventListener("input", () => { values[p.name] = input.value; });
      control = input;
    }
    control.dataset.param = p.name;
    return el("div", { class: "field" }, label, control);
  }

  function cardPicker(p, values) {
    const box = el("div", {});
    const input = el("input", { type: "search", placeholder: "输入卡名的一部分", "aria-label": p.label });
    const results = el("div", { class: "results" });
    const chosen = el("div", { class: "notice", hidden: true });
    const search = async () => {
      // Only the cards of the player's deck list (when one was given at the start).
      const name = values.player || (state.view && state.view.active);
      const seat = state.view.players.find((x) => x.name === name);
      const deck = seat ? seat.deck_list : [];
      const found = (await cards(input.value.trim(), 200)).filter((c) => !deck.length || deck.includes(c.id));
      results.replaceChildren(...found.slice(0, 12).map((c) => button(c.name + "（" + c.type_label + "）", () => {
        values[p.name] = c.id;
        chosen.hidden = false;
        chosen.textContent = "已选：" + c.name;
        results.replaceChildren();
      })));
    };
    input.addEventListener("input", search);
    box.append(input, chosen, results);
    return box;
  }

  async function ask(form, args) {
    try {
      const answer = await fetch("/api/query", { method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify({ command: form.command, args }) });
      const data = await answer.json();
      if (!answer.ok) { toast(form.label + "：" + data.error, true); return; }
      openSheet(form.label, [el("p", { class: data.ok ? "notice" : "alert" }, data.text)]);
    } catch (e) { toast("离线：查询需要连接", true); }
  }

  // ------------------------------------------------------------------ lookup: cards and rules

  async function cards(q, limit) {
    const answer = await fetch("/api/cards?q=" + encodeURIComponent(q) + "&limit=" + (limit || 20), { credentials: "same-origin" });
    return answer.ok ? answer.json() : [];
  }

  async function showCard(id) {
    const all = await cards(id);
    const c = all.find((x) => x.id === id) || all[0];
    if (!c) return;
    openSheet(c.name, [cardView(c)]);
  }

  function cardView(c) {
    const img = el("img", { src: "/api/card/" + encodeURIComponent(c.id) + ".png?w=600", alt: c.name, width: 300, loading: "lazy" });
    return el("div", { class: "card-view" }, img, el("div", { class: "text" }, el("h4", {}, c.name + "（" + c.type_label + "）"),
      el("dl", {}, c.fields.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])), c.text ? el("p", {}, c.text) : null));
  }

  // The deck a player chose at the setup, as `cardpress deck` draws it. The server makes the
  // SVG (its text escaped, no script, no style attribute, set in this page's font); it is parsed
  // as SVG, never as HTML, and a drawing that is not one is refused.
  async function showDeck(p) {
    try {
      const answer = await fetch("/api/deck/" + encodeURIComponent(p.seat) + ".svg", { credentials: "same-origin" });
      if (!answer.ok) {
        const data = await answer.json().catch(() => null);
        toast(p.name + "的卡组：" + (data && data.error ? data.error : answer.status), true);
        return;
      }
      const doc = new DOMParser().parseFromString(await answer.text(), "image/svg+xml");
      const svg = doc.documentElement;
      if (svg.namespaceURI !== "http://www.w3.org/2000/svg" || svg.localName !== "svg" || doc.querySelector("script, foreignObject")) {
        toast(p.name + "的卡组：图无法显示", true);
        return;
      }
      openSheet(p.name + "的卡组", [el("div", { class: "deck-view" }, document.importNode(svg, true))]);
    } catch (e) {
      toast(p.name + "的卡组：连接中断，请稍后再试", true);
    }
  }

  let lookupTimer = null;
  async function lookup() {
    const q = $("lookup-box").value.trim();
    const [found, rules] = await Promise.all([q ? cards(q) : Promise.resolve([]),
      fetch("/api/rules?q=" + encodeURIComponent(q), { credentials: "same-origin" }).then((r) => r.ok ? r.json() : null)]);
    $("lookup-cards").replaceChildren(...found.slice(0, 6).map(cardView));
    const box = $("lookup-rules");
    if (!rules) { box.replaceChildren(); return; }
    if (!q) {   // the glossary, when the box is empty
      box.replaceChildren(el("h4", {}, "术语表"), ...rules.glossary.map((e) => el("div", { class: "rule" }, el("h4", {}, e.term), el("p", {}, e.text))));
      return;
    }
    box.replaceChildren(...rules.entries.map((e) => el("div", { class: "rule" }, el("h4", {}, e.term), el("p", {}, e.text))),
      ...rules.mentions.map((m) => el("div", { class: "rule" }, el("h4", {}, m.section), m.lines.map((l) => el("p", {}, l)))),
      !rules.entries.length && !rules.mentions.length && !found.length
        ? el("p", { class: "notice" }, "没有找到「" + q + "」" + (rules.suggestions.length ? "。你是不是要找：" + rules.suggestions.join("、") : "")) : null);
  }

  // ------------------------------------------------------------------ sheet, toast, tabs

  function openSheet(title, content) {
    $("sheet-title").textContent = title;
    $("sheet-content").replaceChildren(...content.filter(Boolean));
    $("sheet").hidden = false;
  }
  function closeSheet() { $("sheet").hidden = true; }

  let toastTimer = null;
  function toast(text, bad) {
    const t = $("toast");
    t.textContent = text;
    t.className = "toast" + (bad ? " bad" : "");
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, bad ? 6000 : 2500);
  }

  function showTab(name) {
    state.tab = name;
    for (const b of document.querySelectorAll("nav.tabs button")) b.setAttribute("aria-selected", String(b.dataset.tab === name));
    for (const s of document.querySelectorAll("main .tab")) s.hidden = s.id !== "tab-" + name;
    if (name === "actions") renderCommands();
    if (name === "lookup") lookup();
  }

  // ------------------------------------------------------------------ screen awake

  async function keepAwake() {
    const notices = $("notices");
    if (!("wakeLock" in navigator) || !window.isSecureContext) {
      notices.replaceChildren(el("p", { class: "notice", id: "wake-notice" },
        "这个地址不是 HTTPS，浏览器不允许网页保持屏幕常亮：请把手机的自动锁屏调长，或用 cardpress table --https 启动（首次打开时信任它生成的证书）。"));
      return;
    }
    try { await navigator.wakeLock.request("screen"); } catch (e) { /* refused (battery saver): the screen may sleep */ }
  }
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") keepAwake(); });

  // ------------------------------------------------------------------ start

  async function start() {
    for (const b of document.querySelectorAll("nav.tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));
    $("next").addEventListener("click", () => send("next", {}, "下一阶段"));
    $("undo").addEventListener("click", () => send("undo", {}, "撤销"));
    $("redo").addEventListener("click", () => send("redo", {}, "重做"));
    $("sheet-close").addEventListener("click", closeSheet);
    $("sheet").addEventListener("click", (ev) => { if (ev.target === $("sheet")) closeSheet(); });
    $("command-filter").addEventListener("input", renderCommands);
    $("lookup-box").addEventListener("input", () => { clearTimeout(lookupTimer); lookupTimer = setTimeout(lookup, 150); });
    document.documentElement.style.setProperty("--head", $("top").offsetHeight + "px");
    renderConn();
    keepAwake();
    for (;;) {
      try {
        const [forms, board] = await Promise.all([fetch("/api/forms", { credentials: "same-origin" }).then((r) => r.json()),
          fetch("/api/board", { credentials: "same-origin" }).then((r) => r.json())]);
        state.forms = forms;
        showBoard(board);
        break;
      } catch (e) {
        setOnline(false);
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    }
    listen();
    flush();
  }
  start();
})();

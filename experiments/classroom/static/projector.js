// The projector: the table card by card, the class's pooled table, the streak trap, the teacher's controls.
"use strict";

// The teacher's token: traded once for the one-time code in the address (#once=...), then kept in this
// tab's storage; the address is rewritten without it, so it is neither in the address bar nor in history.
let TOKEN = sessionStorage.getItem("trente-token") || "";
const shown = { coups: -1, view: null, timers: [], dealing: false, joinScreen: null };

async function login() {
  const params = new URLSearchParams(location.hash.slice(1));
  const once = params.get("once"), legacy = params.get("t");
  if (once || legacy) history.replaceState(null, "", location.pathname);
  if (legacy) TOKEN = legacy;
  if (once) {
    const { status, data } = await post("/api/teacher/login", { once });
    if (status === 200) TOKEN = data.token;
    else if (!TOKEN) fill("message", data.error || "HTTP " + status);
  }
  if (TOKEN) sessionStorage.setItem("trente-token", TOKEN);
}

function teacher(action, body) {
  return post("/api/teacher/" + action, body, { "X-Teacher-Token": TOKEN }).then(({ status, data }) => {
    fill("message", status === 200 ? "" : data.error || "HTTP " + status);
    return { status, data };
  });
}

// Deal the coup after the one shown; the button waits for the answer, and the server deals a coup once
// however many times it is asked (a double-click, a key held down).
async function deal() {
  if (shown.dealing || !shown.view) return;
  shown.dealing = true;
  document.getElementById("deal").disabled = true;
  try { await teacher("deal", { coup: shown.view.public.coups + 1 }); } finally {
    shown.dealing = false;
    document.getElementById("deal").disabled = false;
  }
}

async function download(kind) {
  const table = document.getElementById("export-table").value;
  const query = new URLSearchParams();
  if (table !== "") query.set("table", table);
  if (kind === "csv") query.set("sep", LANG === "fr" ? ";" : ((shown.view && shown.view.extra.csv_sep) || ","));
  const response = await fetch("/api/teacher/export." + kind + "?" + query, { headers: { "X-Teacher-Token": TOKEN } });
  if (!response.ok) { fill("message", "HTTP " + response.status); return; }
  const name = (response.headers.get("Content-Disposition") || "").split('filename="')[1];
  const link = el("a", { href: URL.createObjectURL(await response.blob()), download: name ? name.slice(0, -1) : "classroom." + kind });
  document.body.appendChild(link); link.click(); link.remove();
}

function words() {
  document.documentElement.lang = LANG;  // the page says which language it is in (screen readers, hyphenation)
  fill("lang", t("lang")); fill("deal", t("deal")); fill("fast10k", t("fast10k")); fill("fast1m", t("fast1m"));
  fill("kick", t("kick")); fill("export-json", t("export_json")); fill("export-csv", t("export_csv"));
  fill("reset", t("reset")); fill("n-noir", t("noir")); fill("n-rouge", t("rouge"));
  fill("pooled-title", t("pooled_title")); fill("trap-title", t("trap_head"));
  fill("countdown", t("countdown")); fill("join-screen-button", t("join_screen"));
  fill("js-title", t("join_title")); fill("js-close", t("close"));
  document.getElementById("kick-name").dataset.names = "";  // rebuilt in the new language
  document.getElementById("export-table").dataset.tables = "";
  if (shown.view) render(shown.view, false);
}

// The last coup, card by card as the croupier lays it out (no animation on the first view).
function layCoup(coup, animate) {
  for (const id of shown.timers) clearTimeout(id);
  shown.timers = [];
  const noir = fill("noir-cards"), rouge = fill("rouge-cards");
  fill("noir-total"); fill("rouge-total"); fill("announce");
  if (!coup) return;
  const steps = [];
  for (const card of coup.noir_cards) steps.push(() => noir.appendChild(cardNode(card)));
  steps.push(() => fill("noir-total", String(coup.noir || "–")));
  for (const card of coup.rouge_cards) steps.push(() => rouge.appendChild(cardNode(card)));
  steps.push(() => fill("rouge-total", String(coup.rouge || "–")));
  steps.push(() => { fill("announce", coup.announcement); document.body.dataset.revealed = "1"; });
  document.body.dataset.revealed = "0";
  if (!animate) { steps.forEach((s) => s()); return; }
  steps.forEach((s, i) => shown.timers.push(setTimeout(s, 180 * i)));
}

function pooledRows(pub) {
  const head = el("tr", {}, el("th", {}, t("after")), el("th", {}, t("occasions")), el("th", {}, t("same")),
    el("th", {}, t("other")), el("th", {}, t("class_said")), el("th", {}, t("exact")));
  const rows = [head];
  for (const row of pub.pooled) {
    const k = row.k === 4 ? "4+" : String(row.k);
    const guesses = row.predicted_same + row.predicted_other;
    rows.push(el("tr", { "data-side": row.side, "data-k": String(row.k) },
      el("td", {}, k + " " + t(row.side)),
      el("td", { class: "num occasions" }, String(row.occasions)),
      el("td", { class: "num same" }, row.occasions ? row.same + " (" + pct(row.same / row.occasions) + ")" : "–"),
      el("td", { class: "num other" }, row.occasions ? String(row.other) : "–"),
      el("td", { class: "num said" }, guesses ? pct(row.predicted_other / guesses) : "–"),
      el("td", { class: "num" }, "50%")));
  }
  return rows;
}

// The chart: for each k, the share that went the same way again (dots), the exact 50% (line),
// and the share of the class that predicted the other side (bars).
function drawChart(pub) {
  const svg = document.getElementById("chart");
  const ns = "http://www.w3.org/2000/svg";
  const nodes = [];
  const add = (tag, attrs) => { const n = document.createElementNS(ns, tag); for (const [a, v] of Object.entries(attrs)) n.setAttribute(a, v); nodes.push(n); return n; };
  const y = (p) => 100 - 90 * p;
  add("line", { x1: 30, x2: 395, y1: y(0.5), y2: y(0.5), class: "exact-line" });
  for (const p of [0, 0.5, 1]) { const label = add("text", { x: 2, y: y(p) + 4, class: "axis" }); label.textContent = (100 * p) + "%"; }
  // the legend: what the dots, the bars and the dashed line are
  const legend = [["circle", { cx: 34, cy: 122, r: 4, class: "dot noir" }, t("legend_dots")],
    ["rect", { x: 160, y: 118, width: 8, height: 8, class: "bar" }, t("legend_bars")],
    ["line", { x1: 298, x2: 310, y1: 122, y2: 122, class: "exact-line" }, t("legend_line")]];
  legend.forEach(([tag, attrs, words]) => {
    add(tag, attrs);
    const x = tag === "circle" ? 42 : tag === "rect" ? 172 : 314;
    const label = add("text", { x, y: 125, class: "legend" }); label.textContent = words;
  });
  const rows = pub.pooled;
  rows.forEach((row, i) => {
    const x = 40 + i * 45;
    const guesses = row.predicted_same + row.predicted_other;
    if (guesses) add("rect", { x: x - 8, y: y(row.predicted_other / guesses), width: 16, height: 90 * row.predicted_other / guesses, class: "bar" });
    if (row.occasions) add("circle", { cx: x, cy: y(row.same / row.occasions), r: 4, class: "dot " + row.side });
    const label = add("text", { x: x - 10, y: 110, class: "axis" }); label.textContent = (row.k === 4 ? "4+" : row.k) + (row.side === "noir" ? "N" : "R");
  });
  svg.replaceChildren(...nodes);
}

// The betting systems: per system played and for the class, the bankrolls beside the exact
// expectation of the very stakes placed (−edge × staked); by name only when the teacher shows names.
function systemsPart(systems) {
  const all = systems.class;
  if (!all.players) return [el("h2", {}, t("systems_title")), el("p", { class: "dim" }, t("no_systems"))];
  const round = (x) => units(Math.round(x * 10) / 10, true);
  const head = el("tr", {}, el("th", {}, "(" + t("players") + ")"), el("th", {}, t("mean_bankroll")),
    el("th", {}, t("net")), el("th", {}, t("staked")), el("th", {}, t("expectation")));
  const line = (name, r, attrs) => el("tr", attrs, el("td", {}, name + " (" + r.players + ")"),
    el("td", { class: "num mean" }, units(Math.round(r.mean * 10) / 10)), el("td", { class: "num net" }, units(r.net, true)),
    el("td", { class: "num staked" }, units(r.staked)), el("td", { class: "num expected" }, round(r.expected)));
  const rows = [head, ...systems.rows.filter((r) => r.players).map((r) => line(t(r.system).split(":")[0], r, { "data-system": r.system })),
    line(t("the_class"), all, { class: "class-row", "data-system": "class" })];
  const parts = [el("h3", {}, t("systems_title") + " (" + t("starts_with") + " " + units(systems.bankroll) + ")"),
    el("table", { id: "systems-table", class: "compact" }, ...rows),
    el("p", { class: "dim" }, t("edge_note") + " " + (100 * systems.edge).toFixed(2) + "%")];
  if (systems.seats) parts.push(el("p", { class: "seats" }, systems.seats.slice(0, 3).map((s) =>
    s.name + " (" + t(s.system).split(":")[0] + ") " + units(s.bankroll)).join(" · ")));
  return parts;
}

function render(view, fresh) {
  const pub = view.public, extra = view.extra;
  shown.view = view;
  if (!shown.dealing) document.getElementById("deal").disabled = false;  // greyed until the first view
  document.body.dataset.coups = String(pub.coups);
  if (!shown.langKnown) {  // a projector opened later takes the teacher's language
    shown.langKnown = true;
    if (pub.lang && pub.lang !== LANG) { LANG = pub.lang; words(); return; }
  }
  fill("rules", pub.preset + " · " + t("table") + " " + (pub.table + 1) + " · " + pub.coups + " " + t("coups") +
    (pub.locked ? " · " + t("locked") : ""));
  fill("join-at", extra.join_url || "", el("br"), t("code") + ": ", el("strong", { id: "join-code" }, extra.join_code || ""));
  renderJoinScreen(pub, extra);
  renderRejoins(extra.rejoins || []);
  if (pub.coups !== shown.coups) { layCoup(pub.last, fresh && shown.coups >= 0); shown.coups = pub.coups; }
  const streak = pub.streak;
  fill("streak", streak.side ? t("streak") + ": " + streak.run + " " + t(streak.side) + " " + t("in_a_row") : "");
  fill("scoreboard", ...pub.scoreboard.map((r) => el("span", { class: "chip " + r, title: t(r) }, r === "refait" ? "31" : r === "apres" ? "A" : r === "void" ? "–" : t(r)[0])));
  const c = pub.counts, e = pub.exact;
  fill("counts", t("noir") + " " + c.noir + " · " + t("rouge") + " " + c.rouge + " · " + t("apres") + " " + c.apres + " · " + t("refait") + " " + c.refait +
    " — " + t("exact") + ": " + pct(e.noir) + " / " + pct(e.rouge) + " / " + pct(e.apres) + " / " + pct(e.refait));
  // the class's split for this coup only when the teacher shows it live; else the last coup's, after its deal
  const split = pub.hide_split ? (pub.coups ? el("span", { class: "dim" }, " · " + t("last_said") + ": ") : null) : el("span", {}, " ");
  const counts = pub.hide_split ? (pub.coups ? pub.last_split : null) : pub.round;
  fill("round", el("span", { class: "big" }, t("this_round") + ": " + pub.round.predicted + " / " + pub.students + " " + t("predicted")),
    split, counts ? el("span", { class: "bar-noir" }, t("noir") + " " + counts.noir) : null,
    counts ? el("span", { class: "bar-rouge" }, " " + t("rouge") + " " + counts.rouge) : null,
    pub.closes_in !== null && pub.closes_in !== undefined ? el("strong", { id: "timer", "data-ends": String(Date.now() + 1000 * pub.closes_in) }, "") : null,
    pub.paused ? el("strong", { class: "error" }, " · " + t("paused")) : null);
  tick();
  if (pub.leaders) {
    fill("leaders", el("h3", {}, t("leaders")), el("ol", {}, ...pub.leaders.slice(0, 5).map((l) => el("li", {}, l.name + " — " + l.right + "/" + l.decided))));
  } else fill("leaders", el("p", { class: "dim" }, t("names_hidden")));
  fill("pooled", ...pooledRows(pub));
  drawChart(pub);
  const trap = [el("tr", {}, el("th", {}, "k"), el("th", {}, t("each_avg")), el("th", {}, t("pooled")), el("th", {}, t("expected")))];
  for (const row of pub.trap) {
    trap.push(el("tr", { "data-k": String(row.k) }, el("td", {}, String(row.k)),
      el("td", { class: "num average" }, pct(row.average) + " (" + row.students + ")"),
      el("td", { class: "num pooled" }, pct(row.pooled) + " (" + row.right + "/" + row.occasions + ")"),
      el("td", { class: "num expected" }, pct(row.expected_average))));
  }
  fill("trap", ...trap);
  fill("trap-note", LANG === "fr"
    ? "Chaque pronostic est juste une fois sur deux, quoi qu'il soit arrivé avant. Pourtant la moyenne des petits tableaux de chacun tombe sous 50 % : dans une courte série, une série de justes « consomme » ses propres occasions. Regrouper toutes les occasions donne l'estimation honnête."
    : "Each prediction is right half the time, whatever came before. Yet the average of each student's small table sits below 50%: in a short record a run of rights uses up its own occasions. Pooling every occasion is the honest estimate.");
  const fast = pub.fast;
  if (!fast) fill("fast");
  else if (fast.error) fill("fast", el("p", { class: "error" }, t("fast_title") + ": " + fast.error));
  else if (!fast.done) fill("fast", el("p", {}, t("fast_title") + ": " + fast.coups.toLocaleString() + " " + t("coups") + " · " + t("dealing") + " " + fast.dealt_shards + "/" + (fast.shards || "…")), el("progress", { max: String(fast.shards || 1), value: String(fast.dealt_shards) }));
  else {
    const rows = [el("tr", {}, el("th", {}, t("after")), el("th", {}, t("occasions")), el("th", {}, t("same")), el("th", {}, t("exact")))];
    for (const row of fast.rows) rows.push(el("tr", {}, el("td", {}, (row.k === 4 ? "4+" : row.k) + " " + t(row.side)), el("td", { class: "num" }, row.occasions.toLocaleString()), el("td", { class: "num" }, pct(row.same / row.occasions)), el("td", { class: "num" }, "50%")));
    fill("fast", el("h3", {}, t("fast_title") + ": " + fast.coups.toLocaleString() + " " + t("coups") + " (" + t("seed") + " ",
      el("span", { id: "fast-seed" }, String(fast.seed)), ")"), el("table", { class: "compact" }, ...rows));
  }
  fill("systems", ...systemsPart(pub.systems));
  fill("pause", pub.paused ? t("resume") : t("pause"));
  fill("names", pub.show_names ? t("hide") : t("names"));
  fill("lock", pub.locked ? t("unlock") : t("lock"));
  fill("split", pub.hide_split ? t("show_split") : t("hide_split"));
  const tables = extra.tables || [], pick = document.getElementById("export-table");
  if (pick.dataset.tables !== JSON.stringify(tables) + pub.table) {
    pick.dataset.tables = JSON.stringify(tables) + pub.table;
    pick.replaceChildren(el("option", { value: "" }, t("table") + " " + (pub.table + 1)),
      ...tables.map((n) => el("option", { value: String(n) }, t("table") + " " + (n + 1))));
  }
  const select = document.getElementById("kick-name");
  const names = extra.names || [];
  if (select.dataset.names !== JSON.stringify(names)) {
    select.dataset.names = JSON.stringify(names);
    // the first option shows no name: the projector shows names only when the teacher says so
    select.replaceChildren(el("option", { value: "" }, t("kick") + "…"), ...names.map((n) => el("option", { value: n }, n)));
  }
}

// The countdown on the projector, from the seconds the server said were left.
function tick() {
  const timer = document.getElementById("timer");
  if (!timer) return;
  const left = Math.max(0, Math.ceil((Number(timer.dataset.ends) - Date.now()) / 1000));
  timer.textContent = " · " + (left ? left + " s" : t("closed"));
}
setInterval(tick, 250);

// The full-screen join screen: a big QR code and address, the names as they arrive; shown before the
// first coup until the teacher closes it.
function renderJoinScreen(pub, extra) {
  const screen = document.getElementById("join-screen");
  if (shown.joinScreen === null) shown.joinScreen = pub.coups === 0;
  screen.hidden = !shown.joinScreen;
  fill("js-address", extra.join_url || "");
  fill("js-code", extra.join_code || "");
  fill("js-count", pub.students + " " + t("students"));
  fill("js-names", ...(extra.names || []).slice(-40).map((n) => el("span", { class: "name" }, n)));
}

// Students who lost their key and ask for their name back: the teacher confirms or refuses.
function renderRejoins(requests) {
  fill("rejoins", ...requests.map((r) => el("span", { class: "rejoin" }, r.name + " " + t("asks_back") + " ",
    el("button", { type: "button", onclick: () => teacher("admit", { request: r.request }) }, t("admit")),
    el("button", { type: "button", onclick: () => teacher("deny", { request: r.request }) }, t("deny")))));
}

document.addEventListener("DOMContentLoaded", async () => {
  await login();
  words();
  document.getElementById("deal").addEventListener("click", deal);
  document.addEventListener("keydown", (event) => {  // space deals (not while typing or on another control)
    if (event.key !== " " || event.repeat || ["INPUT", "SELECT", "TEXTAREA", "BUTTON"].includes(event.target.tagName)) return;
    event.preventDefault();
    deal();
  });
  // A button clicked with the mouse gives the keyboard back to the page, so that Space deals next
  // (not that button again); one reached with Tab keeps it.
  document.addEventListener("click", (event) => {
    const button = event.target.closest ? event.target.closest("button") : null;
    if (button && event.detail > 0) button.blur();
  });
  document.getElementById("lock").addEventListener("click", () => teacher("lock", { locked: !(shown.view && shown.view.public.locked) }));
  document.getElementById("split").addEventListener("click", () => teacher("split", { hide: !(shown.view && shown.view.public.hide_split) }));
  document.getElementById("countdown").addEventListener("click", () => teacher("countdown", { seconds: 15 }));
  document.getElementById("join-screen-button").addEventListener("click", () => { shown.joinScreen = true; if (shown.view) render(shown.view, false); });
  document.getElementById("js-close").addEventListener("click", () => { shown.joinScreen = false; if (shown.view) render(shown.view, false); });
  document.getElementById("pause").addEventListener("click", () => teacher(shown.view && shown.view.public.paused ? "resume" : "pause"));
  document.getElementById("names").addEventListener("click", () => teacher("names", { show: !(shown.view && shown.view.public.show_names) }));
  document.getElementById("fast10k").addEventListener("click", () => teacher("fast", { coups: 10000 }));
  document.getElementById("fast1m").addEventListener("click", () => teacher("fast", { coups: 1000000 }));
  document.getElementById("kick").addEventListener("click", () => teacher("kick", { name: document.getElementById("kick-name").value }));
  document.getElementById("reset").addEventListener("click", () => { if (confirm(t("reset") + "?")) teacher("reset"); });
  document.getElementById("export-json").addEventListener("click", () => download("json"));
  document.getElementById("export-csv").addEventListener("click", () => download("csv"));
  document.getElementById("lang").addEventListener("click", () => {
    toggleLang(); words(); teacher("lang", { lang: LANG });  // the phones follow
  });
  if (!TOKEN) return;  // no token (an address used already): the page says so and waits for a new address
  liveSocket(() => ({ token: TOKEN }), (view) => render(view, true), (up) => { if (!up) fill("message", t("connection_lost")); else fill("message", ""); });
});

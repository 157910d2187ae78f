// The join page: join with a name and the code, predict Noir or Rouge before each coup, see your record.
"use strict";

const state = { key: localStorage.getItem("trente-key"), view: null, error: "", tapped: null, sending: Promise.resolve() };

function sureValue() { return Number(document.querySelector("input[name=sure]:checked").value); }

function words() {
  document.documentElement.lang = LANG;  // the page says which language it is in (screen readers, hyphenation)
  fill("lang", t("lang"));
  fill("l-name", t("name")); fill("l-code", t("code")); fill("join", t("join"));
  fill("p-noir", t("noir")); fill("p-rouge", t("rouge")); fill("l-sure", t("sure"));
  fill("s1", t("s1")); fill("s2", t("s2")); fill("s3", t("s3")); fill("l-record", t("record"));
  fill("l-system", t("system"));
  const select = document.getElementById("system"), chosen = select.value;
  select.replaceChildren(el("option", { value: "" }, t("none")),
    ...["flat", "martingale", "paroli", "dalembert", "fibonacci"].map((s) => el("option", { value: s }, t(s))));
  select.value = chosen;
  if (state.view) render(state.view);
}

function showJoin(message) {
  document.getElementById("join-form").hidden = false;
  document.getElementById("play").hidden = true;
  fill("join-error", message || "");
}

async function join(event) {
  event.preventDefault();
  const { status, data } = await post("/api/join", {
    name: document.getElementById("name").value, code: document.getElementById("code").value,
  });
  if (status !== 200) {
    const taken = (data.error || "").startsWith("that name is taken");
    // a student whose browser lost its key: the teacher confirms on the projector that the name is theirs
    fill("join-error", data.error || "HTTP " + status, taken ? el("br") : null,
      taken ? el("button", { type: "button", id: "rejoin", onclick: askBack }, t("lost_key")) : null);
    return;
  }
  start(data.key);
}

async function askBack() {
  const { status, data } = await post("/api/join", {
    name: document.getElementById("name").value, code: document.getElementById("code").value, rejoin: true,
  });
  if (status !== 200) { fill("join-error", data.error || "HTTP " + status); return; }
  fill("join-error", t("asked"));
  const request = data.request;
  const poll = async () => {
    const answer = await post("/api/join", { request });
    if (answer.status === 200 && answer.data.key) start(answer.data.key);
    else if (answer.status === 200) setTimeout(poll, 2000);
    else fill("join-error", answer.data.error || "HTTP " + answer.status);
  };
  setTimeout(poll, 1000);
}

function start(key) {
  state.key = key;
  localStorage.setItem("trente-key", key);
  document.getElementById("join-form").hidden = true;
  document.getElementById("play").hidden = false;
  if (!state.view) fill("status", t("connecting"));  // Noir and Rouge wait for the table's first view
  liveSocket(() => ({ key: state.key }), (view) => { state.view = view; render(view); },
    (up) => { if (!up) fill("status", t("connection_lost")); });
}

async function pickSystem() {
  const value = document.getElementById("system").value;
  const { status, data } = await post("/api/system", { key: state.key, system: value || null });
  if (status !== 200) fill("status", data.error || "HTTP " + status);
}

// The student's system beside the class's, and beside the exact expectation of the stakes placed.
function renderSystem(mine, systems) {
  const select = document.getElementById("system");
  if (document.activeElement !== select) select.value = mine ? mine.system : "";
  if (mine) {
    fill("my-system", el("strong", { class: "money" }, t("bankroll") + " " + units(mine.bankroll)),
      " (" + t("since_coup") + " " + mine.from + ") · " + t("staked") + " " + units(mine.staked) + " · " + t("net") + " " +
      units(mine.net, true) + " · " + t("expectation") + " " + units(Math.round(mine.expected * 10) / 10, true) +
      (mine.prison ? " · " + t("in_prison") + " " + units(mine.prison) : "") + (mine.ruined ? " · " + t("ruined") : ""));
  } else fill("my-system", t("starts_with") + " " + units(systems ? systems.bankroll : 100) + " " + t("units"));
  const all = systems && systems.class;
  if (all && all.players) {
    fill("class-system", t("the_class") + " (" + all.players + " " + t("players") + "): " + t("mean_bankroll") + " " +
      units(Math.round(all.mean * 10) / 10) + " · " + t("net") + " " + units(all.net, true) + " · " + t("staked") + " " +
      units(all.staked) + " · " + t("expectation") + " " + units(Math.round(all.expected * 10) / 10, true));
  } else fill("class-system");
}

// A prediction names the coup the page shows: one that arrives after that coup was dealt is refused
// ("too late: coup 7 was dealt"), never counted on the next. A page's predictions leave one after the
// other, so the server keeps the last one made.
function predict(side) {
  if (!state.view) return;
  const coup = state.view.public.coups + 1, sure = sureValue();
  state.tapped = { side, coup, table: state.view.public.table };
  state.sending = state.sending.catch(() => {}).then(() => send(side, sure, coup));
}

async function send(side, sure, coup) {
  const { status, data } = await post("/api/predict", { key: state.key, side, sure, coup });
  if (status !== 200) { state.refused = data.error || "HTTP " + status; fill("status", state.refused); return; }
  state.refused = "";
  document.body.dataset.guess = side;
}

// "How sure?" changed after the tap: the prediction is sent again with it, even before the server's
// view of the tap has reached the phone.
function sureChanged() {
  if (!state.view) return;
  const pub = state.view.public, tap = state.tapped;  // this page's tap on the coup it shows, at this table
  const tapped = tap && tap.coup === pub.coups + 1 && tap.table === pub.table ? tap.side : null;
  const guess = tapped || (state.view.extra.me && state.view.extra.me.guess && state.view.extra.me.guess[0]);
  if (guess) predict(guess);
}

// The countdown, from the seconds the server said were left when it sent the view.
function tick() {
  const pub = state.view && state.view.public;
  if (!pub || pub.closes_in === null || pub.closes_in === undefined) { fill("timer"); return; }
  const left = Math.max(0, Math.ceil((state.ends - Date.now()) / 1000));
  fill("timer", left ? left + " s" : t("closed"));
  for (const side of ["noir", "rouge"]) document.getElementById("p-" + side).disabled = pub.paused || !left;
}
setInterval(tick, 250);

function render(view) {
  const pub = view.public, extra = view.extra;
  if (extra.error) { localStorage.removeItem("trente-key"); showJoin(extra.error); return; }
  if (!localStorage.getItem("trente-lang") && pub.lang && pub.lang !== LANG) { LANG = pub.lang; words(); return; }
  const me = extra.me;
  if (state.shownCoups !== pub.coups) { state.refused = ""; state.shownCoups = pub.coups; }
  state.ends = Date.now() + 1000 * (pub.closes_in || 0);
  fill("who", me.name);
  fill("ask", t("predict") + " " + (pub.coups + 1));
  const guess = me.guess;
  for (const side of ["noir", "rouge"]) {
    document.getElementById("p-" + side).classList.toggle("chosen", !!guess && guess[0] === side);
    document.getElementById("p-" + side).disabled = pub.paused;
  }
  fill("status", state.refused ? state.refused : pub.paused ? t("paused") : guess ? t("you_said") + " " + t(guess[0]) + " · " + t("s" + guess[1]) + " · " + t("waiting") : "");
  document.body.dataset.coups = String(pub.coups);
  if (pub.last) {
    const last = pub.last;
    const mine = me.last || {};
    const verdict = mine.verdict ? t("verdict_" + mine.verdict) : t("verdict_none");
    fill("last", el("p", { class: "verdict " + (mine.verdict || "none"), id: "verdict" },
      t("coup") + " " + pub.coups + ": " + (mine.said ? t("you") + " " + t(mine.said) + " — " : "") + verdict +
      (mine.verdict === "right" && me.run > 1 ? " · " + me.run + " " + t("run") : "")),
      el("p", { class: "announce" }, last.announcement),
      el("p", {}, t("noir") + " " + last.noir + " · " + t("rouge") + " " + last.rouge + " → " + t(last.result)));
  } else fill("last");
  fill("record", plural(me.predicted, "prediction") + " · " + plural(me.right, "right") + " · " + plural(me.wrong, "wrong") + " · " + me.run + " " + t("run"));
  tick();
  const rows = [el("tr", {}, el("th", {}, t("after_k_right")), el("th", {}, t("occasions")), el("th", {}, t("next_right")))];
  for (const row of me.trap) {
    rows.push(el("tr", {}, el("td", {}, String(row.k)), el("td", {}, String(row.occasions)),
      el("td", {}, row.occasions ? row.right + " (" + pct(row.right / row.occasions) + ")" : "–")));
  }
  fill("my-trap", ...rows);
  renderSystem(me.system, pub.systems);
}

document.addEventListener("DOMContentLoaded", async () => {
  document.getElementById("lang").addEventListener("click", () => { toggleLang(); words(); });
  document.getElementById("join-form").addEventListener("submit", join);
  document.getElementById("p-noir").addEventListener("click", () => predict("noir"));
  document.getElementById("p-rouge").addEventListener("click", () => predict("rouge"));
  document.getElementById("system").addEventListener("change", pickSystem);
  for (const radio of document.querySelectorAll("input[name=sure]")) radio.addEventListener("change", sureChanged);
  const code = new URLSearchParams(location.search).get("code");
  if (code) document.getElementById("code").value = code;
  words();
  if (state.key) {  // a reload: rejoin with the key this browser keeps
    const { status, data } = await post("/api/join", { key: state.key });
    if (status === 200) { start(data.key); return; }
    localStorage.removeItem("trente-key");
  }
  showJoin("");
});

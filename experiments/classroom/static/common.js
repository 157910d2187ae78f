// Shared by the join page and the projector: text building (never HTML), the live socket, the words.
"use strict";

const WORDS = {
  en: {
    noir: "Noir", rouge: "Rouge", apres: "Après", refait: "Refait", void: "Void",
    join: "Join", name: "Your name", code: "Join code", predict: "Your prediction for coup",
    sure: "How sure?", s1: "a guess", s2: "fairly sure", s3: "certain", waiting: "Waiting for the deal…",
    you_said: "You predicted", right: "right", wrong: "wrong", tie: "a tie: neither right nor wrong",
    record: "Your record", predictions: "predictions", run: "right in a row now",
    paused: "The teacher paused the table", trap_title: "Your own table: after k right in a row",
    after_k_right: "after k right", occasions: "times", next_right: "next right",
    students: "students", predicted: "predicted", deal: "Deal", pause: "Pause", resume: "Resume",
    reset: "Reset", names: "Show names", hide: "Hide names", kick: "Remove", fast10k: "10,000 coups",
    fast1m: "1,000,000 coups", export_json: "JSON", export_csv: "CSV", streak: "Streak",
    in_a_row: "in a row", coups: "coups", pooled_title: "The class: after k in a row, the next decided coup",
    after: "after", same: "same again", other: "the other", class_said: "class predicted the other",
    exact: "exact", trap_head: "The streak trap: after k right in a row, was the next prediction right?",
    each_avg: "average of each student's own share", pooled: "pooled (all occasions together)",
    expected: "expected average on a fair game", scoreboard: "Scoreboard", lang: "FR",
    fast_title: "Fast-forward", dealing: "dealing", seed: "seed", table: "table",
    leaders: "Most right", names_hidden: "Names hidden", this_round: "This coup",
    connection_lost: "connection lost: reconnecting…", removed: "removed",
    systems_title: "Betting systems", system: "Your betting system", none: "none: just predict",
    flat: "flat: 1 unit on Noir every coup", martingale: "martingale: double after a loss",
    paroli: "paroli: let it ride for 3 wins (1-2-4)", dalembert: "d'Alembert: one unit more after a loss, one less after a win",
    fibonacci: "Fibonacci: 1-1-2-3-5-8… up after a loss, two steps down after a win",
    since_coup: "since coup", bankroll: "bankroll", staked: "staked", net: "net", in_prison: "in prison",
    expectation: "exact expectation", ruined: "ruined: stakes no more", the_class: "The class",
    players: "players", mean_bankroll: "mean bankroll", starts_with: "each starts with",
    units: "units", no_systems: "No betting system yet: students pick one on their page.",
    edge_note: "exact expectation = −edge × staked; the edge of Noir",
    sys_note: "Every system loses, on average, the same share of what it stakes: the edge. A system only changes how much is staked and how the losses come (many small ones, or a rare large one).",
  },
  fr: {
    noir: "Noir", rouge: "Rouge", apres: "Après", refait: "Refait", void: "Nul",
    join: "Entrer", name: "Votre nom", code: "Code de la table", predict: "Votre pronostic pour le coup",
    sure: "Quelle certitude ?", s1: "au hasard", s2: "assez sûr", s3: "certain", waiting: "En attente de la donne…",
    you_said: "Vous avez dit", right: "juste", wrong: "faux", tie: "égalité : ni juste ni faux",
    record: "Votre bilan", predictions: "pronostics", run: "justes d'affilée",
    paused: "Le professeur a suspendu la table", trap_title: "Votre propre tableau : après k justes d'affilée",
    after_k_right: "après k justes", occasions: "fois", next_right: "suivant juste",
    students: "élèves", predicted: "ont parié", deal: "Donner", pause: "Pause", resume: "Reprendre",
    reset: "Nouvelle table", names: "Montrer les noms", hide: "Cacher les noms", kick: "Retirer",
    fast10k: "10 000 coups", fast1m: "1 000 000 coups", export_json: "JSON", export_csv: "CSV",
    streak: "Série", in_a_row: "d'affilée", coups: "coups",
    pooled_title: "La classe : après k d'affilée, le coup décidé suivant",
    after: "après", same: "encore le même", other: "l'autre", class_said: "la classe a dit l'autre",
    exact: "exact", trap_head: "Le piège des séries : après k justes d'affilée, le pronostic suivant était-il juste ?",
    each_avg: "moyenne des parts de chaque élève", pooled: "regroupé (toutes les occasions)",
    expected: "moyenne attendue, jeu équitable", scoreboard: "Tableau", lang: "EN",
    fast_title: "Avance rapide", dealing: "donne", seed: "graine", table: "table",
    leaders: "Les plus justes", names_hidden: "Noms cachés", this_round: "Ce coup",
    connection_lost: "connexion perdue : reconnexion…", removed: "retiré",
    systems_title: "Systèmes de mise", system: "Votre système de mise", none: "aucun : seulement pronostiquer",
    flat: "à plat : 1 unité sur Noir à chaque coup", martingale: "martingale : doubler après une perte",
    paroli: "paroli : laisser courir 3 gains (1-2-4)", dalembert: "d'Alembert : une unité de plus après une perte, une de moins après un gain",
    fibonacci: "Fibonacci : 1-1-2-3-5-8… monter après une perte, redescendre de deux après un gain",
    since_coup: "depuis le coup", bankroll: "capital", staked: "misé", net: "gain net", in_prison: "en prison",
    expectation: "espérance exacte", ruined: "ruiné : ne mise plus", the_class: "La classe",
    players: "joueurs", mean_bankroll: "capital moyen", starts_with: "chacun commence avec",
    units: "unités", no_systems: "Aucun système de mise pour l'instant : les élèves en choisissent un sur leur page.",
    edge_note: "espérance exacte = −avantage × misé ; l'avantage de la banque sur Noir",
    sys_note: "Chaque système perd en moyenne la même part de ce qu'il mise : l'avantage de la banque. Un système ne change que combien on mise et la forme des pertes (beaucoup de petites, ou une rare et grosse).",
  },
};

let LANG = localStorage.getItem("trente-lang") === "fr" ? "fr" : "en";
function t(word) { return (WORDS[LANG] && WORDS[LANG][word]) || WORDS.en[word] || word; }
function toggleLang() { LANG = LANG === "en" ? "fr" : "en"; localStorage.setItem("trente-lang", LANG); }

// An element with text: everything shown is text, never parsed as HTML.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name === "class") node.className = value;
    else if (name === "onclick") node.addEventListener("click", value);
    else node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
  return node;
}

function fill(id, ...children) {
  const node = document.getElementById(id);
  node.replaceChildren(...children.filter((c) => c !== null && c !== undefined).map(
    (c) => (typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c)));
  return node;
}

function pct(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%"; }

// Units of money: whole units as they are, a half (a partage) with one decimal; a sign when asked.
function units(x, signed) {
  if (x === null || x === undefined) return "–";
  const text = Number.isInteger(x) ? String(x) : x.toFixed(1);
  return signed && x > 0 ? "+" + text : text.replace("-", "−");
}

function resultWord(result) { return t(result); }

function cardNode(name) {
  const red = name.endsWith("♥") || name.endsWith("♦");
  return el("span", { class: "card" + (red ? " red" : "") }, name);
}

// A socket that says hello with {key} or {token} and hands every view to onView; reconnects.
function liveSocket(hello, onView, onStatus) {
  let delay = 500;
  function open() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(scheme + "//" + location.host + "/ws");
    socket.addEventListener("open", () => { delay = 500; socket.send(JSON.stringify(hello())); onStatus(true); });
    socket.addEventListener("message", (event) => {
      const data = JSON.parse(event.data);
      if (data.public) onView(data);
    });
    socket.addEventListener("close", () => { onStatus(false); setTimeout(open, delay); delay = Math.min(delay * 2, 8000); });
  }
  open();
}

async function post(url, body, headers) {
  const response = await fetch(url, {
    method: "POST",
    headers: Object.assign({ "Content-Type": "application/json" }, headers || {}),
    body: JSON.stringify(body || {}),
  });
  let data = {};
  try { data = await response.json(); } catch (e) { data = { error: "HTTP " + response.status }; }
  return { status: response.status, data };
}

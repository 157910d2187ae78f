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
    connection_lost: "connection lost: reconnecting…", connecting: "connecting…", removed: "removed",
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
    countdown: "15 s to predict", closed: "predictions closed", join_screen: "Join screen", join_title: "Join the table",
    close: "Start", lock: "Lock the room", unlock: "Unlock the room", locked: "room locked",
    show_split: "Show the split live", hide_split: "Hide the split until the deal", last_said: "last coup, the class said",
    asks_back: "asks for their name back", admit: "Confirm", deny: "Refuse", legend_dots: "what the cards did",
    legend_bars: "class predicted the other", legend_line: "exact 50%", verdict_right: "right!", verdict_wrong: "wrong",
    verdict_tie: "a tie: neither right nor wrong", verdict_none: "no prediction", coup: "Coup", you: "you said",
    lost_key: "This is my name: ask the teacher", asked: "Asked: the teacher confirms on the projector…",
    right_one: "right", right_many: "right", wrong_one: "wrong", wrong_many: "wrong",
    prediction_one: "prediction", prediction_many: "predictions",
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
    connection_lost: "connexion perdue : reconnexion…", connecting: "connexion…", removed: "retiré",
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
    countdown: "15 s pour parier", closed: "pronostics fermés", join_screen: "Écran d'accueil", join_title: "Rejoindre la table",
    close: "Commencer", lock: "Fermer la salle", unlock: "Rouvrir la salle", locked: "salle fermée",
    show_split: "Montrer la répartition en direct", hide_split: "Cacher la répartition jusqu'à la donne", last_said: "coup précédent, la classe a dit",
    asks_back: "demande à retrouver son nom", admit: "Confirmer", deny: "Refuser", legend_dots: "ce qu'ont fait les cartes",
    legend_bars: "la classe a dit l'autre", legend_line: "exact 50 %", verdict_right: "juste !", verdict_wrong: "faux",
    verdict_tie: "égalité : ni juste ni faux", verdict_none: "pas de pronostic", coup: "Coup", you: "vous avez dit",
    lost_key: "C'est mon nom : demander au professeur", asked: "Demandé : le professeur confirme au projecteur…",
    right_one: "juste", right_many: "justes", wrong_one: "faux", wrong_many: "faux",
    prediction_one: "pronostic", prediction_many: "pronostics",
  },
};

// The language: the one chosen on this device, else the browser's (French for fr-*, else English).
const CHOSEN = localStorage.getItem("trente-lang");
let LANG = CHOSEN === "fr" || CHOSEN === "en" ? CHOSEN : (navigator.language || "en").toLowerCase().startsWith("fr") ? "fr" : "en";
function t(word) { return (WORDS[LANG] && WORDS[LANG][word]) || WORDS.en[word] || word; }
function toggleLang() { LANG = LANG === "en" ? "fr" : "en"; localStorage.setItem("trente-lang", LANG); }
// A count and its word in the right number: "1 juste", "6 justes" (French: 0 and 1 singular).
function plural(n, word) { return n + " " + t(word + ((LANG === "fr" ? n > 1 : n !== 1) ? "_many" : "_one")); }

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

function pct(x) {
  if (x === null || x === undefined) return "–";
  const text = (100 * x).toFixed(1);
  return LANG === "fr" ? text.replace(".", ",") + " %" : text + "%";
}

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

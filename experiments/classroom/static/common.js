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

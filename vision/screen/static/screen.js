// The game-night screen: the state pushed by /events redraws the page; a choice button
// answers the open question as the number key would at the table.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c instanceof Node ? c : String(c));
  return node;
}

function card(name) {
  const red = /[HD]$/.test(name);
  return el("span", { class: red ? "card red" : "card" }, name);
}

function zoneLine(z) {
  const line = el("div", { class: "zone", "data-zone": z.zone }, el("b", {}, z.label.replaceAll("_", " ") + ": "));
  if (z.cards.length) z.cards.forEach((c) => line.append(card(c)));
  else line.append(z.count ? `${z.count} card${z.count > 1 ? "s" : ""}` : "none");
  return line;
}

function drawSides(summary) {
  const box = $("sides");
  box.replaceChildren();
  for (const side of summary.sides) {
    const panel = el("div", { class: "side", "data-side": side.name }, el("h3", {}, side.name));
    if (side.damage !== null) panel.append(el("div", { class: "damage" }, `damage ${side.damage}`));
    const numbers = Object.entries(side.numbers).map(([k, v]) => `${k.replaceAll("_", " ")} ${v}`);
    if (numbers.length) panel.append(el("div", { class: "numbers" }, numbers.join(" · ")));
    side.zones.filter((z) => z.count).forEach((z) => panel.append(zoneLine(z)));
    box.append(panel);
  }
  $("table").replaceChildren(...summary.table.filter((z) => z.count).map(zoneLine));
  const figures = Object.entries(summary.numbers).map(([k, v]) => `${k.replaceAll("_", " ")} ${v}`);
  $("numbers").textContent = figures.join(" · ");
}

let asked = null;

function drawQuestion(q) {
  const box = $("question");
  const key = q ? JSON.stringify(q) : null;
  if (key === asked) return;
  asked = key;
  box.hidden = !q;
  if (!q) return;
  box.className = "question " + q.kind;
  $("question-text").textContent = q.text;
  $("answered").textContent = "";
  $("choices").replaceChildren(...q.choices.map((c, i) => {
    const b = el("button", { type: "button", "data-key": i + 1 }, `${i + 1}  ${c}`);
    b.addEventListener("click", () => answer(i + 1, c));
    return b;
  }));
}

async function answer(key, label) {
  $("answered").textContent = `sent: ${key} ${label}`;
  const r = await fetch("/answer", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ key }),
  });
  if (!r.ok) $("answered").textContent = `refused: ${(await r.json()).error}`;
}

let frameShown = -1;
let loading = false;

function drawCamera(state) {
  const img = $("camera");
  $("no-camera").hidden = !!state.image;
  img.hidden = !state.image;
  if (state.image && !loading && state.frame !== frameShown) {
    loading = true;
    frameShown = state.frame;
    img.onload = img.onerror = () => { loading = false; };
    img.src = `/frame.jpg?f=${state.frame}`;
  }
  const seen = Object.entries(state.seen).map(([z, names]) => `${z}: ${names.join(" ")}`);
  $("seen").textContent = seen.length ? "seen: " + seen.join(" · ") : "";
}

function draw(state) {
  if (!state.summary) return;
  const s = state.summary;
  document.body.dataset.seq = state.seq;
  $("game").textContent = s.game.replaceAll("_", " ");
  $("now").textContent = s.now;
  $("status").textContent = state.status;
  drawCamera(state);
  drawQuestion(state.question);
  $("announcements").replaceChildren(...state.announcements.slice().reverse().map((a) =>
    el("li", { class: a.kind }, el("span", { class: "kind" }, a.kind), " ", a.text)));
  drawSides(s);
  $("legal-title").textContent = `Legal moves (${state.legal.length})`;
  $("legal").replaceChildren(...state.legal.map((m) => el("li", {}, m)));
  $("updated").textContent = `${state.time.toFixed(1)} s into the game`;
}

fetch("/state").then((r) => r.json()).then(draw);
const events = new EventSource("/events");
events.addEventListener("state", (e) => draw(JSON.parse(e.data)));

// The War table in the browser. It draws only what the server sends (the scene of war_env.views.scene, the
// buttons, the notice) and sends back button presses: {"type": "command", "command": ...}.
"use strict";

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const COURTS = new Set(["J", "Q", "K"]);
const KEYS = { " ": "turn", Enter: "turn", p: "autoplay", P: "autoplay", n: "new_round", N: "new_round" };
const MAX_LAYERS = 6;

const $ = (id) => document.getElementById(id);
const buttons = Array.from(document.querySelectorAll(".controls button"));
let socket = null;
let errorTimer = null;

// --- the connection -----------------------------------------------------------------------------
function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/ws`);
  socket.addEventListener("open", () => setConnection("Connected"));
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    setConnection("Disconnected: reload the page to play again");
    document.body.classList.add("disconnected");
    buttons.forEach((button) => button.setAttribute("aria-disabled", "true"));
  });
}

function setConnection(text) {
  $("connection").textContent = text;
}

function send(command) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ type: "command", command }));
  }
}

function receive(message) {
  if (message.type === "state") {
    draw(message);
  } else if (message.type === "hello") {
    fillGuide(message);
  } else if (message.type === "error") {
    showError(message.message);
  }
}

// --- input: mouse, touch, pen and keyboard ------------------------------------------------------
for (const button of buttons) {
  // pointerdown answers at once (mouse, touch and pen alike): a timing game should not wait for click.
  button.addEventListener("pointerdown", (event) => {
    if (event.pointerType === "mouse" && event.button !== 0) return;
    event.preventDefault();
    send(button.dataset.command);
  });
  // A click without a pointer (detail 0) is a keyboard activation of the focused button.
  button.addEventListener("click", (event) => {
    if (event.detail === 0) send(button.dataset.command);
  });
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "Enter" && event.target instanceof HTMLButtonElement) return; // that button's own click
  const command = KEYS[event.key];
  if (!command) return;
  event.preventDefault(); // Space would scroll the page, or click a focused button a second time
  if (!event.repeat) send(command);
});
document.addEventListener("keyup", (event) => {
  if (event.key === " ") event.preventDefault();
});

// --- drawing ------------------------------------------------------------------------------------
function draw(message) {
  const scene = message.scene;
  $("table").classList.toggle("waiting", message.waiting);
  scene.seats.forEach((seat) => drawSeat($(`seat-${seat.seat}`), seat));
  $("trick").textContent = scene.trick_text || "";
  $("stake").textContent = scene.at_war ? `The next face-up cards take all ${scene.pot}` : "";
  $("takeover").textContent = scene.popup ? "" : scene.takeover_note || "";
  if (!errorTimer) $("notice").textContent = message.notice || "";
  $("notice").classList.toggle("shown", Boolean(message.notice) || Boolean(errorTimer));
  drawPanels(scene);
  drawPopup(scene);
  message.controls.forEach((control) => drawButton(control));
}

function drawSeat(element, seat) {
  if (!element.firstElementChild) {
    element.append($("seat-template").content.cloneNode(true));
  }
  element.classList.toggle("turn", seat.turn);
  element.classList.toggle("taken-over", seat.taken_over);
  const part = (name) => element.querySelector(name);
  part(".initial").textContent = seat.name.slice(0, 1).toUpperCase();
  part(".name").textContent = seat.name;
  part(".points").textContent = `${seat.points} ${seat.points === 1 ? "pt" : "pts"}`;
  const falseStarts = part(".false-starts");
  falseStarts.hidden = seat.false_starts === 0;
  falseStarts.textContent = `${seat.false_starts} false start${seat.false_starts === 1 ? "" : "s"}`;
  part(".bot-badge").hidden = !seat.taken_over;
  part(".first-tag").hidden = !seat.starter;
  const ring = part(".ring");
  ring.style.setProperty("--share", seat.turn ? seat.timer_share : 0);
  ring.dataset.level = seat.timer_share > 0.5 ? "high" : seat.timer_share > 0.25 ? "mid" : "low";
  const pill = part(".turn-pill");
  pill.hidden = !seat.turn;
  pill.dataset.level = ring.dataset.level;
  pill.querySelector(".whose").textContent = seat.name === "You" ? "YOUR TURN" : `${seat.name.toUpperCase()}'S TURN`;
  pill.querySelector(".seconds").textContent = `${seat.seconds_left.toFixed(1)}s`;
  drawPile(part(".pile"), seat.pile);
  drawSpot(part(".spot"), seat);
  part(".bubble").hidden = !seat.war_bubble;
}

function drawPile(element, count) {
  const stack = element.querySelector(".stack");
  const layers = count === 0 ? 0 : Math.min(1 + Math.floor((count - 1) / 6), MAX_LAYERS);
  stack.replaceChildren(...Array.from({ length: layers }, (_, layer) => {
    const back = cardBack();
    back.style.setProperty("--layer", layer);
    return back;
  }));
  stack.classList.toggle("empty", count === 0);
  element.querySelector(".count").textContent = `${count} ${count === 1 ? "card" : "cards"}`;
}

function drawSpot(element, seat) {
  const cards = [];
  if (seat.face_up === null) {
    cards.push(slot());
  } else {
    for (let index = seat.backs_under; index > 0; index -= 1) {
      const back = cardBack();
      back.classList.add("under");
      back.style.setProperty("--index", Math.min(index, 4));
      cards.push(back);
    }
    const face = cardFace(seat.face_up);
    face.classList.toggle("won", seat.won_last_trick);
    cards.push(face);
  }
  for (let index = 0; index < seat.laid; index += 1) {
    const back = cardBack();
    back.classList.add("laid");
    back.style.setProperty("--index", index + 1);
    cards.push(back);
  }
  element.replaceChildren(...cards);
}

function cardFace(code) {
  const rank = code.slice(0, -1);
  const suit = code.slice(-1);
  const card = document.createElement("div");
  card.className = `card face ${suit === "H" || suit === "D" ? "red" : "black"}`;
  card.setAttribute("role", "img");
  card.setAttribute("aria-label", `${rank} of ${{ C: "clubs", D: "diamonds", H: "hearts", S: "spades" }[suit]}`);
  const corner = (where) => {
    const element = document.createElement("span");
    element.className = `corner ${where}`;
    element.append(rank, document.createElement("br"), SUITS[suit]);
    return element;
  };
  const pip = document.createElement("span");
  pip.className = COURTS.has(rank) ? "pip court" : rank === "A" ? "pip ace" : "pip";
  pip.textContent = COURTS.has(rank) ? `${rank}${SUITS[suit]}` : SUITS[suit];
  card.append(corner("tl"), pip, corner("br"));
  return card;
}

function cardBack() {
  const card = document.createElement("div");
  card.className = "card back";
  card.setAttribute("aria-hidden", "true");
  return card;
}

function slot() {
  const card = document.createElement("div");
  card.className = "card slot";
  return card;
}

function drawPanels(scene) {
  const board = scene.scoreboard;
  [0, 1].forEach((seat) => {
    $(`score-name-${seat}`).textContent = scene.names[seat];
    $(`score-${seat}`).textContent = board.rounds_won[seat];
  });
  $("score-draws").textContent = board.draws;
  const last = board.last_winner_name;
  $("last-winner").textContent = last === null ? "No round finished yet" : last === "Draw" ? "Last round: draw" : `Last winner: ${last}`;
  $("round-title").textContent = `Round ${scene.round_number}`;
  $("battle").textContent = `Battle ${scene.battle}${scene.max_battles === null ? "" : ` / ${scene.max_battles}`}`;
  $("goal").textContent = scene.target_points === null ? "Take all the cards" : `First to ${scene.target_points} points`;
  $("wars").textContent = `Wars ${scene.wars} · pot ${scene.pot}`;
}

function drawPopup(scene) {
  const popup = scene.popup;
  $("popup").hidden = popup === null;
  if (popup === null) return;
  const outcome = popup.winner === null ? "draw" : popup.winner === 0 ? "won" : "lost";
  $("popup").dataset.outcome = outcome;
  $("popup-headline").textContent = popup.headline;
  $("popup-reason").textContent = popup.reason_text;
  $("popup-details").textContent = popup.details;
  $("popup-takeover").textContent = popup.takeover_note || "";
  const rows = [];
  if (popup.earlier_rounds) {
    rows.push(row(["", `… ${popup.earlier_rounds} earlier rounds`, "", ""]));
  }
  popup.rows.forEach((result, index) => {
    const line = row([result.number, result.winner_name, result.reason_text, `${result.points[0]}-${result.points[1]}`]);
    line.dataset.winner = result.winner === null ? "draw" : result.winner;
    line.classList.toggle("latest", index === popup.rows.length - 1);
    rows.push(line);
  });
  $("popup-rows").replaceChildren(...rows);
  const board = scene.scoreboard;
  $("popup-totals").textContent =
    `${scene.names[0]} ${board.rounds_won[0]} · ${scene.names[1]} ${board.rounds_won[1]} · Draws ${board.draws}`;
}

function row(cells) {
  const line = document.createElement("tr");
  cells.forEach((text, index) => {
    const cell = document.createElement("td");
    cell.textContent = text;
    if (index === 3) cell.className = "num";
    line.append(cell);
  });
  return line;
}

function drawButton(control) {
  const button = document.querySelector(`.controls button[data-command="${control.command}"]`);
  button.querySelector(".label").textContent = control.label;
  button.querySelector(".hint").textContent = control.key_hint;
  // Greyed, but still pressable: a press outside your turn is the server's to judge (a false start).
  button.setAttribute("aria-disabled", String(!control.enabled));
}

function showError(text) {
  const notice = $("notice");
  notice.textContent = text;
  notice.classList.add("shown", "error");
  clearTimeout(errorTimer);
  errorTimer = setTimeout(() => {
    errorTimer = null;
    notice.classList.remove("error");
  }, 3000);
}

// --- the guide shows this table's rules ---------------------------------------------------------
function fillGuide(hello) {
  const rules = hello.rules;
  document.querySelectorAll("[data-rule]").forEach((element) => {
    const value = rules[element.dataset.rule];
    if (value !== null && value !== undefined) element.textContent = value;
  });
  document.querySelectorAll(".if-target-points").forEach((element) => { element.hidden = rules.target_points === null; });
  document.querySelectorAll(".if-max-battles").forEach((element) => { element.hidden = rules.max_battles === null; });
  $("opponent").textContent = hello.opponent;
}

connect();

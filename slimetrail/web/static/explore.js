// The opening explorer: the server's board and proven values (GET /api/explore) for the
// line clicked so far.
import { _, api } from "./common.js";

const root = document.getElementById("explorer");
const $ = (id) => document.getElementById(id);
const words = { win: _("wins"), loss: _("loses"), draw: _("draws") };
const players = JSON.parse(root.dataset.players);
const state = { rules: root.dataset.rules, start: root.dataset.start, moves: [], request: 0 };

async function load() {
  const request = ++state.request;
  $("explore-status").textContent = _("Solving\u2026");
  $("explore-values").replaceChildren();
  $("explore-moves").textContent = state.moves.join(" ");
  const query = new URLSearchParams({ rules: state.rules, start: state.start, moves: state.moves.join(" ") });
  let answer;
  try {
    answer = await api(`/api/explore?${query}`);
  } catch (exc) {
    if (request === state.request) $("explore-status").textContent = _("The explorer failed: {error}", { error: exc.message });
    return;
  }
  if (request !== state.request) return; // a later click wins
  show(answer);
}

function show(answer) {
  $("explore-board").innerHTML = answer.svg;
  const list = $("explore-values");
  list.replaceChildren();
  let values = answer.values;
  if (answer.over) {
    $("explore-status").textContent = _("The game is over.");
  } else if (answer.solved) {
    const values = { player: players[answer.to_move - 1], value: words[answer.value], plies: answer.plies };
    $("explore-status").textContent =
      answer.plies === null
        ? _("{player} to move {value} with best play.", values)
        : _("{player} to move {value} with best play (game length {plies} plies).", values);
  } else if (answer.atlas) {
    $("explore-status").textContent = _(
      "From the atlas: the winning first moves are shown; the solver did not answer in time.",
    );
    values = {};
    for (const move of answer.atlas.winning) values[move] = { value: "win", plies: null };
  } else {
    $("explore-status").textContent = _("Not solved within the explorer's time: {detail}.", { detail: answer.detail });
  }
  const order = { win: 0, draw: 1, loss: 2 };
  const entries = Object.entries(values).sort(
    (a, b) => order[a[1].value] - order[b[1].value] || (a[1].plies ?? 0) - (b[1].plies ?? 0),
  );
  for (const [move, { value, plies }] of entries) {
    const item = document.createElement("li");
    item.className = value;
    item.dataset.move = move;
    const button = document.createElement("button");
    button.type = "button";
    const said = { move, value: words[value], plies };
    button.textContent = plies === null ? _("{move} {value}", said) : _("{move} {value} in {plies} plies", said);
    button.addEventListener("click", () => play(move));
    item.append(button);
    list.append(item);
    const cell = $("explore-board").querySelector(`[data-cell="${move}"]`);
    if (cell) cell.classList.add(`value-${value}`);
  }
}

function play(move) {
  state.moves.push(move);
  load();
}

$("explore-board").addEventListener("click", (event) => {
  const cell = event.target.closest("[data-cell].legal");
  if (cell) play(cell.dataset.cell);
});
$("explore-back").addEventListener("click", () => {
  state.moves.pop();
  load();
});
$("explore-reset").addEventListener("click", () => {
  state.moves = [];
  load();
});
for (const id of ["explore-rules", "explore-start"]) {
  $(id).addEventListener("change", () => {
    state.rules = $("explore-rules").value;
    state.start = $("explore-start").value;
    state.moves = [];
    history.replaceState(null, "", `/explore?rules=${state.rules}&start=${state.start}`);
    load();
  });
}
load();

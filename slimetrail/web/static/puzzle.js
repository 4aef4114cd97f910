// Puzzles: the server's puzzle (GET /api/puzzles/next) played by clicks, a compound move
// click by click as on the play page (clicks.js, GET /api/puzzles/{id}/clicks), every move
// checked by the server (POST /api/puzzles/{id}/answer); the rating and progress are kept in
// this browser (localStorage).
import { Turn } from "./clicks.js";
import { _, api } from "./common.js";

const root = document.getElementById("puzzle");
const $ = (id) => document.getElementById(id);
const game = root.dataset.game;
const STORE = "slimetrail-puzzles";
const START_RATING = 1500;
// `svg` and `clicks`: the position the player moves from (after a wrong move: the one before it).
const state = { puzzle: null, line: [], before: null, failed: false, busy: false, done: false, svg: "", clicks: {} };
const turn = new Turn({
  url: (prefix) => {
    const query = new URLSearchParams({ moves: state.line.join(","), prefix: prefix.join(",") });
    return `/api/puzzles/${state.puzzle.id}/clicks?${query}`;
  },
  send: play,
  show: drawBoard,
  start: () => ({ clicks: state.clicks }),
  redraw: () => drawBoard(state.svg),
  fail: (message) => {
    $("puzzle-status").textContent = _("Something went wrong: {error}", { error: message });
  },
  refuse: (click) => {
    if (Object.keys(turn.clicks).length) {
      $("puzzle-status").textContent = _("{click} is not a legal move here", { click });
    }
  },
});

function progress() {
  let all = {};
  try {
    all = JSON.parse(localStorage.getItem(STORE)) || {};
  } catch {
    all = {};
  }
  return [all, all[game] || { rating: START_RATING, tried: [], solved: [] }];
}

function showProgress() {
  const [, mine] = progress();
  $("puzzle-rating").textContent = _("Your puzzle rating: {rating}", { rating: Math.round(mine.rating) });
  $("puzzle-progress").textContent = _("Solved {solved} of {tried} tried", { solved: mine.solved.length, tried: mine.tried.length });
}

// An Elo update against the puzzle's rating, once per puzzle: its first try counts.
function record(won) {
  const [all, mine] = progress();
  const id = state.puzzle.id;
  if (mine.tried.includes(id)) return;
  const expected = 1 / (1 + 10 ** ((state.puzzle.rating - mine.rating) / 400));
  const k = mine.tried.length < 20 ? 40 : 20;
  mine.rating += k * ((won ? 1 : 0) - expected);
  mine.tried.push(id);
  if (won) mine.solved.push(id);
  all[game] = mine;
  localStorage.setItem(STORE, JSON.stringify(all));
  showProgress();
}

function drawBoard(svg) {
  $("puzzle-board").innerHTML = svg;
  turn.mark($("puzzle-board"));
  const bar = { board: $("puzzle-board"), bar: $("actions-bar"), partial: $("partial"), toGo: $("to-go") };
  turn.renderBar({ ...bar, cancel: $("cancel") });
}

// A position: its board, what to say, and the clicks the player may start a move with.
function show(svg, status, clicks = {}) {
  turn.reset(clicks);
  drawBoard(svg);
  $("puzzle-status").textContent = status;
  $("puzzle-moves").textContent = state.line.join(" ");
}

function goal() {
  const player = state.puzzle.players[state.puzzle.to_move - 1];
  return state.puzzle.goal === "draw"
    ? _("{player} to move: find the only move that saves the draw.", { player })
    : _("{player} to move: find the only winning move.", { player });
}

async function load(id) {
  const [, mine] = progress();
  $("puzzle-status").textContent = _("Loading a puzzle…");
  $("puzzle-retry").hidden = true;
  const query = new URLSearchParams({ game, rating: Math.round(mine.rating), skip: mine.tried.slice(-100).join(",") });
  if (id) query.set("id", id);
  try {
    state.puzzle = await api(`/api/puzzles/next?${query}`);
  } catch (exc) {
    $("puzzle-status").textContent = _("Something went wrong: {error}", { error: exc.message });
    return;
  }
  Object.assign(state, { line: [], before: null, failed: false, done: false });
  Object.assign(state, { svg: state.puzzle.svg, clicks: state.puzzle.clicks });
  root.dataset.puzzle = state.puzzle.id;
  $("puzzle-info").textContent = _("Puzzle {id}, rated {rating}", { id: state.puzzle.id, rating: state.puzzle.rating });
  show(state.svg, goal(), state.clicks);
}

async function play(move) {
  if (state.busy || state.done || !$("puzzle-retry").hidden) return;
  state.busy = true;
  const line = [...state.line, move];
  let answer;
  try {
    answer = await api(`/api/puzzles/${state.puzzle.id}/answer`, { method: "POST", body: { moves: line } });
  } catch (exc) {
    $("puzzle-status").textContent = _("Something went wrong: {error}", { error: exc.message });
    return;
  } finally {
    state.busy = false;
  }
  if (answer.correct) {
    Object.assign(state, { line: answer.moves, svg: answer.svg, clicks: answer.clicks });
    if (answer.solved) {
      state.done = true;
      if (!state.failed) record(true);
      const move = answer.moves[line.length - 1];
      show(answer.svg, state.puzzle.goal === "draw" ? _("Solved! The draw is saved.") : _("Solved! {move} wins.", { move }));
    } else {
      show(answer.svg, _("Right! The computer answers {reply}. Your move.", { reply: answer.next }), state.clicks);
    }
    return;
  }
  if (!state.failed) record(false);
  state.failed = true;
  state.before = state.line;
  state.line = answer.moves;
  const wrong = answer.moves[line.length - 1];
  const said = answer.refutation
    ? _("{move} loses: the computer answers {reply}. Try again.", { move: wrong, reply: answer.refutation })
    : _("{move} loses at once. Try again.", { move: wrong });
  show(answer.svg, said);
  root.dataset.result = "wrong";
  $("puzzle-retry").hidden = false;
}

$("puzzle-board").addEventListener("click", (event) => {
  const cell = event.target.closest("[data-cell]");
  if (cell && state.puzzle && !state.busy) turn.click(cell.dataset.cell);
});
$("cancel").addEventListener("click", () => turn.cancel());
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && turn.picking()) turn.cancel();
});
$("puzzle-retry").addEventListener("click", () => {
  state.line = state.before;
  $("puzzle-retry").hidden = true;
  delete root.dataset.result;
  show(state.svg, goal(), state.clicks);
});
$("puzzle-next").addEventListener("click", () => load());
showProgress();
load(new URLSearchParams(location.search).get("id"));

// Puzzles: the server's puzzle (GET /api/puzzles/next) played by clicks, every move checked
// by the server (POST /api/puzzles/{id}/answer); the rating and progress are kept in this
// browser (localStorage).
import { _, api } from "./common.js";

const root = document.getElementById("puzzle");
const $ = (id) => document.getElementById(id);
const game = root.dataset.game;
const STORE = "slimetrail-puzzles";
const START_RATING = 1500;
const state = { puzzle: null, line: [], before: null, failed: false, busy: false, done: false };

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

function show(svg, status) {
  $("puzzle-board").innerHTML = svg;
  $("puzzle-status").textContent = status;
  $("puzzle-moves").textContent = state.line.join(" ");
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
  root.dataset.puzzle = state.puzzle.id;
  $("puzzle-info").textContent = _("Puzzle {id}, rated {rating}", { id: state.puzzle.id, rating: state.puzzle.rating });
  show(state.puzzle.svg, _("{player} to move: find the only winning move.", { player: state.puzzle.players[state.puzzle.to_move - 1] }));
  state.svg = state.puzzle.svg;
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
    state.line = answer.moves;
    state.svg = answer.svg;
    if (answer.solved) {
      state.done = true;
      if (!state.failed) record(true);
      show(answer.svg, _("Solved! {move} wins.", { move: line[line.length - 1] }));
    } else {
      show(answer.svg, _("Right! The computer answers {reply}. Your move.", { reply: answer.next }));
    }
    return;
  }
  if (!state.failed) record(false);
  state.failed = true;
  state.before = state.line;
  state.line = answer.moves;
  const wrong = answer.refutation
    ? _("{move} loses: the computer answers {reply}. Try again.", { move, reply: answer.refutation })
    : _("{move} loses at once. Try again.", { move });
  show(answer.svg, wrong);
  root.dataset.result = "wrong";
  $("puzzle-retry").hidden = false;
}

$("puzzle-board").addEventListener("click", (event) => {
  const cell = event.target.closest("[data-cell].legal");
  if (cell) play(cell.dataset.cell);
});
$("puzzle-retry").addEventListener("click", () => {
  state.line = state.before;
  $("puzzle-retry").hidden = true;
  delete root.dataset.result;
  show(state.svg, _("{player} to move: find the only winning move.", { player: state.puzzle.players[state.puzzle.to_move - 1] }));
});
$("puzzle-next").addEventListener("click", () => load());
showProgress();
load(new URLSearchParams(location.search).get("id"));

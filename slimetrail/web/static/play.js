// The play page, generic over games. The board is the server's SVG (`svg` in the match
// JSON, replaced on every update); this script only handles interaction: clicks on cells and
// action buttons (a compound move click by click, the next legal clicks fetched from the
// server as the player goes), the keyboard, the move list, live updates.
import { Turn } from "./clicks.js";
import { _, api, setupImport } from "./common.js";

const SVG = "http://www.w3.org/2000/svg";
const VALUE_WORDS = { win: _("wins"), loss: _("loses"), draw: _("draws") };

const root = document.getElementById("play");
const $ = (id) => document.getElementById(id);

const page = {
  id: root.dataset.match,
  token: root.dataset.seat,
  levels: JSON.parse(root.dataset.levels || "{}"),
  match: null,
  viewPly: null, // null: the live position; a number: browsing history
  views: new Map(), // ply -> {svg} of past positions, for history browsing
  focus: null, // cell name under the keyboard focus
  hovered: null, // cell name under the pointer
  analysis: null, // {key, result}
  hint: null, // {key, move}: the suggested move for the position `key`
  review: null, // {key, result}: the review of the moves `key` (GET .../review)
  navigation: 0, // counts move-list navigations and click fetches (a later one wins)
  busy: false,
  keyboard: false, // a key pressed since the last pointer press: focus marks are for them
  socket: null,
  socketOpen: false,
  retry: 0,
  pollTimer: null,
  clockAt: 0, // performance.now() when the match's clocks were read
  flagAsked: false, // a refresh asked once the running clock showed zero
};

// The turn under way, click by click (the clicks made, the legal next ones).
const turn = new Turn({
  url: (prefix) => {
    const seat = encodeURIComponent(page.token);
    return `/api/matches/${page.id}/clicks?seat=${seat}&prefix=${encodeURIComponent(prefix.join(","))}`;
  },
  send: sendMove,
  show: showBoard,
  start: () => ({ clicks: page.match.clicks || {}, losing: page.match.losing || [] }),
  redraw: () => page.viewPly === null && showBoard(page.match.svg),
  fail: (message) => {
    $("move-error").textContent = message;
  },
  refuse: (click) => {
    $("board-note").textContent = refusalText(click);
  },
  current: (answer) => answer.ply === page.match.ply,
});

// ---------------------------------------------------------------- the board

function cellNodes() {
  return [...$("board").querySelectorAll("[data-cell]")];
}

function cellNode(name) {
  return [...$("board").querySelectorAll("[data-cell]")].find((n) => n.dataset.cell === name);
}

// The server's SVG for the shown position, with the interaction marked on it: the cells that
// may be clicked next, the cells already picked for a compound move, the keyboard focus.
function showBoard(svg) {
  $("board").innerHTML = svg;
  $("loading").hidden = true;
  const live = page.viewPly === null;
  turn.mark($("board"), live);
  drawAnalysisBadges();
  drawWarnings(live);
  drawTurningPoint();
  const hinted = page.hint && page.hint.key === analysisKey() ? page.hint.move : null;
  for (const node of cellNodes()) node.classList.toggle("hint", node.dataset.cell === hinted);
  drawFocus();
  renderClickBar();
}

function centre(node) {
  const box = node.getBBox();
  return [box.x + box.width / 2, box.y + box.height / 2];
}

function drawFocus() {
  for (const node of $("board").querySelectorAll("[data-cell].focus")) node.classList.remove("focus");
  if (page.keyboard && document.activeElement === $("board")) {
    cellNode(page.focus)?.classList.add("focus");
  }
  drawNames();
}

// The cells carry no names (the coordinates are on the board's edges): the cell under the
// pointer and the one with the keyboard focus show theirs over any token on them.
function drawNames() {
  const focused = $("board").querySelector("[data-cell].focus")?.dataset.cell;
  for (const text of $("board").querySelectorAll(".names text")) {
    const name = text.dataset.name;
    text.classList.toggle("named", name === page.hovered || name === focused);
  }
}

function svgEl(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---------------------------------------------------------------- clicks and actions

// The turn's buttons and what is picked so far (clicks.js), and Resign.
function renderClickBar() {
  const match = page.match;
  const bar = { board: $("board"), bar: $("actions-bar"), partial: $("partial"), toGo: $("to-go") };
  turn.renderBar({ ...bar, cancel: $("cancel") }, page.viewPly === null);
  const mine = match && mySeats(match).length > 0;
  $("resign").hidden = !mine || Boolean(match && match.outcome);
}

async function clickOn(click) {
  if (page.viewPly !== null || page.busy) return;
  $("move-error").textContent = "";
  $("board-note").textContent = "";
  await turn.click(click);
}

// Why a click does nothing: said under the board, where the player is looking.
function refusalText(click) {
  const match = page.match;
  if (match.outcome) return _("The game is over.");
  const mine = mySeats(match);
  if (mine.length === 0) return _("You are watching this game: only the players can move.");
  if (match.thinking) return _("Not your turn: the computer is thinking.");
  if (!mine.includes(match.to_move)) {
    return _("Not your turn: waiting for {player}.", { player: playerName(match, match.to_move) });
  }
  const why = (match.refusals || {})[click] || _("{click} is not a legal move here", { click });
  return `${why}.`;
}

function cancelPartial() {
  page.navigation++;
  turn.cancel();
}

// ---------------------------------------------------------------- analysis

function displayedMoves() {
  const moves = page.match.moves;
  return page.viewPly === null ? moves : moves.slice(0, page.viewPly);
}

function analysisKey() {
  return displayedMoves().join(" ");
}

function drawAnalysisBadges() {
  const analysis = page.analysis;
  if (!analysis || analysis.key !== analysisKey() || !analysis.result.solved) return;
  const svg = $("board").querySelector("svg");
  for (const [move, value] of Object.entries(analysis.result.moves || {})) {
    const node = cellNode(move);
    if (!node) continue;
    const box = node.getBBox();
    const r = Math.min(box.width, box.height) * 0.17;
    const [x, y] = [box.x + box.width * 0.78, box.y + box.height * 0.22];
    const badge = svgEl("g", { class: `badge ${value}`, "pointer-events": "none" });
    // A thin outline of its own: the board's stroke width would ring the cell around it.
    badge.append(svgEl("circle", { cx: x, cy: y, r, "stroke-width": r * 0.2 }));
    badge.append(
      svgEl("text", { x, y: y + r * 0.4, "font-size": r * 1.2 }, value[0].toUpperCase()),
    );
    svg.append(badge);
  }
}

// A move that loses at once gets a warning sign in its cell's corner, above the tokens (so
// a goal's number stays readable and the sign is not hidden by the goal's outline).
function drawWarnings(live) {
  if (!live) return;
  const svg = $("board").querySelector("svg");
  for (const name of turn.losing) {
    const node = cellNode(name);
    if (!node) continue;
    const box = node.getBBox();
    const r = Math.min(box.width, box.height) * 0.17;
    const [x, y] = [box.x + box.width * 0.26, box.y + box.height * 0.26];
    const sign = svgEl("g", { class: "warning", "data-for": name, "pointer-events": "none" });
    const points = [[x, y - r], [x + r * 1.1, y + r * 0.8], [x - r * 1.1, y + r * 0.8]];
    sign.append(svgEl("polygon", { points: points.map((p) => p.join(",")).join(" ") }));
    sign.append(svgEl("text", { x, y: y + r * 0.62, "font-size": r * 1.3 }, "!"));
    svg.append(sign);
  }
}

// ---------------------------------------------------------------- the review

// The review's entry for the move that led to `ply`, if the review is of these moves.
function reviewEntry(ply) {
  const review = page.review;
  if (!review || review.key !== page.match.moves.join(" ")) return null;
  return review.result.plies[ply - 1] || null;
}

async function review() {
  const box = $("review-box");
  box.hidden = false;
  $("review-summary").textContent = _("Reviewing the game\u2026");
  $("review-graph").replaceChildren();
  $("review").disabled = true;
  const key = page.match.moves.join(" ");
  try {
    const result = await api(`/api/matches/${page.id}/review`);
    page.review = { key, result };
    renderReview();
    renderMoveList();
    redraw();
  } catch (exc) {
    $("review-summary").textContent = _("The review failed: {error}", { error: exc.message });
  } finally {
    $("review").disabled = false;
  }
}

function renderReview() {
  const review = page.review;
  const box = $("review-box");
  if (!review || review.key !== page.match.moves.join(" ")) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const graph = $("review-graph");
  if (!graph.firstChild) graph.innerHTML = review.result.graph;
  const shown = page.viewPly === null ? page.match.ply : page.viewPly;
  for (const hit of graph.querySelectorAll(".ply-hit")) {
    hit.classList.toggle("current", Number(hit.dataset.ply) === shown);
  }
  const turning = review.result.plies.filter((entry) => entry.turning).length;
  $("review-summary").textContent = _("Turning points: {count}. Click the graph or a move to see it.", {
    count: turning,
  });
  const entry = reviewEntry(shown);
  const detail = $("review-detail");
  detail.replaceChildren();
  if (!entry) return;
  const lines = [
    _("Move {ply}, {move}: {verdict}.", { ply: entry.ply, move: entry.move, verdict: entry.verdict_text || "-" }),
  ];
  if (entry.proven && entry.turning && entry.winning_moves.length) {
    lines.push(_("Winning moves instead: {moves}.", { moves: entry.winning_moves.join(" ") }));
  }
  if (entry.length_text) lines.push(entry.length_text);
  if (!entry.proven && entry.eval[String(entry.mover)] !== undefined) {
    const percent = Math.round(entry.eval[String(entry.mover)] * 100);
    lines.push(_("{name}'s chances after the move: {percent}%.", { name: playerName(page.match, entry.mover), percent }));
  }
  detail.textContent = lines.join(" ");
}

// A turning point on the board: the cells of the move that led to the shown position,
// ringed; the winning moves it passed over get a small mark.
function drawTurningPoint() {
  const shown = page.viewPly === null ? page.match.ply : page.viewPly;
  const entry = reviewEntry(shown);
  if (!entry || !entry.turning) return;
  const svg = $("board").querySelector("svg");
  const cells = entry.move.match(/[a-z]+\d+/g) || [];
  for (const name of cells) {
    const node = cellNode(name);
    if (!node) continue;
    const box = node.getBBox();
    const r = Math.min(box.width, box.height) * 0.46;
    svg.append(
      svgEl("circle", {
        class: "turning-mark",
        "data-for": name,
        cx: box.x + box.width / 2,
        cy: box.y + box.height / 2,
        r,
        "pointer-events": "none",
      }),
    );
  }
}

async function analyse() {
  const key = analysisKey();
  const box = $("analysis");
  box.hidden = false;
  box.textContent = _("Analysing\u2026");
  $("analyse").disabled = true;
  try {
    const result = await api("/api/analyse", {
      method: "POST",
      body: { game: page.match.game, options: page.match.options, moves: displayedMoves() },
    });
    page.analysis = { key, result };
    showAnalysis();
    redraw();
  } catch (exc) {
    box.textContent = _("Analysis failed: {error}", { error: exc.message });
  } finally {
    $("analyse").disabled = false;
  }
}

function showAnalysis() {
  const box = $("analysis");
  const analysis = page.analysis;
  if (!analysis || analysis.key !== analysisKey()) {
    box.hidden = true;
    return;
  }
  const r = analysis.result;
  box.hidden = false;
  box.replaceChildren();
  const head = document.createElement("p");
  if (!r.solved) {
    const detail = r.detail || _("not solved in time");
    head.textContent = _("Could not solve this position exactly: {detail}.", { detail });
    box.append(head);
    if (r.engine) box.append(engineParagraph(r));
    return;
  }
  const mover = playerName(page.match, r.to_move || 1);
  const known = r.plies !== null && r.plies !== undefined;
  const values = { player: mover, value: VALUE_WORDS[r.value], plies: r.plies };
  if (!r.value) head.textContent = _("The game is over.");
  else if (known) head.textContent = _("{player} to move {value} with best play (game length {plies} plies).", values);
  else head.textContent = _("{player} to move {value} with best play.", values);
  box.append(head);
  const list = document.createElement("ul");
  list.className = "move-values";
  const order = { win: 0, draw: 1, loss: 2 };
  const entries = Object.entries(r.moves || {}).sort((a, b) => order[a[1]] - order[b[1]]);
  for (const [move, value] of entries) {
    const item = document.createElement("li");
    item.className = value;
    item.innerHTML = `<span class="tag" aria-hidden="true"></span><span class="what"></span>`;
    // The value word's first letter in the page's language (W, L, D in English).
    item.querySelector(".tag").textContent = VALUE_WORDS[value][0].toUpperCase();
    item.querySelector(".what").textContent = _("{move} {value}", { move, value: VALUE_WORDS[value] });
    list.append(item);
  }
  box.append(list);
}

// The engine's estimate where the exact solver gave up: its move, score and line.
function engineParagraph(r) {
  const e = r.engine;
  const mover = playerName(page.match, r.to_move || 1);
  const p = document.createElement("p");
  p.className = "engine";
  let judged;
  if (e.proven) judged = _("{player} {value} (proven by the search)", { player: mover, value: VALUE_WORDS[e.proven] });
  else if (e.score !== null && e.score !== undefined) {
    judged = _("score {score} for {player}", { score: `${e.score > 0 ? "+" : ""}${e.score}`, player: mover });
  } else if (e.value !== null && e.value !== undefined) {
    judged = _("{player} expected to score {percent}%", { player: mover, percent: Math.round(e.value * 100) });
  } else judged = _("no score");
  const depth = e.depth ? _(", depth {depth}", { depth: e.depth }) : "";
  const line = e.pv && e.pv.length > 1 ? _("; expected line {moves}", { moves: e.pv.join(" ") }) : "";
  p.textContent = _("The engine's view{depth}: best move {move}, {judged}{line}.", { depth, move: e.best, judged, line });
  return p;
}

// The best move by the exact values where solved, else the engine's choice.
function bestMove(r) {
  if (r.solved) {
    for (const value of ["win", "draw", "loss"]) {
      const found = Object.entries(r.moves || {}).find(([, v]) => v === value);
      if (found) return { move: found[0], why: _("{value} with best play", { value: VALUE_WORDS[value] }) };
    }
    return null;
  }
  return r.engine ? { move: r.engine.best, why: _("the engine's choice") } : null;
}

async function hint() {
  const key = analysisKey();
  const text = $("hint-text");
  text.hidden = false;
  text.textContent = _("Looking for a good move\u2026");
  $("hint").disabled = true;
  try {
    const result = await api("/api/analyse", {
      method: "POST",
      body: { game: page.match.game, options: page.match.options, moves: displayedMoves() },
    });
    if (key !== analysisKey()) return; // the position changed meanwhile
    const best = bestMove(result);
    page.hint = best ? { key, move: best.move } : null;
    text.textContent = best
      ? _("Hint: {move} ({why}).", { move: best.move, why: best.why })
      : _("No hint: the game is over.");
    redraw();
  } catch (exc) {
    text.textContent = _("No hint: {error}", { error: exc.message });
  } finally {
    $("hint").disabled = false;
  }
}

// ---------------------------------------------------------------- panel

function mySeats(match) {
  return match.seats || [];
}

function playerName(match, player) {
  return match.players[player - 1].name;
}

function joinNames(names) {
  if (names.length < 2) return names.join("");
  const comma = _(", ");
  return _("{names} and {last}", { names: names.slice(0, -1).join(comma), last: names[names.length - 1] });
}

// The sentence comes from the server (the game declares its endings): no ending is known here.
function describeOutcome(match) {
  const o = match.outcome;
  const mine = mySeats(match);
  const note = match.forfeit_note ? ` ${match.forfeit_note}.` : "";
  // A game aborted before everybody arrived has no result to show.
  if (o.reason === "aborted") return { head: _("Aborted"), detail: match.result_sentence };
  const detail = `${match.result_sentence}${note} (${o.result})`;
  if (o.places.every((place) => place === 1)) return { head: _("Draw"), detail };
  const first = match.players.filter((p) => p.place === 1);
  const names = joinNames(first.map((p) => p.name));
  let head = first.length === 1 ? _("{names} wins", { names }) : _("{names} share first place", { names });
  if (mine.length === 1) {
    const me = match.players[mine[0] - 1];
    head = { win: _("You win!"), draw: _("You share first place") }[me.result] || _("You lose");
  }
  return { head, detail };
}

function statusText(match) {
  if (match.outcome) return describeOutcome(match).detail;
  const out = match.players.filter((p) => p.out).map((p) => p.name);
  let outText = "";
  if (out.length) {
    const names = joinNames(out);
    outText = (out.length === 1 ? _("{names} is out.", { names }) : _("{names} are out.", { names })) + " ";
  }
  return renamedText(match) + outText + moverText(match);
}

// What a player did with an action, in the game's words ("swapped colours").
function actionWords(match, move) {
  return (match.action_words || {})[move] || null;
}

// After a move that renamed the players (a swap: they wear each other's colours now), who
// made it and who plays what now: "The computer swapped colours: you now play White. ".
function renamedText(match) {
  const renamed = match.renamed || [];
  if (renamed.length === 0 || match.ply === 0) return "";
  const mover = match.movers[match.ply - 1];
  const move = match.moves[match.ply - 1];
  const mine = mySeats(match);
  const one = mine.length === 1 ? mine[0] : null;
  let who = _("Player {number}", { number: mover });
  if (one === mover) who = _("You");
  else if (match.players[mover - 1].kind === "computer") who = _("The computer");
  else if (one !== null) who = _("Your opponent");
  const me = renamed.find((r) => r.player === one);
  const now = me
    ? _("you now play {name}", { name: me.now })
    : renamed.map((r) => _("player {number} now plays {name}", { number: r.player, name: r.now })).join(_(", "));
  const did = actionWords(match, move) || _("played {move}", { move });
  return _("{who} {did}: {now}.", { who, did, now }) + " ";
}

// Who is to move and, where the game's turns have steps, how many ("Green to move 3 snakes").
function moverText(match) {
  const name = playerName(match, match.to_move);
  const steps = match.steps ? match.steps.text : "";
  const said = { name, steps };
  const mine = mySeats(match);
  if (match.thinking) return steps ? _("{name} (computer) to move {steps}.", said) : _("{name} (computer) to move.", said);
  if (mine.includes(match.to_move)) {
    if (mine.length > 1) return steps ? _("{name} to move {steps}.", said) : _("{name} to move.", said);
    return steps ? _("Your move ({name}): move {steps}.", said) : _("Your move ({name}).", said);
  }
  if (mine.length === 0) {
    return steps ? _("{name} to move {steps}. You are watching.", said) : _("{name} to move. You are watching.", said);
  }
  return steps ? _("Waiting for {name} to move {steps}\u2026", said) : _("Waiting for {name}\u2026", said);
}

function lightness(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

// Whether dark ink reads better on the colour ``hex`` (#rrggbb) than light ink: White's or
// yellow's chip (the renderer's rule for text on a player's colour).
function lightColour(hex) {
  return lightness(hex) > 140;
}

// A player's colour for lines on the light page: too pale a colour (White's) is drawn dark,
// as the renderer draws it on the board.
function lineColour(hex) {
  return lightness(hex) > 200 ? "var(--colour-stone-outline)" : hex;
}

function playerBar(match, p) {
  const bar = document.createElement("div");
  bar.className = `player p${p.player}`;
  bar.dataset.player = String(p.player);
  bar.style.setProperty("--colour", p.colour);
  bar.style.setProperty("--player-line", lineColour(p.colour));
  if (p.to_move) bar.classList.add("to-move");
  if (p.result) bar.classList.add(p.result);
  if (p.out) bar.classList.add("out");
  const chip = document.createElement("span");
  chip.className = lightColour(p.colour) ? "chip on-light" : "chip";
  chip.textContent = String(p.player);
  chip.title = p.colour_word;
  const name = document.createElement("span");
  name.className = "name";
  let who = p.name;
  let role = null;
  if (p.kind === "computer") role = _("computer, level {level}", { level: p.level });
  else if (p.kind === "bot") role = _("bot {name}", { name: p.bot });
  else if (p.you && mySeats(match).length === 1) role = _("you");
  if (role) who += ` \u00b7 ${role}`;
  name.textContent = who;
  const note = document.createElement("span");
  note.className = "note";
  // Two players: the other one simply lost; more: the place tells how far down.
  const lost = match.players.length === 2 ? _("lost") : _("place {place}", { place: p.place });
  if (p.result) note.textContent = { win: _("wins"), draw: _("first (shared)"), loss: lost }[p.result];
  else if (p.out) note.textContent = _("out");
  else if (p.to_move) note.textContent = match.thinking ? _("thinking\u2026") : _("to move");
  bar.append(chip, name, note);
  if (match.clock) {
    const clock = document.createElement("span");
    clock.className = "clock";
    clock.id = `clock-${p.player}`;
    clock.setAttribute("role", "timer");
    clock.setAttribute("aria-label", _("{name}'s clock", { name: p.name }));
    bar.append(clock);
  }
  return bar;
}

// A clock's time: days and hours for correspondence, minutes and seconds, tenths under ten
// seconds.
function clockText(ms) {
  const left = Math.max(0, ms);
  const seconds = Math.floor(left / 1000);
  if (seconds >= 86400) return `${Math.floor(seconds / 86400)}d ${Math.floor((seconds % 86400) / 3600)}h`;
  if (seconds >= 3600) {
    const m = String(Math.floor((seconds % 3600) / 60)).padStart(2, "0");
    return `${Math.floor(seconds / 3600)}:${m}:${String(seconds % 60).padStart(2, "0")}`;
  }
  if (left < 10000) return `${seconds}.${Math.floor((left % 1000) / 100)}`;
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

// Both clocks, the running one counted down from when the server read it; low time warned.
// The server ends a game whose flag falls: at zero the page asks for the match once.
function tickClocks() {
  const clock = page.match && page.match.clock;
  if (!clock) return;
  clock.remaining_ms.forEach((ms, index) => {
    const player = index + 1;
    const node = $(`clock-${player}`);
    if (!node) return;
    const running = clock.running === player;
    const left = running ? ms - (performance.now() - page.clockAt) : ms;
    const text = clockText(left);
    if (node.textContent !== text) node.textContent = text;
    node.classList.toggle("running", running);
    node.classList.toggle("low", left < clock.low_ms);
    if (running && left <= 0 && !page.flagAsked) {
      page.flagAsked = true;
      setTimeout(refresh, 500);
    }
  });
}

// Whose turn, where a player looks: the tab title, and a banner over the board.
function turnText(match) {
  if (match.outcome) return { text: describeOutcome(match).head, mine: false };
  const name = playerName(match, match.to_move);
  if (match.thinking) return { text: _("{name} (computer) is thinking\u2026", { name }), mine: false };
  if (mySeats(match).includes(match.to_move)) {
    return { text: mySeats(match).length === 1 ? _("Your move") : _("{name} to move", { name }), mine: true };
  }
  return { text: _("{name} to move", { name }), mine: false };
}

function renderTurn(match) {
  const turn = turnText(match);
  const mineOnly = turn.mine && mySeats(match).length === 1;
  const yours = mineOnly ? _("(Your move)") + " " : "";
  document.title = `${yours}${match.title} \u2014 Slimetrail`;
  const banner = $("turn-banner");
  banner.hidden = false;
  const said = match.steps && !match.outcome ? `${turn.text} \u00b7 ${match.steps.text}` : turn.text;
  // A swap is said over the board too: on a phone the status box is out of sight.
  banner.textContent = match.outcome ? said : renamedText(match) + said;
  banner.classList.toggle("mine", turn.mine);
  banner.classList.toggle("over", Boolean(match.outcome));
  const mover = match.outcome ? null : match.players[match.to_move - 1];
  banner.style.setProperty("--colour", mover ? lineColour(mover.colour) : "var(--line)");
}

function renderPanel() {
  const match = page.match;
  renderTurn(match);
  $("title").textContent = match.title;
  const kinds = {
    computer: _("against the computer"),
    hotseat: _("on one device"),
    friend: _("between friends"),
    bot: _("against a bot"),
  };
  const against = kinds[match.opponent] || match.opponent;
  $("subtitle").textContent = [match.options_words, against].filter(Boolean).join(" \u00b7 ");
  $("rules-link").href = `/rules/${match.game}`;
  $("rules-link").textContent = _("Rules of {game}", { game: match.title });
  $("players").replaceChildren(...match.players.map((p) => playerBar(match, p)));

  const status = statusText(match);
  if ($("status").textContent !== status) $("status").textContent = status;
  // Once the game is over the result box shows it; the live region still announces it.
  $("status").classList.toggle("sr-only", Boolean(match.outcome));
  $("thinking").hidden = !match.thinking;
  $("clock-wait").hidden = !(match.clock && match.clock.waiting);
  const result = $("result");
  if (match.outcome) {
    const { head, detail } = describeOutcome(match);
    result.hidden = false;
    result.className = `result ${match.outcome.winner ? "decided" : "draw"}`;
    const winner = match.outcome.winner ? match.players[match.outcome.winner - 1] : null;
    result.style.setProperty("--colour", winner ? lineColour(winner.colour) : "var(--draw)");
    result.innerHTML = "<strong></strong><span></span>";
    result.querySelector("strong").textContent = head;
    result.querySelector("span").textContent = ` ${detail}`;
  } else {
    result.hidden = true;
  }
  const mine = mySeats(match).length > 0;
  $("rematch").hidden = !(match.outcome && mine && !match.rematch);
  const ready = $("rematch-ready");
  ready.hidden = !match.rematch;
  if (match.rematch) ready.querySelector("a").href = match.rematch;

  const canMove = Object.keys(match.clicks || {}).length > 0;
  $("move-form").hidden = !mine;
  $("move-input").disabled = !canMove || page.viewPly !== null;
  const undo = $("undo");
  undo.hidden = !mine || match.opponent === "friend" || match.opponent === "bot" || Boolean(match.clock);
  undo.disabled = !match.can_undo || Boolean(match.outcome);
  // A game on one device (an imported record, say) may be carried on against the computer.
  $("hint").hidden = !(mySeats(match).includes(match.to_move) && !match.outcome && !match.thinking);
  if (!page.hint || page.hint.key !== analysisKey()) $("hint-text").hidden = true;
  $("continue").hidden = !(match.opponent === "hotseat" && mine && !match.outcome);
  // Open once the game is over, or at once where one person plays every side.
  $("review").hidden = !(match.outcome || match.opponent === "hotseat");

  renderMoveList();
  renderLinks();
  renderNewGameForm();
  $("export-pgn").href = `/api/matches/${page.id}/record?format=pgn`;
  $("export-json").href = `/api/matches/${page.id}/record?format=json`;
  $("export-review").href = `/api/matches/${page.id}/record?format=pgn&review=1`;
  $("export-review").hidden = $("review").hidden;
  showAnalysis();
  renderReview();
}

function renderMoveList() {
  const match = page.match;
  const list = $("move-list");
  list.replaceChildren();
  const current = page.viewPly === null ? match.ply : page.viewPly;
  const n = match.players.length;
  for (let i = 0; i < match.moves.length; i += n) {
    const row = document.createElement("li");
    for (let j = i; j < Math.min(i + n, match.moves.length); j++) {
      const button = document.createElement("button");
      button.type = "button";
      const mover = match.movers[j];
      button.className = `mv p${mover}`;
      // The colour the move was played in (a swap later changes the player's, not the move's).
      button.style.setProperty("--colour", match.move_colours[j]);
      // White's bar on the white panel is drawn as an outline (two dark lines).
      if (lineColour(match.move_colours[j]) !== match.move_colours[j]) button.classList.add("pale");
      button.textContent = match.moves[j];
      button.dataset.ply = String(j + 1);
      button.title = `${playerName(match, mover)}: ${match.moves[j]}`;
      const verdict = reviewEntry(j + 1);
      if (verdict && verdict.verdict) {
        button.dataset.verdict = verdict.verdict;
        button.title += ` (${verdict.verdict_text})`;
        button.classList.toggle("turning", verdict.turning);
      }
      if (j + 1 === current) {
        button.setAttribute("aria-current", "step");
        button.classList.add("current");
      }
      button.addEventListener("click", () => goTo(j + 1));
      row.append(button);
      if (verdict && verdict.turning) {
        const note = document.createElement("span");
        note.className = "mv-verdict";
        note.textContent = verdict.verdict_text;
        row.append(note);
      }
      const words = actionWords(match, match.moves[j]);
      if (words) {
        const note = document.createElement("span");
        note.className = "mv-note";
        note.textContent = words;
        row.append(note);
      }
    }
    list.append(row);
  }
  const currentButton = list.querySelector(".current");
  if (currentButton) list.scrollTop = currentButton.offsetTop - list.clientHeight / 2;
  const viewing = $("viewing");
  viewing.hidden = page.viewPly === null;
  viewing.textContent =
    page.viewPly === null
      ? ""
      : _("Viewing after move {ply} of {last}. Press End to return.", { ply: page.viewPly, last: match.ply });
  $("nav-first").disabled = current === 0;
  $("nav-prev").disabled = current === 0;
  $("nav-next").disabled = current >= match.ply;
  $("nav-last").disabled = current >= match.ply;
}

function renderLinks() {
  const match = page.match;
  const list = $("link-list");
  list.replaceChildren();
  const mine = mySeats(match);
  for (const [key, url] of Object.entries(match.links || {})) {
    let label;
    if (key === "watch") label = _("Spectator link");
    else if (mine.length === 1 && +key === mine[0]) label = _("Your seat (keep it to come back)");
    else if (mine.includes(+key)) label = _("Seat of {player}", { player: playerName(match, +key) });
    else label = _("Invite {player}", { player: playerName(match, +key) });
    const row = document.createElement("div");
    row.className = "link-row";
    const id = `link-${key}`;
    row.innerHTML = `<label for="${id}"></label><div class="row"><input readonly id="${id}"><button type="button"></button></div>`;
    row.querySelector("label").textContent = label;
    const input = row.querySelector("input");
    input.value = new URL(url, window.location.origin).href;
    input.dataset.link = key;
    const button = row.querySelector("button");
    button.textContent = _("Copy");
    button.addEventListener("click", async () => {
      input.select();
      try {
        await navigator.clipboard.writeText(input.value);
      } catch {
        document.execCommand("copy"); // insecure origins have no clipboard API
      }
      button.textContent = _("Copied");
      setTimeout(() => { button.textContent = _("Copy"); }, 1500);
    });
    list.append(row);
  }
  $("links").hidden = list.children.length === 0;
  const invited = match.players.some((p) => p.kind === "human" && !p.you);
  if (invited && !$("links").dataset.opened) {
    // Open once for games with a friend by link (the invite is the point, computers or not);
    // the player may close it.
    $("links").dataset.opened = "1";
    $("links").open = true;
    $("links").classList.add("invite");
  }
}

function renderNewGameForm() {
  const form = $("new-game-form");
  const match = page.match;
  if (form.dataset.ready) return;
  form.dataset.ready = "1";
  // A bot may be gone by then: the form offers the computer instead.
  form.elements.opponent.value = match.opponent === "bot" ? "computer" : match.opponent;
  for (const [level, text] of Object.entries(page.levels)) {
    form.elements.level.append(new Option(`${level} \u2014 ${text.split(":")[0]}`, level));
  }
  form.elements.level.value = String(match.level || root.dataset.defaultLevel);
  match.players.forEach((p) => form.elements.side.append(new Option(p.name, String(p.player))));
  const mine = mySeats(match);
  // A new game against the same opponent starts with the next seat by default.
  const n = match.players.length;
  form.elements.side.value = String(mine.length === 1 ? (mine[0] % n) + 1 : 1);
  const update = () => {
    const opponent = form.elements.opponent.value;
    form.querySelector(".computer-only").hidden = opponent !== "computer";
    // Paired with a person online, the colours are drawn at random.
    form.querySelector(".seat-only").hidden = opponent === "hotseat" || opponent === "human";
  };
  form.addEventListener("change", update);
  update();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const params = new URLSearchParams({ opponent: form.elements.opponent.value });
    if (params.get("opponent") === "computer") params.set("level", form.elements.level.value);
    if (!["hotseat", "human"].includes(params.get("opponent"))) {
      params.set("side", form.elements.side.value);
    }
    for (const [k, v] of Object.entries(match.options || {})) params.set(k, v);
    window.location.assign(`/new/${match.game}?${params}`);
  });
}

// ---------------------------------------------------------------- state changes

function redraw() {
  if (page.viewPly === null) showBoard(page.match.svg);
  else showBoard(page.views.get(page.viewPly).svg);
}

function setMatch(match) {
  const first = page.match === null;
  const changed =
    first ||
    page.match.moves.join(" ") !== match.moves.join(" ") ||
    page.match.resigned !== match.resigned ||
    Boolean(page.match.outcome) !== Boolean(match.outcome);
  // A move played (not a take-back or a first load): sound and animation follow the redraw.
  const moved = !first && match.ply > page.match.ply && page.viewPly === null;
  const before = moved ? movingTokenCell(page.match) : null;
  // The same board again (the live connection's first message, a poll): left as drawn, so
  // that focus, hover and what a test or a screen reader is looking at stay put.
  const sameBoard = !changed && page.viewPly === null && page.match.svg === match.svg;
  page.match = match;
  page.clockAt = performance.now();
  page.flagAsked = false;
  if (changed || page.viewPly !== null) {
    page.navigation++;
    turn.reset(match.clicks, match.losing || []);
    $("board-note").textContent = "";
  }
  if (page.viewPly !== null && page.viewPly > match.ply) page.viewPly = null;
  renderPanel();
  tickClocks();
  if ((!turn.picking() || changed) && !sameBoard) redraw();
  if (moved) {
    playMoveSound();
    animateMove(before);
  }
  if (first || changed) initialFocus();
  if (first) {
    offerFit();
    showBoardStart();
  }
  if (changed && !first) returnFocus();
  schedulePoll();
}

// After a move (the computer's reply, say) the keyboard player's focus goes back to the
// board, on the snail; never from a field being typed in, and never scrolling the page.  A
// player who has pressed no key gets no focus ring (a script's focus is :focus-visible).
function returnFocus() {
  const active = document.activeElement;
  const idle = !active || active === document.body || active === $("board");
  const mine = mySeats(page.match).includes(page.match.to_move) && !page.match.outcome;
  if (!page.keyboard || !idle || !mine) return;
  $("board").focus({ preventScroll: true });
  drawFocus();
}

// A board wider than a phone (it scrolls in its own box) opens on its left edge, where the
// row numbers and column "a" are, unless that hides the focused cell (the snail, say): then
// scrolled just enough to show it.  The cut cells on the right say that the board goes on.
function showBoardStart() {
  const box = $("board");
  box.scrollLeft = 0;
  const cell = page.focus && box.querySelector(`[data-cell="${page.focus}"]`);
  if (!cell) return;
  const hidden = cell.getBoundingClientRect().right - box.getBoundingClientRect().right;
  if (hidden > 0) box.scrollLeft = hidden + TAP_PX / 2;
}

// The tap rule, on a phone: a cell is at least TAP_PX wide, and a board wider than its box at
// that size scrolls.  Where the overflow is small (the fitted cells still FIT_PX wide, 90% of
// TAP_PX, well above WCAG's 24 px), the board opens fitted instead: a scroll hiding an edge
// and a goal costs more than a few pixels of cell.  The "Fit board to screen" switch, above
// the board, is shown wherever the board is wider than its box at TAP_PX; the player's own
// choice, once made, is remembered and wins.
const TAP_PX = 40;
const FIT_PX = 36;

function offerFit() {
  const svg = $("board").querySelector("svg");
  const units = svg ? parseFloat(getComputedStyle(svg).getPropertyValue("--board-units")) : 0;
  const narrow = window.matchMedia("(max-width: 860px)").matches;
  const room = $("board").clientWidth;
  $("fit-board").hidden = !(narrow && units * TAP_PX > room + 1);
  // Only on a change: a phone's browser bar coming and going resizes the window, and must not
  // scroll the board back to its edge.
  const fitted = !$("fit-board").hidden && room / units >= FIT_PX;
  if (storedSetting("fit") === null && fitted !== enabled("fit")) {
    $("setting-fit").checked = fitted;
    applySetting("fit");
  }
}

function initialFocus() {
  const marks = page.match.view.marks || {};
  const snail = Object.keys(marks).find((c) => marks[c].includes("snail"));
  const names = cellNodes().map((n) => n.dataset.cell);
  page.focus = snail || Object.keys(turn.clicks).find((c) => names.includes(c)) || names[0];
}

async function refresh() {
  try {
    setMatch(await api(matchUrl()));
  } catch (exc) {
    showFatal(exc);
  }
}

function matchUrl() {
  const seat = page.token ? `?seat=${encodeURIComponent(page.token)}` : "";
  return `/api/matches/${encodeURIComponent(page.id)}${seat}`;
}

function showFatal(exc) {
  if (page.match) {
    $("conn").hidden = false;
    $("conn").textContent = _("Could not refresh the game: {error}", { error: exc.message });
    return;
  }
  $("loading").hidden = false;
  $("loading").textContent =
    exc.status === 404 ? _("There is no such game.") : _("Could not load the game: {error}", { error: exc.message });
}

async function post(path, body) {
  const error = $("move-error");
  error.textContent = "";
  if (page.busy) return null;
  page.busy = true;
  try {
    return await api(`/api/matches/${page.id}/${path}`, { method: "POST", body: { seat: page.token, ...body } });
  } catch (exc) {
    error.textContent = exc.message;
    if (exc.status === 409) await refresh();
    return null;
  } finally {
    page.busy = false;
  }
}

async function sendMove(move) {
  const match = await post("move", { move, ply: page.match.ply });
  // The socket may already have brought a later position (the computer's reply).
  if (match && match.ply >= page.match.ply) setMatch(match);
  return match !== null;
}

async function undo() {
  const match = await post("undo", { ply: page.match.ply });
  if (match) setMatch(match);
}

async function resign() {
  $("resign-confirm").hidden = true;
  const match = await post("resign", {});
  if (match) setMatch(match);
}

// A new match from this position: the player to move is you, the computer plays the others.
async function continueAgainstComputer() {
  const match = page.match;
  const level = Number($("new-game-form").elements.level.value || root.dataset.defaultLevel);
  try {
    const created = await api("/api/matches", {
      method: "POST",
      body: {
        game: match.game,
        options: match.options,
        opponent: "computer",
        side: match.to_move,
        level,
        moves: match.moves,
      },
    });
    const mine = created.links[String(match.to_move)];
    window.location.assign(mine);
  } catch (exc) {
    $("move-error").textContent = exc.message;
  }
}

async function rematch() {
  const match = await post("rematch", {});
  if (match) window.location.assign(`/play/${match.id}?seat=${encodeURIComponent(page.token)}`);
}

async function goTo(ply) {
  const match = page.match;
  const request = ++page.navigation; // a later key press wins over a slow fetch
  ply = Math.max(0, Math.min(ply, match.ply));
  if (ply === match.ply) {
    page.viewPly = null;
  } else {
    if (!page.views.has(ply) || page.views.get(ply).key !== match.moves.slice(0, ply).join(" ")) {
      try {
        const answer = await api(`/api/matches/${page.id}/view?ply=${ply}`);
        page.views.set(ply, { key: match.moves.slice(0, ply).join(" "), svg: answer.svg });
      } catch (exc) {
        $("move-error").textContent = exc.message;
        return;
      }
    }
    if (request !== page.navigation) return;
    page.viewPly = ply;
  }
  turn.reset(match.clicks, match.losing || []);
  renderPanel();
  redraw();
}

// ---------------------------------------------------------------- sound and animation

// Each with an off switch under the move list, remembered in localStorage.
// "names": every cell's name on the board (off by default: the edges carry the coordinates).
// "fit": the whole board on a phone's screen (off: cells big enough to tap, the board scrolls).
const SETTINGS = {
  sound: "slimetrail.sound",
  animation: "slimetrail.animation",
  names: "slimetrail.names",
  fit: "slimetrail.fit",
};

// "on", "off", or null where the player has not chosen (or storage is refused).
function storedSetting(name) {
  try {
    return window.localStorage.getItem(SETTINGS[name]);
  } catch {
    return null; // storage refused (a privacy mode): the defaults
  }
}

function setting(name) {
  const stored = storedSetting(name);
  if (stored !== null) return stored === "on";
  if (name === "animation") return !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  return name !== "names" && name !== "fit";
}

function wireSettings() {
  for (const name of Object.keys(SETTINGS)) {
    const box = $(`setting-${name}`);
    box.checked = setting(name);
    applySetting(name);
    box.addEventListener("change", () => {
      applySetting(name);
      try {
        window.localStorage.setItem(SETTINGS[name], box.checked ? "on" : "off");
      } catch {
        // not remembered, but still applied to this page through the box
      }
    });
  }
}

// A setting that changes the page at once; the others are read when they are needed.
function applySetting(name) {
  if (name === "names") $("board").classList.toggle("show-names", enabled("names"));
  if (name === "fit") {
    $("board").classList.toggle("fit", enabled("fit"));
    showBoardStart();
  }
}

function enabled(name) {
  return $(`setting-${name}`).checked;
}

// Created on the player's first gesture: a browser refuses to start audio before one (and
// warns in the console), so a move before it (the computer's first) makes no sound.
let audio = null;

function startAudio() {
  try {
    audio = audio || new AudioContext();
  } catch {
    // no audio on this device
  }
}

// A short wooden "tock": a falling triangle tone, synthesised (no sound file to fetch).
function playMoveSound() {
  if (!enabled("sound") || !audio) return;
  try {
    const now = audio.currentTime;
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.type = "triangle";
    tone.frequency.setValueAtTime(640, now);
    tone.frequency.exponentialRampToValueAtTime(320, now + 0.08);
    gain.gain.setValueAtTime(0.18, now);
    gain.gain.exponentialRampToValueAtTime(0.001, now + 0.12);
    tone.connect(gain).connect(audio.destination);
    tone.start(now);
    tone.stop(now + 0.13);
  } catch {
    // no audio on this device
  }
}

// The cell of the token that moves (Slime Trail's snail, a snake's head), if the game has one.
function movingTokenCell(match) {
  const marks = (match.view && match.view.marks) || {};
  const mover = match.to_move;
  return Object.keys(marks).find((c) => marks[c].includes("snail") || marks[c].includes(`head-${mover}`)) || null;
}

function tokensAt(name) {
  const cell = cellNode(name);
  if (!cell) return [];
  const box = cell.getBBox();
  return [...$("board").querySelectorAll("svg .tokens > *")].filter((token) => {
    const b = token.getBBox();
    const [x, y] = [b.x + b.width / 2, b.y + b.height / 2];
    return x > box.x && x < box.x + box.width && y > box.y && y < box.y + box.height;
  });
}

// A short move animation: the moving token slides in from its old cell; anything else the
// move put down (a stone) grows in.
function animateMove(fromCell) {
  if (!enabled("animation")) return;
  const last = (page.match.view && page.match.view.last) || [];
  const target = last[last.length - 1];
  const options = { duration: 180, easing: "ease-out" };
  let grown = last;
  if (fromCell && target && fromCell !== target && cellNode(fromCell) && cellNode(target)) {
    const [fx, fy] = centre(cellNode(fromCell));
    const [tx, ty] = centre(cellNode(target));
    for (const token of tokensAt(target)) {
      token.animate([{ transform: `translate(${fx - tx}px, ${fy - ty}px)` }, { transform: "none" }], options);
    }
    grown = last.filter((name) => name !== target);
  }
  for (const name of grown) {
    for (const token of tokensAt(name)) {
      token.style.transformBox = "fill-box";
      token.style.transformOrigin = "center";
      token.animate([{ transform: "scale(0.4)", opacity: 0 }, { transform: "none", opacity: 1 }], options);
    }
  }
}

// ---------------------------------------------------------------- live updates

function connect() {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const seat = page.token ? `?seat=${encodeURIComponent(page.token)}` : "";
  const socket = new WebSocket(`${scheme}://${window.location.host}/ws/matches/${page.id}${seat}`);
  page.socket = socket;
  socket.addEventListener("open", () => {
    const reconnected = page.retry > 0;
    page.socketOpen = true;
    page.retry = 0;
    root.dataset.connects = String(+(root.dataset.connects || 0) + 1);
    $("conn").hidden = true;
    if (reconnected) refresh(); // anything missed while away
  });
  socket.addEventListener("message", (event) => {
    const data = JSON.parse(event.data);
    if (data.type === "match") setMatch(data.match);
  });
  socket.addEventListener("close", () => {
    page.socketOpen = false;
    page.retry += 1;
    const delay = Math.min(10000, 500 * 2 ** Math.min(page.retry - 1, 5));
    $("conn").hidden = false;
    $("conn").textContent = _("Connection lost; reconnecting\u2026");
    setTimeout(connect, delay);
    schedulePoll();
  });
}

// Without a live socket, poll while the computer thinks so that its move still shows up.
function schedulePoll() {
  clearTimeout(page.pollTimer);
  if (page.match && page.match.thinking && !page.socketOpen) {
    page.pollTimer = setTimeout(refresh, 1500);
  }
}

// ---------------------------------------------------------------- keyboard

function moveFocus(dx, dy) {
  const nodes = cellNodes();
  const from = cellNode(page.focus) || nodes[0];
  const [fx, fy] = centre(from);
  const unit = Math.min(from.getBBox().width, from.getBBox().height) || 1;
  let best = null;
  let bestScore = Infinity;
  for (const node of nodes) {
    const [x, y] = centre(node);
    const along = ((x - fx) * dx + (y - fy) * dy) / unit;
    if (along < 0.3) continue;
    const across = Math.abs((x - fx) * dy - (y - fy) * dx) / unit;
    const score = along + 2 * across;
    if (score < bestScore) [best, bestScore] = [node, score];
  }
  if (best) page.focus = best.dataset.cell;
}

function announceFocus() {
  const node = cellNode(page.focus);
  $("board-focus").textContent = node ? node.getAttribute("aria-label") : "";
}

function boardKey(event) {
  const steps = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
  page.keyboard = true;
  if (steps[event.key]) {
    moveFocus(...steps[event.key]);
    drawFocus();
    announceFocus();
  } else if (event.key === "Enter" || event.key === " ") {
    clickOn(page.focus);
  } else if (event.key === "Escape") {
    cancelPartial();
  } else {
    return;
  }
  event.preventDefault();
  event.stopPropagation();
}

function pageKey(event) {
  if (!page.match) return;
  if (event.key === "Escape" && turn.picking()) {
    cancelPartial();
    return;
  }
  if (event.target.closest("input, textarea, select, #board")) return;
  const current = page.viewPly === null ? page.match.ply : page.viewPly;
  const target = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: page.match.ply }[
    event.key
  ];
  if (target === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
  event.preventDefault();
  goTo(target);
}

// ---------------------------------------------------------------- wiring

function wire() {
  const board = $("board");
  board.addEventListener("click", (event) => {
    const cell = event.target.closest("[data-cell]");
    if (!cell || !page.match) return;
    page.focus = cell.dataset.cell;
    clickOn(cell.dataset.cell);
  });
  board.addEventListener("keydown", (event) => page.match && boardKey(event));
  document.addEventListener("pointerdown", () => {
    page.keyboard = false;
  });
  document.addEventListener("keydown", () => {
    page.keyboard = true;
  });
  for (const gesture of ["pointerdown", "keydown"]) {
    document.addEventListener(gesture, startAudio, { once: true });
  }
  board.addEventListener("pointerover", (event) => {
    page.hovered = event.target.closest("[data-cell]")?.dataset.cell ?? null;
    drawNames();
  });
  board.addEventListener("pointerleave", () => {
    page.hovered = null;
    drawNames();
  });
  board.addEventListener("focus", () => {
    if (page.match) {
      drawFocus();
      announceFocus();
    }
  });
  board.addEventListener("blur", () => page.match && drawFocus());
  document.addEventListener("keydown", pageKey);
  $("nav-first").addEventListener("click", () => goTo(0));
  $("nav-prev").addEventListener("click", () => goTo((page.viewPly ?? page.match.ply) - 1));
  $("nav-next").addEventListener("click", () => goTo((page.viewPly ?? page.match.ply) + 1));
  $("nav-last").addEventListener("click", () => goTo(page.match.ply));
  $("cancel").addEventListener("click", cancelPartial);
  $("resign").addEventListener("click", () => {
    $("resign-confirm").hidden = false;
  });
  $("resign-yes").addEventListener("click", resign);
  $("resign-no").addEventListener("click", () => {
    $("resign-confirm").hidden = true;
  });
  $("rematch").addEventListener("click", rematch);
  $("undo").addEventListener("click", undo);
  $("continue").addEventListener("click", continueAgainstComputer);
  $("analyse").addEventListener("click", analyse);
  $("review").addEventListener("click", review);
  $("review-graph").addEventListener("click", (event) => {
    const hit = event.target.closest("[data-ply]");
    if (hit) goTo(Number(hit.dataset.ply));
  });
  $("hint").addEventListener("click", hint);
  $("move-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("move-input");
    const text = input.value.trim();
    if (!text) {
      $("move-error").textContent = _("Type a move first, such as {move}.", { move: input.dataset.example });
      return;
    }
    if (await sendMove(text)) input.value = "";
  });
  setupImport($("import-form"));
  wireSettings();
  window.addEventListener("resize", offerFit);
  setInterval(tickClocks, 100);
}

wire();
refresh().then(() => page.match && connect());

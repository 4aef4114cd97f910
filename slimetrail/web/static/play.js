// The play page. Generic over games: it draws whatever the match JSON describes
// (`board` geometry, `view` marks/path/last, `legal` click paths) and sends moves as text.
import { api, setupImport } from "./common.js";

const SVG = "http://www.w3.org/2000/svg";
const HEX_R = 1 / Math.sqrt(3); // circumradius of a hexagon whose neighbours are 1 apart
const VALUE_WORDS = { win: "wins", loss: "loses", draw: "draws" };

const root = document.getElementById("play");
const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, text) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
};

const page = {
  id: root.dataset.match,
  token: root.dataset.seat,
  levels: JSON.parse(root.dataset.levels || "{}"),
  match: null,
  viewPly: null, // null: the live position; a number: browsing history
  shown: null, // {ply, view, legal} actually drawn
  views: new Map(), // "move texts up to K" -> view, for history browsing
  prefix: [], // clicks made so far towards a multi-click move
  focus: null, // cell name under the keyboard focus ring
  flipped: null, // null until the first match arrives (then: player 2 sees the board flipped)
  analysis: null, // {key, result}
  navigation: 0, // counts move-list navigations
  busy: false,
  keyboard: true, // false after a pointer press: the focus ring is for keyboard players
  socket: null,
  socketOpen: false,
  retry: 0,
  pollTimer: null,
};

// ---------------------------------------------------------------- geometry

function geometry(board) {
  const cells = board.cells;
  const xs = cells.map((c) => c.x);
  const ys = cells.map((c) => c.y);
  const bounds = {
    minX: Math.min(...xs), maxX: Math.max(...xs), minY: Math.min(...ys), maxY: Math.max(...ys),
  };
  const byName = new Map(cells.map((c) => [c.name, c]));
  return { cells, bounds, byName, hex: board.shape === "hex" };
}

function position(geo, cell) {
  const { minX, maxX, minY, maxY } = geo.bounds;
  return page.flipped ? [minX + maxX - cell.x, minY + maxY - cell.y] : [cell.x, cell.y];
}

function cellShape(geo, x, y, name) {
  if (geo.hex) {
    const points = [];
    for (let k = 0; k < 6; k++) {
      const a = Math.PI / 2 + (k * Math.PI) / 3;
      points.push(`${(x + HEX_R * Math.cos(a)).toFixed(4)},${(y + HEX_R * Math.sin(a)).toFixed(4)}`);
    }
    return el("polygon", { points: points.join(" "), "data-cell": name, id: `cell-${name}` });
  }
  return el("rect", {
    x: x - 0.5, y: y - 0.5, width: 1, height: 1, "data-cell": name, id: `cell-${name}`,
  });
}

// ---------------------------------------------------------------- drawing

function nextClicks(legal, prefix) {
  const next = new Set();
  for (const path of Object.values(legal)) {
    if (path.length > prefix.length && prefix.every((c, i) => path[i] === c)) {
      next.add(path[prefix.length]);
    }
  }
  return next;
}

function drawBoard() {
  const match = page.match;
  const shown = page.shown;
  const geo = geometry(match.board);
  const svg = $("board");
  const pad = geo.hex ? HEX_R + 0.15 : 0.65;
  const { minX, maxX, minY, maxY } = geo.bounds;
  svg.setAttribute(
    "viewBox",
    `${minX - pad} ${minY - pad} ${maxX - minX + 2 * pad} ${maxY - minY + 2 * pad}`,
  );
  svg.classList.toggle("hex", geo.hex);
  svg.replaceChildren();
  svg.append(defs());

  const marks = shown.view.marks || {};
  const targets = nextClicks(shown.legal, page.prefix);
  const cells = el("g", { class: "cells" });
  const labels = el("g", { class: "labels", "aria-hidden": "true" });
  const tokens = el("g", { class: "tokens", "aria-hidden": "true" });
  const goalNames = new Map(Object.entries(match.board.goals || {}).map(([p, c]) => [c, +p]));

  for (const cell of geo.cells) {
    const [x, y] = position(geo, cell);
    const shape = cellShape(geo, x, y, cell.name);
    const cellMarks = marks[cell.name] || [];
    const classes = ["cell", ...cellMarks.map((m) => `mark-${m}`)];
    if (targets.has(cell.name)) classes.push("legal");
    if (page.prefix.includes(cell.name)) classes.push("picked");
    if ((shown.view.last || []).includes(cell.name)) classes.push("last");
    shape.setAttribute("class", classes.join(" "));
    const words = [cell.name, ...cellMarks.map(markWord)];
    if (targets.has(cell.name)) words.push("legal move");
    shape.setAttribute("aria-label", words.join(", "));
    cells.append(shape);

    // Coordinates: small, in the corner of squares and at the foot of hexagons.
    const lx = geo.hex ? x : x - 0.44;
    const ly = geo.hex ? y + 0.36 : y + 0.42;
    const coordClass = `coord${geo.hex ? " hex" : ""}${cellMarks.includes("slime") ? " on-slime" : ""}`;
    labels.append(el("text", { x: lx, y: ly, class: coordClass }, cell.name));

    const goal = goalNames.get(cell.name);
    if (goal) {
      // The owner's number in the owner's colour, plus a player-specific shape (not colour alone).
      const badge = el("g", { class: `goal-badge p${goal}` });
      if (goal === 1) badge.append(el("circle", { cx: x, cy: y, r: 0.3 }));
      else badge.append(el("rect", { x: x - 0.27, y: y - 0.27, width: 0.54, height: 0.54, rx: 0.05 }));
      badge.append(el("text", { x, y: y + 0.11, class: "goal-text" }, String(goal)));
      tokens.append(badge);
    }
    for (const mark of cellMarks) {
      const stone = /^stone-(\d+)$/.exec(mark);
      if (stone) tokens.append(el("circle", { cx: x, cy: y, r: 0.36, class: `stone p${stone[1]}` }));
    }
  }
  svg.append(cells, labels);

  const path = (shown.view.path || []).map((n) => geo.byName.get(n)).filter(Boolean);
  if (path.length > 1) {
    const points = path.map((c) => position(geo, c).join(",")).join(" ");
    // A light halo under a dark line keeps the trail readable on slimed and empty cells.
    svg.append(el("polyline", { points, class: "trail-halo", "aria-hidden": "true" }));
    svg.append(el("polyline", { points, class: "trail", "aria-hidden": "true" }));
  }
  svg.append(tokens);

  const overlay = el("g", { class: "overlay", "aria-hidden": "true" });
  for (const name of shown.view.last || []) {
    const cell = geo.byName.get(name);
    if (cell) {
      const [x, y] = position(geo, cell);
      overlay.append(el("circle", { cx: x, cy: y, r: 0.44, class: "last-ring" }));
    }
  }
  for (const [name, list] of Object.entries(marks)) {
    const cell = geo.byName.get(name);
    if (cell && list.includes("snail")) overlay.append(snailToken(...position(geo, cell)));
  }
  for (const name of targets) {
    const cell = geo.byName.get(name);
    if (cell) {
      const [x, y] = position(geo, cell);
      overlay.append(el("circle", { cx: x, cy: y, r: 0.14, class: "legal-dot" }));
    }
  }
  drawAnalysisBadges(geo, overlay);
  svg.append(overlay, el("g", { class: "focus-layer", "aria-hidden": "true" }));
  drawFocus();
  $("loading").hidden = true;
}

// The keyboard focus ring has its own layer: redrawing the cells under a pointer would
// swallow the click that gave the board focus.
function drawFocus() {
  const svg = $("board");
  const layer = svg.querySelector(".focus-layer");
  if (!layer) return;
  layer.replaceChildren();
  const geo = geometry(page.match.board);
  const cell = geo.byName.get(page.focus);
  if (!cell || !page.keyboard || document.activeElement !== svg) return;
  const [x, y] = position(geo, cell);
  const ring = cellShape(geo, x, y, "");
  ring.removeAttribute("data-cell");
  ring.removeAttribute("id");
  ring.setAttribute("class", "focus-ring");
  layer.append(ring);
}

// Slimed cells get a hatch pattern as well as a darker colour.
function defs() {
  const d = el("defs");
  const pattern = el("pattern", {
    id: "slime-hatch", width: 0.2, height: 0.2, patternUnits: "userSpaceOnUse",
    patternTransform: "rotate(45)",
  });
  pattern.append(el("rect", { width: 0.2, height: 0.2, class: "hatch-bg" }));
  pattern.append(el("line", { x1: 0, y1: 0, x2: 0, y2: 0.2, class: "hatch-line" }));
  d.append(pattern);
  return d;
}

function snailToken(x, y) {
  const g = el("g", { class: "snail", transform: `translate(${x} ${y})` });
  g.append(el("circle", { r: 0.33, class: "snail-body" }));
  g.append(
    el("path", {
      class: "snail-shell",
      d: "M0.02,0.02 m-0.05,0 a0.05,0.05 0 1,1 0.1,0 a0.1,0.1 0 1,1 -0.2,0 a0.15,0.15 0 1,1 0.3,0",
    }),
  );
  return g;
}

function markWord(mark) {
  const goal = /^goal-(\d+)$/.exec(mark);
  if (goal) return `goal of ${page.match.player_names[goal[1] - 1]}`;
  const stone = /^stone-(\d+)$/.exec(mark);
  if (stone) return `stone of ${page.match.player_names[stone[1] - 1]}`;
  return { snail: "the snail is here", slime: "slimed" }[mark] || mark;
}

// ---------------------------------------------------------------- analysis

function displayedMoves() {
  const moves = page.match.moves;
  return page.viewPly === null ? moves : moves.slice(0, page.viewPly);
}

function analysisKey() {
  return displayedMoves().join(" ");
}

function drawAnalysisBadges(geo, overlay) {
  const analysis = page.analysis;
  if (!analysis || analysis.key !== analysisKey() || !analysis.result.solved) return;
  for (const [move, value] of Object.entries(analysis.result.moves || {})) {
    const path = page.shown.legal[move];
    const cell = geo.byName.get(path ? path[path.length - 1] : move);
    if (!cell) continue;
    const [x, y] = position(geo, cell);
    const badge = el("g", { class: `badge ${value}` });
    badge.append(el("circle", { cx: x + 0.28, cy: y - 0.28, r: 0.17 }));
    badge.append(el("text", { x: x + 0.28, y: y - 0.22 }, value[0].toUpperCase()));
    overlay.append(badge);
  }
}

async function analyse() {
  const key = analysisKey();
  const box = $("analysis");
  box.hidden = false;
  box.textContent = "Analysing\u2026";
  $("analyse").disabled = true;
  try {
    const result = await api("/api/analyse", {
      method: "POST",
      body: { game: page.match.game, options: page.match.options, moves: displayedMoves() },
    });
    page.analysis = { key, result };
    showAnalysis();
    drawBoard();
  } catch (exc) {
    box.textContent = `Analysis failed: ${exc.message}`;
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
    head.textContent = `Could not solve this position: ${r.detail || "not solved in time"}.`;
    box.append(head);
    return;
  }
  const names = page.match.player_names;
  const mover = names[(r.to_move || 1) - 1];
  const plies = r.plies === null || r.plies === undefined ? "" : ` (game length ${r.plies} plies)`;
  head.textContent = r.value
    ? `${mover} to move ${VALUE_WORDS[r.value]} with best play${plies}.`
    : "The game is over.";
  box.append(head);
  const list = document.createElement("ul");
  list.className = "move-values";
  const order = { win: 0, draw: 1, loss: 2 };
  const entries = Object.entries(r.moves || {}).sort((a, b) => order[a[1]] - order[b[1]]);
  for (const [move, value] of entries) {
    const item = document.createElement("li");
    item.className = value;
    item.innerHTML = `<span class="tag" aria-hidden="true"></span><span class="what"></span>`;
    item.querySelector(".tag").textContent = value[0].toUpperCase();
    item.querySelector(".what").textContent = `${move} ${VALUE_WORDS[value]}`;
    list.append(item);
  }
  box.append(list);
}

// ---------------------------------------------------------------- panel

function seatPlayers(match) {
  if (match.seat === "both") return [1, 2];
  return typeof match.seat === "number" && match.seat > 0 ? [match.seat] : [];
}

function describeOutcome(match) {
  const o = match.outcome;
  const names = match.player_names;
  if (o.winner === null || o.winner === undefined) {
    const why = o.reason === "stuck" ? "the snail is stuck" : o.reason;
    return { head: "Draw", detail: why ? `Draw: ${why}.` : "Draw." };
  }
  const winner = names[o.winner - 1];
  const loser = names[2 - o.winner] || "the other player";
  let why = o.reason;
  if (o.reason === "goal") why = `the snail reached ${winner}'s goal corner`;
  if (o.reason === "stuck") why = `${loser} had no legal move`;
  const mine = seatPlayers(match);
  let head = `${winner} wins`;
  if (mine.length === 1) head = mine[0] === o.winner ? "You win!" : "You lose";
  return { head, detail: `${winner} wins (${o.result}): ${why}.` };
}

function statusText(match) {
  if (match.outcome) return describeOutcome(match).detail;
  const name = match.player_names[match.to_move - 1];
  const mine = seatPlayers(match);
  if (match.thinking) return `${name} (computer) to move.`;
  if (mine.includes(match.to_move)) {
    return mine.length === 1 ? `Your move (${name}).` : `${name} to move.`;
  }
  if (match.seat === 0) return `${name} to move. You are watching.`;
  return `Waiting for ${name}\u2026`;
}

function playerBar(match, player) {
  const bar = document.createElement("div");
  bar.className = `player p${player}`;
  if (!match.outcome && match.to_move === player) bar.classList.add("to-move");
  const chip = document.createElement("span");
  chip.className = `chip p${player}`;
  chip.textContent = String(player);
  const name = document.createElement("span");
  name.className = "name";
  let who = match.player_names[player - 1];
  if (match.computer_side === player) who += " \u00b7 computer, level " + match.level;
  else if (seatPlayers(match).includes(player) && match.seat !== "both") who += " \u00b7 you";
  name.textContent = who;
  const goal = document.createElement("span");
  goal.className = "goal-note";
  goal.textContent = match.board.goals ? `goal ${match.board.goals[player]}` : "";
  bar.append(chip, name, goal);
  return bar;
}

function renderPanel() {
  const match = page.match;
  // The server's colours (the rules diagrams use the same ones).
  match.player_colours.forEach((colour, i) => root.style.setProperty(`--p${i + 1}`, colour));
  document.title = `${match.title} \u2014 Slimetrail`;
  $("title").textContent = match.title;
  const opp = { computer: "against the computer", hotseat: "on one device", friend: "between friends" };
  $("subtitle").textContent = `${match.spec} \u00b7 ${opp[match.opponent] || match.opponent}`;
  $("rules-link").href = `/rules/${match.game}`;
  $("rules-link").textContent = `Rules of ${match.title}`;

  const [top, bottom] = page.flipped ? [1, 2] : [2, 1];
  $("player-top").replaceChildren(playerBar(match, top));
  $("player-bottom").replaceChildren(playerBar(match, bottom));

  const status = statusText(match);
  if ($("status").textContent !== status) $("status").textContent = status;
  // Once the game is over the result box shows it; the live region still announces it.
  $("status").classList.toggle("sr-only", Boolean(match.outcome));
  $("thinking").hidden = !match.thinking;
  const result = $("result");
  if (match.outcome) {
    const { head, detail } = describeOutcome(match);
    result.hidden = false;
    result.className = `result ${match.outcome.winner ? `p${match.outcome.winner}` : "draw"}`;
    result.innerHTML = "<strong></strong><span></span>";
    result.querySelector("strong").textContent = head;
    result.querySelector("span").textContent = ` ${detail}`;
    if (!result.dataset.shown) {
      result.dataset.shown = "1";
      $("new-game").open = true; // offer the rematch
    }
  } else {
    delete result.dataset.shown;
    result.hidden = true;
  }

  const canMove = Object.keys(match.legal || {}).length > 0;
  $("move-form").hidden = seatPlayers(match).length === 0;
  $("move-input").disabled = !canMove || page.viewPly !== null;

  const undo = $("undo");
  undo.hidden = !["computer", "hotseat"].includes(match.opponent) || seatPlayers(match).length === 0;
  undo.disabled = match.ply === 0 || (match.opponent === "computer" && !playerHasMoved(match));

  renderMoveList();
  renderLinks();
  renderNewGameForm();
  $("export-pgn").href = `/api/matches/${page.id}/record?format=pgn`;
  $("export-json").href = `/api/matches/${page.id}/record?format=json`;
  showAnalysis();
}

function playerHasMoved(match) {
  // Player 1 makes the odd plies, player 2 the even ones (two-player games alternate).
  const side = 3 - match.computer_side;
  return side === 1 ? match.ply >= 1 : match.ply >= 2;
}

function renderMoveList() {
  const match = page.match;
  const list = $("move-list");
  list.replaceChildren();
  const current = page.viewPly === null ? match.ply : page.viewPly;
  const n = match.player_names.length;
  for (let i = 0; i < match.moves.length; i += n) {
    const row = document.createElement("li");
    for (let j = i; j < Math.min(i + n, match.moves.length); j++) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `mv p${(j % n) + 1}`;
      button.textContent = match.moves[j];
      button.dataset.ply = String(j + 1);
      if (j + 1 === current) {
        button.setAttribute("aria-current", "step");
        button.classList.add("current");
      }
      button.addEventListener("click", () => goTo(j + 1));
      row.append(button);
    }
    list.append(row);
  }
  list.querySelector(".current")?.scrollIntoView({ block: "nearest" });
  const viewing = $("viewing");
  viewing.hidden = page.viewPly === null;
  viewing.textContent =
    page.viewPly === null ? "" : `Viewing after move ${page.viewPly} of ${match.ply}. Press End to return.`;
  $("nav-first").disabled = current === 0;
  $("nav-prev").disabled = current === 0;
  $("nav-next").disabled = current >= match.ply;
  $("nav-last").disabled = current >= match.ply;
}

function renderLinks() {
  const links = page.match.links || {};
  const list = $("link-list");
  list.replaceChildren();
  const mine = seatPlayers(page.match);
  for (const [key, url] of Object.entries(links)) {
    let label;
    if (key === "watch") label = "Spectator link";
    else if (mine.length === 1 && +key === mine[0]) label = "Your seat (keep it to come back)";
    else if (mine.length > 1) label = `Seat of ${page.match.player_names[+key - 1]}`;
    else label = `Invite ${page.match.player_names[+key - 1]}`;
    const row = document.createElement("div");
    row.className = "link-row";
    const id = `link-${key}`;
    row.innerHTML = `<label for="${id}"></label><div class="row"><input readonly id="${id}"><button type="button">Copy</button></div>`;
    row.querySelector("label").textContent = label;
    const input = row.querySelector("input");
    input.value = new URL(url, window.location.origin).href;
    input.dataset.link = key;
    const button = row.querySelector("button");
    button.addEventListener("click", async () => {
      input.select();
      try {
        await navigator.clipboard.writeText(input.value);
      } catch {
        document.execCommand("copy"); // insecure origins have no clipboard API
      }
      button.textContent = "Copied";
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    });
    list.append(row);
  }
  $("links").hidden = list.children.length === 0;
  if (page.match.opponent === "friend" && !$("links").dataset.opened) {
    // Open once for games by link (the invite is the point); the player may close it.
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
  form.elements.opponent.value = match.opponent;
  for (const [level, text] of Object.entries(page.levels)) {
    form.elements.level.append(new Option(`${level} \u2014 ${text.split(":")[0]}`, level));
  }
  form.elements.level.value = String(match.level || root.dataset.defaultLevel);
  match.player_names.forEach((name, i) => form.elements.side.append(new Option(name, String(i + 1))));
  const mine = seatPlayers(match);
  // A rematch swaps sides by default.
  form.elements.side.value = String(mine.length === 1 ? 3 - mine[0] : 1);
  const update = () => {
    const opponent = form.elements.opponent.value;
    form.querySelector(".computer-only").hidden = opponent !== "computer";
    form.querySelector(".seat-only").hidden = opponent === "hotseat";
  };
  form.addEventListener("change", update);
  update();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const params = new URLSearchParams({ opponent: form.elements.opponent.value });
    if (params.get("opponent") === "computer") params.set("level", form.elements.level.value);
    if (params.get("opponent") !== "hotseat") params.set("side", form.elements.side.value);
    for (const [k, v] of Object.entries(match.options || {})) params.set(k, v);
    window.location.assign(`/new/${match.game}?${params}`);
  });
}

// ---------------------------------------------------------------- state changes

function liveShown(match) {
  return { ply: match.ply, view: match.view, legal: match.legal || {} };
}

function setMatch(match) {
  const first = page.match === null;
  const changed = first || page.match.moves.join(" ") !== match.moves.join(" ");
  page.match = match;
  if (page.flipped === null) page.flipped = match.seat === 2;
  if (changed) page.prefix = [];
  if (page.viewPly !== null && page.viewPly > match.ply) page.viewPly = null;
  if (page.viewPly === null) page.shown = liveShown(match);
  if (first) initialFocus();
  renderPanel();
  drawBoard();
  schedulePoll();
}

function initialFocus() {
  const marks = page.match.view.marks || {};
  page.focus =
    Object.keys(marks).find((c) => marks[c].includes("snail")) || page.match.board.cells[0].name;
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
    $("conn").textContent = `Could not refresh the game: ${exc.message}`;
    return;
  }
  $("loading").hidden = false;
  $("loading").textContent =
    exc.status === 404 ? "There is no such game." : `Could not load the game: ${exc.message}`;
}

async function sendMove(move) {
  const error = $("move-error");
  error.textContent = "";
  if (page.busy) return false;
  page.busy = true;
  try {
    const match = await api(`/api/matches/${page.id}/move`, {
      method: "POST",
      body: { seat: page.token, move, ply: page.match.ply },
    });
    // The socket may already have brought a later position (the computer's reply).
    if (match.ply >= page.match.ply) setMatch(match);
    return true;
  } catch (exc) {
    error.textContent = exc.message;
    if (exc.status === 409) await refresh();
    return false;
  } finally {
    page.busy = false;
  }
}

async function undo() {
  const error = $("move-error");
  error.textContent = "";
  try {
    setMatch(
      await api(`/api/matches/${page.id}/undo`, {
        method: "POST",
        body: { seat: page.token, ply: page.match.ply },
      }),
    );
  } catch (exc) {
    error.textContent = exc.message;
    if (exc.status === 409) await refresh();
  }
}

function completedMove(legal, prefix) {
  const found = Object.entries(legal).find(
    ([, path]) => path.length === prefix.length && path.every((c, i) => c === prefix[i]),
  );
  return found ? found[0] : null;
}

function clickCell(name) {
  if (page.viewPly !== null || page.busy) return;
  const legal = page.shown.legal;
  // A move that is also the start of longer ones is made by clicking its last cell again.
  const pending = completedMove(legal, page.prefix);
  if (pending && name === page.prefix[page.prefix.length - 1]) {
    sendMove(pending);
    return;
  }
  if (!nextClicks(legal, page.prefix).has(name)) {
    // Not a continuation: start over, from this cell if it begins some move.
    page.prefix = nextClicks(legal, []).has(name) ? [name] : [];
  } else {
    page.prefix = [...page.prefix, name];
  }
  const done = completedMove(legal, page.prefix);
  if (done && nextClicks(legal, page.prefix).size === 0) {
    sendMove(done);
    return;
  }
  drawBoard();
}

async function goTo(ply) {
  const match = page.match;
  const request = ++page.navigation; // a later key press wins over a slow fetch
  ply = Math.max(0, Math.min(ply, match.ply));
  if (ply === match.ply) {
    page.viewPly = null;
    page.shown = liveShown(match);
  } else {
    const key = match.moves.slice(0, ply).join(" ");
    let view = page.views.get(key);
    if (!view) {
      try {
        view = (await api(`/api/matches/${page.id}/view?ply=${ply}`)).view;
      } catch (exc) {
        $("move-error").textContent = exc.message;
        return;
      }
      page.views.set(key, view);
    }
    if (request !== page.navigation) return;
    page.viewPly = ply;
    page.shown = { ply, view, legal: {} };
  }
  page.prefix = [];
  renderPanel();
  drawBoard();
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
    $("conn").textContent = "Connection lost; reconnecting\u2026";
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
  const geo = geometry(page.match.board);
  const from = geo.byName.get(page.focus) || geo.cells[0];
  const [fx, fy] = position(geo, from);
  let best = null;
  let bestScore = Infinity;
  for (const cell of geo.cells) {
    const [x, y] = position(geo, cell);
    const along = (x - fx) * dx + (y - fy) * dy;
    if (along < 0.3) continue;
    const across = Math.abs((x - fx) * dy - (y - fy) * dx);
    const score = along + 2 * across;
    if (score < bestScore) [best, bestScore] = [cell, score];
  }
  if (best) page.focus = best.name;
}

function announceFocus() {
  const node = document.getElementById(`cell-${page.focus}`);
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
    clickCell(page.focus);
  } else if (event.key === "Escape") {
    page.prefix = [];
    drawBoard();
  } else {
    return;
  }
  event.preventDefault();
  event.stopPropagation();
}

function pageKey(event) {
  if (!page.match || event.target.closest("input, textarea, select, svg")) return;
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
  const svg = $("board");
  svg.addEventListener("click", (event) => {
    const cell = event.target.closest("[data-cell]");
    if (!cell || !page.match) return;
    page.focus = cell.dataset.cell;
    clickCell(cell.dataset.cell);
  });
  svg.addEventListener("keydown", (event) => page.match && boardKey(event));
  svg.addEventListener("pointerdown", () => {
    page.keyboard = false;
  });
  svg.addEventListener("focus", () => {
    if (page.match) {
      drawFocus();
      announceFocus();
    }
  });
  svg.addEventListener("blur", () => page.match && drawFocus());
  document.addEventListener("keydown", pageKey);
  $("nav-first").addEventListener("click", () => goTo(0));
  $("nav-prev").addEventListener("click", () => goTo((page.viewPly ?? page.match.ply) - 1));
  $("nav-next").addEventListener("click", () => goTo((page.viewPly ?? page.match.ply) + 1));
  $("nav-last").addEventListener("click", () => goTo(page.match.ply));
  $("flip").addEventListener("click", () => {
    page.flipped = !page.flipped;
    renderPanel();
    drawBoard();
  });
  $("undo").addEventListener("click", undo);
  $("analyse").addEventListener("click", analyse);
  $("move-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("move-input");
    const text = input.value.trim();
    if (!text) {
      $("move-error").textContent = "Type a move first, such as a cell name (c3) or a direction (ne).";
      return;
    }
    if (await sendMove(text)) input.value = "";
  });
  setupImport($("import-form"));
}

wire();
refresh().then(() => page.match && connect());

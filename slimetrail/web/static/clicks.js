// A turn made click by click, for every page that plays moves (the play page, puzzles): the
// server answers the legal next clicks after the clicks made so far (the game's
// State.next_clicks: click -> the move it completes, or null where more clicks follow); a
// click that completes a move sends it. The page says where to ask, how to send a move and
// how to show a board; this marks the legal and chosen cells and shows the buttons of the
// clicks that are no cell (pass, swap), the move so far and Cancel.
import { _, api } from "./common.js";

export class Turn {
  // `url(prefix)`: where the next clicks after `prefix` are asked; `send(move)`: plays a
  // completed move; `show(svg)`: draws a board with the clicks (calling `mark`, `renderBar`);
  // `start()`: the position's own {clicks, losing} and `redraw()` its board, for Cancel;
  // `fail(message)`: a failed request; `refuse(click)`: a click that starts no move;
  // `current(answer)`: whether an answer is still for the position shown.
  constructor({ url, send, show, start, redraw, fail, refuse, current = () => true }) {
    Object.assign(this, { url, send, show, start, redraw, fail, refuse, current });
    this.reset({});
  }

  // A new position: no click made, `clicks` its first ones (`losing`: those that lose at once).
  reset(clicks, losing = []) {
    this.request = (this.request || 0) + 1; // an answer for an earlier position is dropped
    this.prefix = [];
    this.clicks = clicks || {};
    this.losing = losing;
    this.toGo = null; // [fewest, most] clicks still to make for the move under way
    this.steps = null; // {left, total, text}: the steps still to make, for games whose turns have steps
  }

  picking() {
    return this.prefix.length > 0;
  }

  async click(click) {
    if (!(click in this.clicks)) {
      // Not a continuation: start over, from this cell if it begins some move.
      const restart = this.picking();
      if (restart) this.cancel();
      if (restart && click in this.clicks) await this.click(click);
      else if (!restart) this.refuse(click);
      return;
    }
    const move = this.clicks[click];
    if (move !== null) {
      await this.send(move);
      return;
    }
    const prefix = [...this.prefix, click];
    const request = ++this.request;
    try {
      const answer = await api(this.url(prefix));
      if (request !== this.request || !this.current(answer)) return;
      Object.assign(this, {
        prefix,
        clicks: answer.clicks,
        losing: answer.losing || [],
        toGo: answer.to_go || null,
        steps: answer.steps || null,
      });
      this.show(answer.svg);
    } catch (exc) {
      this.fail(exc.message);
    }
  }

  // Back to the position's first clicks, its board shown again.
  cancel() {
    const { clicks, losing } = this.start();
    this.reset(clicks, losing);
    this.redraw();
  }

  // Class names the renderer's interactive board styles: legal, losing, chosen.
  mark(board, live = true) {
    const clicks = live ? this.clicks : {};
    for (const node of board.querySelectorAll("[data-cell]")) {
      const name = node.dataset.cell;
      const legal = name in clicks;
      const losing = legal && this.losing.includes(name);
      const chosen = live && this.prefix.includes(name);
      node.classList.toggle("legal", legal);
      node.classList.toggle("losing", losing);
      node.classList.toggle("chosen", chosen);
      const words = [node.getAttribute("aria-label") || name];
      if (legal) words.push(losing ? _("legal move, loses at once") : _("legal move"));
      if (chosen) words.push("chosen");
      node.setAttribute("aria-label", words.join(", "));
    }
  }

  // How much of the turn under way is still to make: in the game's own steps where its turns
  // declare them (Snake Pit: snakes, two clicks each), else in clicks.
  toGoText() {
    if (this.steps) return _("{steps} still to move this turn", { steps: this.steps.text });
    if (!this.toGo) return "";
    const [fewest, most] = this.toGo;
    const count = fewest === most ? String(fewest) : `${fewest}\u2013${most}`;
    return most === 1
      ? _("{count} more click to finish this turn", { count })
      : _("{count} more clicks to finish this turn", { count });
  }

  // Buttons for the clicks that are no cell (pass, swap) in `bar`, the move so far in
  // `partial`, what is still to click in `toGo`, and the `cancel` button shown while picking.
  renderBar({ board, bar, partial, toGo, cancel }, live = true) {
    bar.replaceChildren();
    const cells = new Set([...board.querySelectorAll("[data-cell]")].map((n) => n.dataset.cell));
    for (const [click, move] of Object.entries(live ? this.clicks : {})) {
      if (cells.has(click)) continue;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "action";
      button.dataset.action = click;
      button.textContent = click.charAt(0).toUpperCase() + click.slice(1);
      button.addEventListener("click", () => this.click(click));
      bar.append(button);
      if (move === null) button.title = _("more clicks follow");
    }
    const picking = live && this.picking();
    partial.hidden = !picking;
    partial.textContent = picking ? _("Move so far: {clicks}", { clicks: this.prefix.join(" ") }) : "";
    const left = picking ? this.toGoText() : "";
    toGo.hidden = !left;
    toGo.textContent = left;
    cancel.hidden = !picking;
  }
}

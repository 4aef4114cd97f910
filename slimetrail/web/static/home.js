// Home page: show (and submit) only the fields that matter for the chosen opponent, or, with
// "Choose each seat" open, the seats one by one (sent as seats=me,friend,computer:2).
import { _, setupImport } from "./common.js";

function show(field, visible) {
  field.hidden = !visible;
  field.querySelectorAll("select, input").forEach((input) => {
    input.disabled = !visible;
  });
}

for (const form of document.querySelectorAll("form.new-game")) {
  const choices = form.querySelector(".seat-choices");
  const seats = [...choices.querySelectorAll("select[data-seat]")];
  const joined = form.elements.seats;
  const update = () => {
    const each = choices.open;
    if (!each) {
      // Closed, the seats mirror the simple choice: opening starts from what it would make.
      const opponent = form.elements.opponent.value;
      const other = {
        computer: `computer:${form.elements.level.value}`,
        hotseat: "me",
        friend: "friend",
        human: "friend",
      };
      for (const select of seats) {
        select.value = select.dataset.seat === form.elements.side.value ? "me" : other[opponent];
      }
    }
    form.querySelectorAll(".simple-only").forEach((el) => show(el, !each));
    if (!each) {
      const opponent = form.elements.opponent.value;
      form.querySelectorAll(".computer-only").forEach((el) => show(el, opponent === "computer"));
      // Paired with a person online, the colours are drawn at random: no side to choose.
      const side = opponent !== "hotseat" && opponent !== "human";
      form.querySelectorAll(".seat-only").forEach((el) => show(el, side));
    }
    joined.disabled = !each;
    joined.value = seats.map((select) => select.value).join(",");
    // The server refuses a game without a seat of yours; say so before sending.
    const mine = seats.some((select) => select.value === "me");
    seats[0].setCustomValidity(!each || mine ? "" : _("At least one seat must be yours."));
  };
  choices.hidden = false;
  form.addEventListener("change", update);
  choices.addEventListener("toggle", update);
  update();
}

setupImport(document.getElementById("import-form"));

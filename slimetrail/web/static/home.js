// Home page: show (and submit) only the fields that matter for the chosen opponent.
import { setupImport } from "./common.js";

function show(field, visible) {
  field.hidden = !visible;
  field.querySelectorAll("select, input").forEach((input) => {
    input.disabled = !visible;
  });
}

for (const form of document.querySelectorAll("form.new-game")) {
  const update = () => {
    const opponent = form.elements.opponent.value;
    form.querySelectorAll(".computer-only").forEach((el) => show(el, opponent === "computer"));
    form.querySelectorAll(".seat-only").forEach((el) => show(el, opponent !== "hotseat"));
  };
  form.addEventListener("change", update);
  update();
}

setupImport(document.getElementById("import-form"));

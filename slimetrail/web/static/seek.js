// The waiting page of a seek: its WebSocket keeps the seek in the pool (closing the page
// cancels it) and brings the match's seat link when somebody is paired with it.
import { _ } from "./common.js";

(() => {
  const box = document.getElementById("seek");
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/seeks/${box.dataset.seek}`);
  let paired = false;
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "paired") {
      paired = true;
      location.assign(message.url);
    }
  });
  socket.addEventListener("close", (event) => {
    if (paired) return;
    document.getElementById("seek-status").hidden = true;
    document.getElementById("seek-reason").textContent = event.reason || _("connection lost ({code})", { code: event.code });
    document.getElementById("seek-gone").hidden = false;
    document.getElementById("seek-again").hidden = false;
  });
})();

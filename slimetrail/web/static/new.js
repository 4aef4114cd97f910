// The /new confirmation page: a person's browser goes straight on to the game.  Prefetchers
// and crawlers run no script (they stop at the button); a prerendered or background tab
// waits until it is shown.
(() => {
  const form = document.getElementById("new-match");
  let sent = false;
  const go = () => {
    if (sent || document.prerendering || document.visibilityState !== "visible") return;
    sent = true;
    form.requestSubmit();
  };
  document.addEventListener("visibilitychange", go);
  document.addEventListener("prerenderingchange", go);
  go();
})();

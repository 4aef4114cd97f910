// The lobby follows the seeks and games: every few seconds the page is fetched again and its
// lists replaced (the sentences stay in the template).
(() => {
  const refresh = async () => {
    if (document.visibilityState !== "visible") return;
    try {
      const answer = await fetch(`/lobby${location.search}`, { headers: { accept: "text/html" } });
      if (!answer.ok) return;
      const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
      const lists = fresh.getElementById("lobby-lists");
      if (lists) document.getElementById("lobby-lists").replaceWith(lists);
    } catch {
      // offline for a moment: the next round tries again
    }
  };
  setInterval(refresh, 4000);
})();

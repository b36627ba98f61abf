// The watch page's script (service/channels/web): follows a running game and steps through a finished one
// without reloading. The page is whole without it; this only swaps the parts that ".../data.json" returns.
(function () {
  "use strict";
  var root = document.getElementById("watch");
  if (!root) return;
  var url = root.dataset.url, lang = root.dataset.lang, page = location.pathname, asked = 0;

  function get(query) {
    return fetch(url + query, { cache: "no-cache", headers: { Accept: "application/json" } }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    });
  }

  function swap(d) {
    document.getElementById("w-head").innerHTML = d.parts.head;
    document.getElementById("w-board").innerHTML = d.parts.board;
    document.getElementById("w-log").innerHTML = d.parts.log;
    root.dataset.version = String(d.version);
    root.dataset.state = d.state;
    root.dataset.step = String(d.step);
  }

  if (root.dataset.live === "1") {
    setInterval(function () {
      get("?lang=" + lang).then(function (d) {
        if (d.over) return location.reload(); // the replay's controls come with the finished page
        if (d.state !== root.dataset.state) swap(d); // a move, or an answer (who is waited for)
      }).catch(function () { /* a missed poll: the next one catches up */ });
    }, 3000);
    return;
  }

  var nav = document.getElementById("w-nav");
  if (!nav) return;
  var slider = document.getElementById("w-slider");
  var prev = document.getElementById("w-prev"), next = document.getElementById("w-next");
  var where = document.getElementById("w-where");

  function point(a, step, steps) {
    var off = step < 0 || step >= steps;
    a.setAttribute("aria-disabled", String(off));
    if (off) a.removeAttribute("href");
    else a.setAttribute("href", page + "?step=" + step + "&lang=" + lang);
  }

  function go(step) {
    var mine = ++asked;
    get("?lang=" + lang + "&step=" + step).then(function (d) {
      if (mine !== asked) return; // a later step was asked meanwhile
      swap(d);
      slider.value = String(d.step);
      where.textContent = d.where;
      point(prev, d.step - 1, d.steps);
      point(next, d.step + 1, d.steps);
      history.replaceState(null, "", page + "?step=" + d.step + "&lang=" + lang);
    }).catch(function () { location.href = page + "?step=" + step + "&lang=" + lang; });
  }

  function by(delta) {
    return function (e) {
      e.preventDefault();
      var step = Number(root.dataset.step) + delta;
      if (step >= 0 && step <= Number(slider.max)) go(step);
    };
  }

  prev.addEventListener("click", by(-1));
  next.addEventListener("click", by(1));
  slider.addEventListener("input", function () { go(Number(slider.value)); });
  nav.querySelector("form").addEventListener("submit", function (e) { e.preventDefault(); go(Number(slider.value)); });
  document.addEventListener("keydown", function (e) {
    if (e.target === slider) return; // the slider moves itself with the arrows
    if (e.key === "ArrowLeft") by(-1)(e);
    else if (e.key === "ArrowRight") by(1)(e);
  });
})();

// The site's search when its pages are opened as files (site/index.html, no server): a
// browser starts no search worker and reads no JSON from file://, so on the first key the
// search box hears, lunr and the index (search/search_index.js, written by
// docs/hooks/search_index_js.py) are loaded as scripts and searched here, the results shown
// by the theme's own displayResults. Under a server (mkdocs serve) this does nothing.
(function () {
  if (location.protocol !== "file:") return;
  var root = typeof base_url === "string" ? base_url : ".";
  var index = null;
  var docs = {};
  var least = 3;
  var started = false;

  function load(source, then) {
    var script = document.createElement("script");
    script.src = root + "/search/" + source;
    script.onload = then;
    document.head.appendChild(script);
  }

  function build() {
    var data = window.mancalaSearchIndex;
    if (data.config && data.config.separator) lunr.tokenizer.separator = new RegExp(data.config.separator);
    if (data.config && data.config.min_search_length) least = data.config.min_search_length;
    index = lunr(function () {
      this.field("title");
      this.field("text");
      this.ref("location");
      data.docs.forEach(function (doc) { docs[doc.location] = doc; this.add(doc); }, this);
    });
  }

  function search() {
    var input = document.getElementById("mkdocs-search-query");
    if (!index || !input) return;
    var query = input.value;
    var found = [];
    if (query.length >= least) {
      try { found = index.search(query); } catch (error) { found = []; }   // a query lunr cannot read
    }
    displayResults(found.map(function (result) {
      var doc = docs[result.ref];
      return { location: doc.location, title: doc.title, summary: doc.text.substring(0, 200) };
    }));
  }

  function start() {
    if (started) { search(); return; }
    started = true;
    load("lunr.js", function () { load("search_index.js", function () { build(); search(); }); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var input = document.getElementById("mkdocs-search-query");
    if (!input) return;
    input.addEventListener("keyup", start);
    var asked = new URLSearchParams(location.search).get("q");
    if (asked) { input.value = asked; start(); }
  });
})();

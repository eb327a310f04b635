"""MkDocs hook: the search index written a second time as a script,
``search/search_index.js``, so the site's search box works when its pages are opened
as files (``site/index.html``): a browser starts no search worker and reads no JSON
from ``file://``, but it runs a script a page names; ``docs/js/search-from-file.js``
reads it and searches on the page."""
import os


def on_post_build(config, **kwargs):
    folder = os.path.join(config["site_dir"], "search")
    source = os.path.join(folder, "search_index.json")
    if not os.path.isfile(source):          # the search plugin is off
        return
    with open(source, encoding="utf-8") as handle:
        index = handle.read()
    with open(os.path.join(folder, "search_index.js"), "w", encoding="utf-8") as handle:
        handle.write("window.mancalaSearchIndex = " + index + ";\n")

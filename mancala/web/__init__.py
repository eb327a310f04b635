"""The web app (``python -m mancala serve``): the game and its analysis in a browser.

:mod:`mancala.web.api` answers requests with the library (Board, Engine,
players, storage) and needs nothing else; :mod:`mancala.web.app` puts it on
HTTP and a WebSocket with Starlette, installed by the ``web`` extra
(``pip install 'kalah[web]'``); :mod:`mancala.web.records` adds the
history and the review, :mod:`mancala.web.learn` the puzzles and the
search-tree explorer. The pages (``static/``: the game's page with its
History view, the learners' page, their scripts and stylesheets) are served
from the package and load nothing from any other host. The API: docs/web.md.
"""

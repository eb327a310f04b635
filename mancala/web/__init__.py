"""The web app (``python -m mancala serve``): the game and its analysis in a browser.

:mod:`mancala.web.api` answers requests with the library (Board, Engine,
players, storage) and needs nothing else; :mod:`mancala.web.app` puts it on
HTTP and a WebSocket with Starlette, installed by the ``web`` extra
(``pip install 'kalah[web]'``). The page (``static/``: one HTML file, one
stylesheet, one script) is served from the package and loads nothing from
any other host. The API: docs/web.md.
"""

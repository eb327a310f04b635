"""The package's version: its one literal.

``pyproject.toml`` reads it at build time (``[tool.setuptools.dynamic]``, by
attr: setuptools reads the assignment from this file's text and imports
nothing, so a build never needs the compiled core); ``mancala.__version__``,
``python -m mancala --version``, the engine protocol's ``id name`` and the web
app's ``/api/info`` all say it from here.
"""
__version__ = "0.1.0"

"""Argument types for the search limits the commands share (--depth, --time, --hash-mb)."""
from __future__ import annotations

import argparse
import math

import mancala
from mancala.errors import MancalaError, quote
from mancala.limits import check_hash_mb


def depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= mancala.MAX_DEPTH:
        raise argparse.ArgumentTypeError(
            f"depth is a whole number from 1 to {mancala.MAX_DEPTH}, not {quote(text)}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def seconds(text: str) -> float:
    value = _number(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"time is a positive number of seconds, not {quote(text)}")
    return value


def megabytes(text: str) -> float:
    """A table size: mancala.limits.check_hash_mb's range and its one line."""
    try:
        return check_hash_mb(_number(text), given=text)
    except MancalaError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None

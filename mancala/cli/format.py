"""How the commands write times for people: one rule for each, shared by every command."""
from __future__ import annotations

import calendar
import time
from typing import Optional


def ms(seconds: Optional[float]) -> str:
    """Milliseconds without a unit, to about three significant digits, in a
    fixed-point form a column can align: '0.42', '7.25', '12.5', '1,234'; '-' for None.
    """
    if seconds is None:
        return "-"
    value = 1000 * seconds
    if value < 10:
        return f"{value:.2f}"
    if value < 100:
        return f"{value:.1f}"
    return f"{value:,.0f}"


def duration(seconds: float) -> str:
    """A time with its unit: '340 ms' under a second, '12.5 s' under two
    minutes, '3.2 min' beyond."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120:
        return f"{seconds:.1f} s"
    return f"{seconds / 60:.1f} min"


def local_time(stamp: str) -> str:
    """A time the files keep in UTC ('2026-05-01T12:00:00Z') as this machine's
    local time, to the minute ('2026-05-01 14:00'); other text as it is."""
    try:
        seconds = calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ"))
    except (TypeError, ValueError, OverflowError):
        return str(stamp)
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


__all__ = ["ms", "duration", "local_time"]

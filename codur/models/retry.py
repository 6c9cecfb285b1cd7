"""Retrying a model call that failed for a passing reason (a dropped connection, a
timeout, 429, 5xx): at most `attempts` tries, waiting `backoff_s`, then twice as long
each time, or as long as the server asked (`Retry-After`, up to MAX_RETRY_AFTER_S)."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from typing import Any

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)

MAX_RETRY_AFTER_S = 60.0
"""The longest wait a server's `Retry-After` gets before the next attempt."""


class Transient(Exception):
    """An attempt failed in a way another attempt may not: `reason` says how, in a line;
    `after_s`: how long the server asked to wait (None: it did not say)."""

    def __init__(self, reason: str, after_s: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.after_s = reason, after_s


def retry_after(exc: BaseException) -> float | None:
    """The wait an HTTP error's response asks for (`Retry-After`, in seconds or as a
    date; `retry-after-ms`), or None."""
    headers: Any = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    try:
        if (ms := headers.get("retry-after-ms")) is not None:
            return max(0.0, float(ms) / 1000)
        if (value := headers.get("retry-after")) is None:
            return None
        if value.strip().replace(".", "", 1).isdigit():
            return float(value)
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):  # a header that says nothing usable
        return None
    return max(0.0, when - time.time())


def retrying(
    attempts: int,
    backoff_s: float,
    pause: Callable[[float], None],
    on_retry: Callable[[int, str, float], None],
) -> Retrying:
    """Calls its argument until it returns or raises anything but Transient, at most
    `attempts` times (the last Transient is raised); before each wait `on_retry(attempt,
    reason, delay_s)` hears of the failed attempt, then `pause(delay_s)` waits."""

    # tenacity rather than a counting loop: its stop, wait and before-sleep policies are
    # the well-tested parts every retry needs, and langchain-core already depends on it.
    def before_sleep(state: RetryCallState) -> None:
        failed = state.outcome.exception() if state.outcome is not None else None
        delay = state.next_action.sleep if state.next_action is not None else 0.0
        on_retry(state.attempt_number, getattr(failed, "reason", str(failed)), delay)

    backoff = wait_exponential(multiplier=backoff_s)

    def wait(state: RetryCallState) -> float:
        failed = state.outcome.exception() if state.outcome is not None else None
        asked = getattr(failed, "after_s", None)
        if asked is None:
            return backoff(state)
        return max(backoff(state), min(asked, MAX_RETRY_AFTER_S))

    return Retrying(
        retry=retry_if_exception_type(Transient),
        stop=stop_after_attempt(attempts),
        wait=wait,
        sleep=pause,
        before_sleep=before_sleep,
        reraise=True,
    )

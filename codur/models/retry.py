"""Retrying a model call that failed for a passing reason (a dropped connection, a
timeout, 429, 5xx): at most `attempts` tries, waiting `backoff_s`, then twice as long
each time."""

from __future__ import annotations

from collections.abc import Callable

from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)


class Transient(Exception):
    """An attempt failed in a way another attempt may not: `reason` says how, in a line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


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

    return Retrying(
        retry=retry_if_exception_type(Transient),
        stop=stop_after_attempt(attempts),
        wait=wait_exponential(multiplier=backoff_s),
        sleep=pause,
        before_sleep=before_sleep,
        reraise=True,
    )

"""The retry policy, word for word the TypeScript SDK's (libs/clients/sdk/src/retry.ts), in seconds."""

from __future__ import annotations

import random as _random
import re
from dataclasses import dataclass, replace
from email.utils import parsedate_to_datetime
from typing import Callable, Optional

from ._errors import TextMemoryError


@dataclass(frozen=True)
class RetryPolicy:
    """The spec's client defaults (timeout 30, max_retries 2), with backoff bounds of our choosing."""

    timeout: float = 30.0
    """Seconds per attempt (see the README for what the sync client bounds)."""
    max_retries: int = 2
    """Retries after the first attempt (three attempts in all)."""
    backoff_base: float = 0.5
    """First backoff ceiling; attempt n waits a random time in [0, min(backoff_max, backoff_base · 2ⁿ)]."""
    backoff_max: float = 8.0
    """Largest backoff ceiling."""
    retry_after_max: float = 30.0
    """A server's Retry-After is honoured up to this."""

    def with_overrides(self, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> "RetryPolicy":
        """This policy with a call's own timeout or max_retries, when given."""
        policy = self
        if timeout is not None:
            policy = replace(policy, timeout=timeout)
        if max_retries is not None:
            policy = replace(policy, max_retries=max_retries)
        return policy


def should_retry(error: TextMemoryError, attempt: int, policy: RetryPolicy, safe: bool) -> bool:
    """Whether a failed attempt is tried again (attempt counts from 0).

    - An answer is retried only when it is retryable (``retryable: true``, or 429/503/504 without a body
      saying so): never a 400, 401, 403, 404 or plain 409; 409 ``idempotency_in_flight`` says retryable.
      A 504 means the server may have done the work, so it is retried only when the call is safe to
      repeat, as are connection failures and timeouts.
    - Safe to repeat: GETs, writes carrying an idempotency key, and calls the API documents as idempotent.
    """
    if attempt >= policy.max_retries:
        return False
    if error.code in ("aborted", "validation_failed"):
        return False
    if error.status == 0:
        return safe and error.code in ("connection_failed", "timeout")
    if not error.retryable:
        return False
    return safe if error.status == 504 else True


_SECONDS = re.compile(r"^\d+(\.\d+)?$")


def retry_after_seconds(header: Optional[str], policy: RetryPolicy, now: Optional[float] = None) -> Optional[float]:
    """Retry-After (seconds or an HTTP date) in seconds, capped; None when absent or unreadable."""
    if not header:
        return None
    trimmed = header.strip()
    if _SECONDS.match(trimmed):
        seconds = float(trimmed)
    else:
        try:
            when = parsedate_to_datetime(trimmed)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None or when.tzinfo is None:
            return None
        import time

        seconds = when.timestamp() - (time.time() if now is None else now)
    return min(max(0.0, seconds), policy.retry_after_max)


def backoff_seconds(attempt: int, policy: RetryPolicy, random: Callable[[], float] = _random.random) -> float:
    """Exponential backoff with full jitter: spreads the retries of many clients hit by one outage."""
    ceiling = min(policy.backoff_max, policy.backoff_base * 2.0**attempt)
    return random() * ceiling

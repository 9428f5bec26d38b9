"""The sync client cannot drift from the async one: _client.py is what scripts/unasync.py writes from
_async_client.py, and the script refuses an async client its rules no longer fit."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

PACKAGE = Path(__file__).resolve().parent.parent


def load_unasync() -> Any:
    spec = importlib.util.spec_from_file_location("unasync", PACKAGE / "scripts" / "unasync.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_sync_client_is_what_the_async_one_generates() -> None:
    unasync = load_unasync()
    committed = (PACKAGE / "src" / "text_memory" / "_client.py").read_text(encoding="utf-8")
    assert committed == unasync.render(unasync.SOURCE.read_text(encoding="utf-8")), (
        "src/text_memory/_client.py is stale: run `python3 libs/clients/python/scripts/unasync.py`"
    )


def test_when_a_rule_no_longer_matches_the_async_client_then_the_script_refuses_to_write() -> None:
    unasync = load_unasync()
    source = unasync.SOURCE.read_text(encoding="utf-8")
    # An async client whose one wait no longer sleeps by asyncio.sleep: the rule giving its sync twin
    # the caller's cancel would match nothing.
    without_sleep = source.replace("await asyncio.sleep(poll_interval)", "await pause(poll_interval)")

    with pytest.raises(ValueError, match=r"matches nothing in _async_client\.py"):
        unasync.render(without_sleep)

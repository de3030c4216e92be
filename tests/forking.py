"""Forking while another thread holds a lock: what a forked child (a gunicorn --preload worker, a
multiprocessing pool's) then finds of a module's lock."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from typing import Any


def exit_code_of_a_child_forked_while_held(lock: Any, use: Callable[[], None], timeout_s: float = 10.0) -> int | None:
    """Fork (multiprocessing's "fork") while another thread holds ``lock`` (for a second from the
    fork's start), the child running ``use()``: the child's exit code, ``None`` when it had not
    ended after ``timeout_s`` seconds (it is killed then: a hung child cannot hang the tests)."""
    held = threading.Event()

    def hold() -> None:
        with lock:
            held.set()
            time.sleep(1.0)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(timeout=10), "the thread never took the lock"
        child = multiprocessing.get_context("fork").Process(target=use)
        child.start()
        child.join(timeout=timeout_s)
        if child.is_alive():
            child.kill()
            child.join()
            return None
        return child.exitcode
    finally:
        holder.join(timeout=10)

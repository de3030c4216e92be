"""Other libraries' log messages that concern nothing a user of this package did, silenced around
the calls that make them:

    quiet_logger(name)     only errors from logger ``name`` and the loggers below it (its level)
    quiet_records(name)    only errors from logger ``name`` itself, its level untouched
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator


@contextlib.contextmanager
def quiet_logger(name: str) -> Iterator[None]:
    """Log only errors from logger ``name`` (and those below it) while the block runs."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


@contextlib.contextmanager
def quiet_records(name: str) -> Iterator[None]:
    """Drop the records below ERROR that logger ``name`` itself makes while the block runs, without
    changing its level: transformers reads the level of ``transformers.modeling_utils`` to decide
    what to check while loading (at WARNING or above it checks a tensor-parallel plan, and warns
    of every layer a plain model does not shard)."""
    logger = logging.getLogger(name)

    def errors_only(record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR

    logger.addFilter(errors_only)
    try:
        yield
    finally:
        logger.removeFilter(errors_only)

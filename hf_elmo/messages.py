"""How the package's refusals name what they refuse: a value (``described``, ``one_of``; a string the user gave:
``quoted``), another model's config (``another_model``), a list of names (``some_of``), another library's error
(``first_line``), the system's error without its ``[Errno N]`` (``error_text``; its reason alone: ``error_reason``),
what a number setting must be (``is_number``), and how to install hf-elmo (``INSTALL_HF_ELMO``).

Standard library only, as it travels with the model's code for ``trust_remote_code`` (``configuration_elmo.py``,
``tokenization_elmo.py`` and the modeling files import it relatively; ``hf_elmo.output_folders.MODEL_CODE_FILES``).
Importing it as ``hf_elmo.messages`` still imports the package (torch and transformers) first.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from typing import Any

#: How to install the hf-elmo package, as the README says (it is not on PyPI): for a message that
#: asks for it, and the usage code of a model card (``hf_elmo.model_card``).
INSTALL_HF_ELMO = "pip install -e . in its clone"


def described(value: Any) -> str:
    """``value`` as a refusal of it names it, on one line: "None"; its type and its repr ("the int 7", "the str
    'abc'"), cut after 40 characters; or, where that repr spans lines or is no value's ("<... object at 0x...>"),
    its type alone ("a value of type ElmoModel"), as where its repr fails: the one way the package's errors show a
    value they refuse."""
    if value is None:
        return "None"
    kind = type(value).__name__
    try:
        text = repr(value)
    except Exception:  # the refusal is what the user needs, not this value's broken repr
        return f"a value of type {kind}"
    if "\n" in text or text.startswith("<"):
        return f"a value of type {kind}"
    return f"the {kind} {_cut(text)}"


def quoted(text: str) -> str:
    """``text``, a value the user gave (``--device``, ``--shard``), as a refusal of it quotes it: its repr, cut after
    40 characters as ``described`` cuts one (``'abc'``, ``'xxxx...``), without its type."""
    return _cut(repr(text))


def _cut(text: str) -> str:
    """``text`` cut after 40 characters (``...`` after them): how long a refused value's repr may be."""
    return text if len(text) <= 40 else text[:40] + "..."


def one_of(value: Any, choices: Sequence[Any]) -> bool:
    """``value in choices``, where an array or a tensor (whose ``==`` compares element by element, so that ``in``
    fails with numpy's 'truth value of an array is ambiguous') is none of them: how a setting of a few allowed
    values is checked, before ``described`` names what it got."""
    return getattr(value, "shape", ()) == () and value in choices


def another_model(model_type: Any) -> str:
    """What a ``config.json`` whose ``model_type`` is not ELMo's holds the config of, as the refusal of it says:
    "a bert model", or, where that field is no model's short name (a list, a long or blank string), "another
    model"."""
    named = isinstance(model_type, str) and re.fullmatch(r"[\w.-]{1,40}", model_type)
    return f"a {model_type} model" if named else "another model"


def some_of(items: Sequence[str], limit: int, separator: str = ", ") -> str:
    """Up to ``limit`` of ``items``, in their order, and how many more there are ("a, b, c and 1,204 more"): how
    a refusal lists what it found; ``separator`` between them (a usage error lists arguments as a shell has them:
    " ")."""
    more = f" and {len(items) - limit:,} more" if len(items) > limit else ""
    return separator.join(items[:limit]) + more


def first_line(error: BaseException, with_type: bool = False) -> str:
    """The first line of ``error``'s message that says something (stripped), as a one-line error quotes another
    library's (whose messages span lines), after its type's name with ``with_type`` ("SafetensorError: invalid
    header"); where it says nothing, its type's name alone."""
    line = next((part.strip() for part in str(error).splitlines() if part.strip()), "")
    if not line:
        return type(error).__name__
    return f"{type(error).__name__}: {line}" if with_type else line


def error_text(error: object) -> str:
    """``error`` as a failure's one line says it: an ``OSError`` that the system raised, whose text Python words
    ``[Errno 2] No such file or directory: 'x.txt'``, as a command-line tool does, ``x.txt: No such file or
    directory`` (``a -> b: ...`` for two files, the reason alone for none); anything else, one of this package's
    messages included (``hf_elmo.fileio.oserror_in_one_line``), as its ``str``. The one home of that wording (the
    ``elmo`` command's last-resort line, the scripts' ``exit_with_error``, spacy_elmo's cache and layer-weight
    errors)."""
    if not isinstance(error, OSError) or error.strerror is None:
        return str(error)
    named = " -> ".join(str(name) for name in (error.filename, error.filename2) if name is not None)
    return f"{named}: {error.strerror}" if named else error.strerror


def error_reason(error: BaseException) -> str:
    """What went wrong, as a message that names the file already quotes it: an ``OSError``'s reason alone
    ("Permission denied", without ``[Errno 13]`` and the file), another error's first line (``first_line``)."""
    strerror = error.strerror if isinstance(error, OSError) else None
    return strerror or first_line(error)


def is_number(value: Any, *, whole: bool = False) -> bool:
    """Whether ``value`` is a finite number (``whole``: an integer), not a bool, as a number setting must be: the
    config's fields, and the spaCy settings (spaCy's check of a config's types lets a number written as a string
    through, "0.2", and ``inf`` and ``nan``, which a config reads as strings; Python callers may give anything)."""
    kind = numbers.Integral if whole else numbers.Real
    return isinstance(value, kind) and not isinstance(value, bool) and math.isfinite(value)

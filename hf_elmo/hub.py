"""Fetching a model's files from the Hugging Face Hub into the Hub cache (or, offline, finding
them there) for the resolver (``hf_elmo.loading``): ``hub_arguments`` (which of
``from_pretrained``'s keyword arguments go to the Hub), ``hub_patterns`` (the files of one model,
not those of the models in its subfolders), ``fetch_snapshot`` (``snapshot_download``, its
failures, its HTTP client's too, told as one-line ``ModelNotFoundError``), ``hub_probe`` (the small
files that say a repository's format, fetched first; it refuses a subfolder written with a
backslash or leading out of the repository) and ``hub_subfolder_hint``; ``is_offline``.
huggingface_hub is imported only when the Hub is asked.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from types import ModuleType
from typing import Any

from transformers.utils import CONFIG_NAME

from .configuration_elmo import HUB_KWARGS
from .elmo_weights import InvalidModelError
from .messages import first_line, some_of
from .original_files import OPTIONS_NAMES, original_options_file
from .subfolders import ModelNotFoundError, check_inside, in_subfolder, subfolder_hint


def hub_patterns(
    subfolder: str, allow: Sequence[str], ignore: Sequence[str] = (), depth: int = 0
) -> dict[str, list[str]]:
    """``snapshot_download``'s ``allow_patterns`` and ``ignore_patterns`` for the files of a Hub
    repository's ``subfolder`` (its top where none is given) that match ``allow`` and none of
    ``ignore``, and not the files of the folders inside it (``depth`` levels of folders down:
    ``allow`` then names them, e.g. ``*/config.json``): huggingface_hub's ``*`` matches ``/`` too
    (``huggingface_hub.utils.filter_repo_objects``), so ``*.safetensors`` alone would fetch the
    weights of every model the repository holds in its folders. The ``subfolder``'s name is matched
    as it is written (``_literal``: ``m[1]``, ``a*``)."""
    prefix = f"{_literal(subfolder.strip('/'))}/" if subfolder else ""
    deeper = "*/" * (depth + 1) + "*"
    return {
        "allow_patterns": [prefix + pattern for pattern in allow],
        "ignore_patterns": [prefix + pattern for pattern in [*ignore, deeper]],
    }


def _literal(name: str) -> str:
    """A glob pattern (``fnmatch``'s, which huggingface_hub's patterns follow) that matches ``name``
    alone: its ``*``, ``?`` and ``[`` each in brackets."""
    return re.sub(r"([*?[])", r"[\1]", name)


def hub_arguments(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The Hub arguments (``HUB_KWARGS``: cache, revision, token, ...) among ``from_pretrained``'s ``kwargs``."""
    return {k: v for k, v in kwargs.items() if k in HUB_KWARGS}


def hub_probe(
    repo_id: str,
    hub: dict[str, Any],
    marks: Sequence[str] = (CONFIG_NAME,),
    patterns: Sequence[str] = (),
    subfolder: str = "",
) -> Path:
    """The folder (``subfolder``, ``in_subfolder``) of the repository's snapshot holding its small
    files that say its format (one of ``marks``, e.g. ``config.json``: a ``save_pretrained`` folder;
    or an options file, ``original_options_file``'s: the original files) and those matching
    ``patterns``, fetched into (or found in) the cache; ``InvalidModelError`` when it holds none. The
    first call of every look-up in a Hub repository: a ``subfolder`` no Hub path can be is refused here,
    before anything is fetched (``_check_hub_subfolder``)."""
    _check_hub_subfolder(repo_id, subfolder)
    snapshot = fetch_snapshot(repo_id, hub, **hub_patterns(subfolder, [*marks, *OPTIONS_NAMES, *patterns]))
    folder = snapshot / subfolder
    # a subfolder of which nothing was fetched holds no model where the repository's listing names
    # files in it (said below), and is not there where it names none
    if not folder.is_dir() and not any(
        path.startswith(f"{subfolder.strip('/')}/") for path in _repository_files(repo_id, hub)
    ):
        offline = " (its copy in the local Hub cache: offline)" if is_offline(hub) else ""
        folder = in_subfolder(snapshot, subfolder, f"Hub repository {repo_id}{offline}")
    # nothing fetched (online): snapshot_download names a snapshot folder that it did not create
    if not any((folder / mark).is_file() for mark in marks) and (
        not folder.is_dir() or original_options_file(folder) is None
    ):
        inside = f" (subfolder {subfolder!r})" if subfolder else ""
        raise InvalidModelError(
            f"Hub repository {repo_id}{inside} holds none of {', '.join([*marks, *OPTIONS_NAMES])}: not an ELMo "
            f"model{hub_subfolder_hint(repo_id, hub, subfolder)}"
        )
    return folder


def _check_hub_subfolder(repo_id: str, subfolder: str) -> None:
    """Raise ``ValueError`` for a ``subfolder`` that leads out of the repository (``check_inside``), and for
    one written with a backslash, saying to
    write it with "/": huggingface_hub reads a backslash in its patterns as "/" (its paths always use
    "/"), so it would fetch the files of the folder with "/" and look for them under the backslash."""
    check_inside(subfolder, f"Hub repository {repo_id}")
    if "\\" in subfolder:
        slashed = subfolder.replace("\\", "/")
        raise ValueError(
            f"the subfolder {subfolder!r} of Hub repository {repo_id} holds a backslash, which the Hub reads as "
            f"'/': write it with '/' (subfolder={slashed!r})"
        )


def hub_subfolder_hint(repo_id: str, hub: dict[str, Any], subfolder: str) -> str:
    """``subfolder_hint`` of the repository's ``subfolder``, from the small files that mark a model
    (``config.json``, an options file) in the folders right inside it, fetched into (or found in)
    the cache; "" where they cannot be had."""
    marks = [f"*/{mark}" for mark in [CONFIG_NAME, *OPTIONS_NAMES]]
    try:
        snapshot = fetch_snapshot(repo_id, hub, **hub_patterns(subfolder, marks, depth=1))
    except ModelNotFoundError:  # e.g. offline, a cache that holds the repository's other files only
        return ""
    return subfolder_hint(snapshot / subfolder, subfolder)


def _repository_files(repo_id: str, hub: Mapping[str, Any]) -> list[str]:
    """The paths of the files of the repository (at ``hub``'s revision) as its tree listing names
    them, which huggingface_hub keeps in the Hub cache from any download (``get_cached_repo_tree``);
    none where it keeps none (a huggingface_hub without it, a revision never fetched online)."""
    try:
        from huggingface_hub import get_cached_repo_tree
        from huggingface_hub.errors import CachedRepoTreeNotFoundError
    except ImportError:  # huggingface_hub before its tree listing cache
        return []
    try:
        listing = get_cached_repo_tree(repo_id, revision=hub.get("revision"), cache_dir=hub.get("cache_dir"))
    except CachedRepoTreeNotFoundError:
        return []
    return [file.path for file in listing]


def fetch_snapshot(repo_id: str, hub: dict[str, Any], **patterns: Any) -> Path:
    """The folder of the repository's snapshot holding the files that ``patterns`` let through
        (``snapshot_download``'s ``allow_patterns`` / ``ignore_patterns``: ``hub_patterns``), fetched
        into or, offline, found in the Hub cache, as ``hub`` (``hub_arguments``) says; where they cannot
        be had (offline and not cached, or cached in part, as a download cut short leaves it: the files
        it lacks named; no such repository or revision, no access, an error from the Hub,
        ``force_download`` offline; no answer within huggingface_hub's ``HF_HUB_DOWNLOAD_TIMEOUT``, which
    bounds every request it makes, ``_bounded_requests``), a one-line ``ModelNotFoundError`` that says
    why; it names the local folder that ``repo_id``'s first part is, where it is one (``_local_hint``)."""
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    tried = f"{repo_id!r} is not a local folder{_local_hint(repo_id)}, so it was looked up as a Hub repository"
    offline = is_offline(hub)
    if offline and hub.get("force_download"):  # snapshot_download would give the cached copy it was asked to replace
        raise ModelNotFoundError(
            f"{tried}: force_download=True asks for a fresh download, but this is offline (HF_HUB_OFFLINE or "
            "local_files_only); drop force_download to load the cached copy, or go online"
        )
    try:
        with _bounded_requests():
            return Path(snapshot_download(repo_id, **patterns, **hub))
    except LocalEntryNotFoundError as err:
        why = "offline (HF_HUB_OFFLINE or local_files_only)" if offline else "the Hub could not be reached"
        todo = "download it online once, or give a local folder"
        if isinstance(err.__cause__, _client().TimeoutException):  # snapshot_download's look-up got no answer
            why = f"the Hub did not answer within {constants.HF_HUB_DOWNLOAD_TIMEOUT} s (HF_HUB_DOWNLOAD_TIMEOUT)"
            todo = (
                "check the network and proxy settings (HTTPS_PROXY), or set HF_HUB_OFFLINE=1 not to ask the Hub, or "
                "give a local folder"
            )
        revision = hub.get("revision")
        cache = hub.get("cache_dir") or constants.HF_HUB_CACHE
        snapshot = getattr(err, "snapshot_path", None)  # IncompleteSnapshotError: a download cut short
        if snapshot is not None:
            copy = "its copy" if revision is None else f"the copy of its revision {revision!r}"
            missing = _missing_files(repo_id, hub, Path(snapshot), patterns)
            command = shlex.join(
                ["hf", "download", repo_id]
                + (["--revision", revision] if revision is not None else [])
                + (["--cache-dir", str(hub["cache_dir"])] if hub.get("cache_dir") else [])
            )
            raise ModelNotFoundError(
                f"{tried}: {why} and {copy} in the local Hub cache {cache} is incomplete{missing}: load it online "
                f"once, or run `{command}`, to complete it, or give a local folder"
            ) from None
        what = "it is" if revision is None else f"its revision {revision!r} is"
        raise ModelNotFoundError(f"{tried}: {why} and {what} not in the local Hub cache {cache}; {todo}") from None
    except (RepositoryNotFoundError, GatedRepoError, RevisionNotFoundError) as err:
        raise ModelNotFoundError(
            f"{tried}: no such repository or revision, or no access to it ({type(err).__name__})"
        ) from None
    except HfHubHTTPError as err:
        raise ModelNotFoundError(f"{tried}: the Hub answered {first_line(err)}") from None
    except _request_errors() as err:
        raise ModelNotFoundError(
            f"{tried}: {_request_failed(err)}, or set HF_HUB_OFFLINE=1 to load the copy in the local Hub cache, or "
            "give a local folder"
        ) from None


@contextmanager
def push_said(what: str, repo_id: str, saved: str | None = None) -> Iterator[None]:
    """``what`` (``ElmoModel.push_to_hub``, say) pushing to ``repo_id``, a request to the Hub that got
    no answer (no network, a proxy that refuses it) said in one line naming the repository and what to do,
    instead of the HTTP client's ``ConnectError``, which names neither. ``saved``: the folder already
    saved whole (``save_pretrained(push_to_hub=True)``), which the line names for uploading later."""
    try:
        yield
    except _request_errors() as err:
        later = (
            f"; the folder {saved} is saved whole: upload it later (hf upload {repo_id} {saved})"
            if saved is not None
            else f", or save_pretrained(FOLDER) and upload the folder later (hf upload {repo_id} FOLDER)"
        )
        raise OSError(f"{what} {repo_id}: {_request_failed(err)}{later}") from None


def _request_failed(err: Exception) -> str:
    """What a request to the Hub that got no answer (one of ``_request_errors``) says: why, and what to check."""
    return (
        f"the request to the Hub failed ({first_line(err, with_type=True)}); check the network and proxy settings "
        "(HTTPS_PROXY)"
    )


def _request_errors() -> tuple[type[Exception], ...]:
    """The errors of huggingface_hub's HTTP client (``_client``) for a request that got no
    answer from the Hub, which ``snapshot_download`` raises as they are where it does not fall back to
    the cache: a proxy that refuses the request (``ProxyError``: it raises those on purpose), a
    connection cut mid-answer."""
    return (_client().RequestError,)


def _client() -> ModuleType:
    """The module of huggingface_hub's HTTP client: httpx, or its successor."""
    import importlib

    from huggingface_hub import get_session

    return importlib.import_module(type(get_session()).__module__.split(".")[0])


#: The seconds every request that ``fetch_snapshot`` makes waits for the Hub at most (``_bounded_requests``).
_BOUND: ContextVar[float | None] = ContextVar("_BOUND", default=None)


@contextmanager
def _bounded_requests() -> Iterator[None]:
    """Every request of huggingface_hub's HTTP client in this context that has no timeout (its look-up of a
    repository, ``repo_info``, has none: a proxy that takes the connection and never answers kept
    ``snapshot_download`` waiting forever) waits ``HF_HUB_DOWNLOAD_TIMEOUT`` seconds at most, huggingface_hub's
    own setting (10; its environment variable sets it) for the requests it bounds."""
    from huggingface_hub import constants, get_session

    hooks = get_session().event_hooks["request"]
    if _bound_timeout not in hooks:  # a client of its own: a fresh one after close_session, a set_client_factory
        hooks.append(_bound_timeout)
    token = _BOUND.set(constants.HF_HUB_DOWNLOAD_TIMEOUT)
    try:
        yield
    finally:
        _BOUND.reset(token)


def _bound_timeout(request: Any) -> None:
    """The HTTP client's request hook of ``_bounded_requests``: each of the request's timeouts (connect,
    read, write, pool) that is none becomes the bound, in that context; others stay as they are."""
    bound = _BOUND.get()
    if bound is None:
        return
    timeout = request.extensions.get("timeout") or dict.fromkeys(("connect", "read", "write", "pool"))
    request.extensions = {
        **request.extensions,
        "timeout": {name: bound if seconds is None else seconds for name, seconds in timeout.items()},
    }


def _local_hint(repo_id: str) -> str:
    """`` (FOLDER is one, but holds no 'NAME': check the path)`` where the first part of ``repo_id``
    (``models`` of ``models/elmo``) is a local folder: a mistyped local path, more likely than a Hub id; ""
    where it is not."""
    first, _, rest = repo_id.partition("/")
    folder = Path(first).expanduser()
    if not folder.is_dir():
        return ""
    return f" ({folder} is one, but holds no {rest!r}: check the path)"


def _missing_files(repo_id: str, hub: Mapping[str, Any], snapshot: Path, patterns: Mapping[str, Any]) -> str:
    """The clause ``, without FILE, ...`` that names (the first three of) the files which
    ``patterns`` ask for, the repository's listing (``_repository_files``) names and its cached
    ``snapshot`` lacks; "" where none are known."""
    from huggingface_hub.utils import filter_repo_objects

    listed = filter_repo_objects(_repository_files(repo_id, hub), **patterns)
    missing = [path for path in listed if not (snapshot / path).is_file()]
    if not missing:
        return ""
    return f", without {some_of(missing, 3)}"


def is_offline(hub: Mapping[str, Any]) -> bool:
    """Whether the Hub is not asked (``HF_HUB_OFFLINE``, or ``from_pretrained``'s ``local_files_only``):
    files come from the local Hub cache only."""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE or hub.get("local_files_only"))

"""A Hub look-up that gets no answer (a proxy or server that takes the connection and never answers):
huggingface_hub's look-up of the repository (``repo_info``) has no timeout of its own, so `elmo embed
in.txt out.h5 --model models/elmo` (a mistyped local path shaped like owner/name) waited forever. Every
request is bounded by huggingface_hub's ``HF_HUB_DOWNLOAD_TIMEOUT``, then one line names the id, the
local folder its first part is, and what to do."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
from huggingface_hub import constants

from hf_elmo import ElmoModel
from hf_elmo.loading import ModelNotFoundError
from hf_elmo_cli import main

#: How long the silent server holds a connection before it closes it: past the test's bound, so that a
#: request without a timeout ends (with another error) instead of hanging the test.
HELD = 20.0


@pytest.fixture
def silent_hub(monkeypatch, tmp_path) -> Iterator[str]:
    """A Hub endpoint on this machine that takes every connection and never answers (it closes each after
    ``HELD`` seconds, or at the test's end); the bound set to 0.5 s, an empty Hub cache, online."""
    server = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        server.settimeout(0.1)
        while not done.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue
        for connection in held:
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    endpoint = f"http://127.0.0.1:{server.getsockname()[1]}"
    monkeypatch.setattr(constants, "ENDPOINT", endpoint)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DOWNLOAD_TIMEOUT", 0.5)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    stop = threading.Timer(HELD, done.set)
    stop.start()
    yield endpoint
    stop.cancel()
    done.set()
    thread.join()
    server.close()


def test_a_hub_that_never_answers_is_one_line_after_the_bound_naming_the_id_and_what_to_do(silent_hub, tmp_path):
    started = time.monotonic()
    with pytest.raises(ModelNotFoundError) as caught:
        ElmoModel.from_pretrained("org/elmo-silent")
    assert time.monotonic() - started < HELD
    assert str(caught.value) == (
        "'org/elmo-silent' is not a local folder, so it was looked up as a Hub repository: the Hub did not answer "
        f"within 0.5 s (HF_HUB_DOWNLOAD_TIMEOUT) and it is not in the local Hub cache {tmp_path / 'hub'}; check the "
        "network and proxy settings (HTTPS_PROXY), or set HF_HUB_OFFLINE=1 not to ask the Hub, or give a local folder"
    )


def test_elmo_embed_given_a_mistyped_local_path_names_the_folder_that_is_there(
    silent_hub, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    (tmp_path / "in.txt").write_text("a sentence\n")
    started = time.monotonic()
    assert main(["embed", "in.txt", "out.h5", "--model", "models/elmo"]) == 2
    assert time.monotonic() - started < HELD
    err = capsys.readouterr().err
    assert err == (
        "elmo embed: error: 'models/elmo' is not a local folder (models is one, but holds no 'elmo': check the "
        "path), so it was looked up as a Hub repository: the Hub did not answer within 0.5 s "
        f"(HF_HUB_DOWNLOAD_TIMEOUT) and it is not in the local Hub cache {tmp_path / 'hub'}; check the network and "
        "proxy settings (HTTPS_PROXY), or set HF_HUB_OFFLINE=1 not to ask the Hub, or give a local folder\n"
    )
    assert not (tmp_path / "out.h5").exists()


def test_a_timeout_the_request_sets_stays_and_the_bound_is_only_inside_the_look_up(silent_hub):
    from huggingface_hub import get_session

    from hf_elmo.hub import _bounded_requests

    with _bounded_requests():
        bounded = get_session().build_request("GET", silent_hub)
        kept = get_session().build_request("GET", silent_hub, timeout=3.0)
        for hook in get_session().event_hooks["request"]:
            hook(bounded)
            hook(kept)
    outside = get_session().build_request("GET", silent_hub, timeout=None)
    for hook in get_session().event_hooks["request"]:
        hook(outside)
    assert set(bounded.extensions["timeout"].values()) == {0.5}
    assert set(kept.extensions["timeout"].values()) == {3.0}
    assert set(outside.extensions["timeout"].values()) == {None}

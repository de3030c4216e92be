"""The activation cache of a frozen biLM returns exactly what recomputation gives."""

import asyncio
import contextlib
import pickle
import threading
import tracemalloc
import weakref
from unittest import mock

import numpy as np
import pytest
from spacy.tokens import Doc

from spacy_elmo import cache as activation_cache
from spacy_elmo import call_stack
from spacy_elmo.cache import ActivationCache, doc_key, entry_bytes
from tests.forking import exit_code_of_a_child_forked_while_held
from tests.spacy_elmo.pipeline_helpers import tiny_elmo

TEXTS = ["The cat sat on the mat .", "Hi", "A longer sentence with a few more words .", ""]


@pytest.mark.parametrize("cache_dir", [False, True])
def test_cached_layers_equal_recomputed_layers(make_nlp, tmp_path, cache_dir):
    cached = make_nlp(cache_mb=16, cache_dir=str(tmp_path / "cache") if cache_dir else None)
    uncached = make_nlp(cache_mb=0)
    elmo = cached.get_pipe("elmo")
    docs = [cached.make_doc(t) for t in TEXTS]
    first = elmo.predict(docs)
    assert len(elmo.cache) == len(TEXTS)
    again = elmo.predict([cached.make_doc(t) for t in TEXTS])  # all from the cache
    recomputed = uncached.get_pipe("elmo").predict([uncached.make_doc(t) for t in TEXTS])
    for a, b, c in zip(first, again, recomputed):
        np.testing.assert_array_equal(b, a)
        np.testing.assert_array_equal(b, c)
    # a doc computed in another batch composition: equal up to float rounding
    alone = uncached.get_pipe("elmo").predict([uncached.make_doc(TEXTS[0])])[0]
    np.testing.assert_allclose(again[0], alone, atol=1e-6)


def test_training_updates_read_the_cache_after_the_first_pass(make_nlp):
    from spacy.training import Example

    nlp = make_nlp(cache_mb=16)
    elmo = nlp.get_pipe("elmo")
    examples = [Example(nlp.make_doc(t), nlp.make_doc(t)) for t in TEXTS]
    elmo.update(examples)
    with mock.patch("spacy_elmo.bilm._run", side_effect=AssertionError("the biLM ran again")):
        elmo.update(examples)


@pytest.mark.parametrize("cache_dir", [False, True])
def test_memory_zone_releases_the_layers_cached_inside_it_and_keeps_those_cached_before(make_nlp, tmp_path, cache_dir):
    """``nlp.memory_zone()`` bounds the cache as it bounds the vocab: what the docs of the zone
    added goes (files too), the entries from before stay, and the layers are unchanged (was: the
    zone left every entry, so a service processing texts in zones filled cache_mb all the same)."""
    folder = tmp_path / "cache"
    nlp = make_nlp(cache_mb=16, cache_dir=str(folder) if cache_dir else None)
    elmo = nlp.get_pipe("elmo")
    before = nlp(TEXTS[0])._.elmo.layers.copy()
    with nlp.memory_zone():
        inside = [doc._.elmo.layers.copy() for doc in nlp.pipe(TEXTS)]
        assert len(elmo.cache) == len(TEXTS)
    assert len(elmo.cache) == 1
    if cache_dir:
        assert len(list(folder.glob("elmo-cache-*/*.npy"))) == 1
    np.testing.assert_array_equal(inside[0], before)  # a hit on the entry from before the zone
    for text, layers in zip(TEXTS, inside):
        np.testing.assert_allclose(nlp(text)._.elmo.layers, layers, atol=1e-6)  # recomputed alone


def test_a_memory_zone_inside_another_releases_its_own_entries_and_the_outer_one_the_rest():
    one = np.ones((1, 2, 3), dtype="float32")
    cache = ActivationCache(max_mb=2 * entry_bytes(one) / 2**20)  # room for 2 entries
    cache.put("before", one)
    with cache.memory_zone():
        cache.put("outer", one)
        with cache.memory_zone():
            cache.put("inner", one)  # evicts "before"
            cache.put("outer", one)  # there already: still the outer zone's
            assert cache.get("before") is None
        assert cache.get("inner") is None and cache.get("outer") is not None
        cache.put("later", one)
    assert len(cache) == 0
    cache.put("after", one)
    with cache.memory_zone():
        cache.put("in", one)
        cache.put("evicts-after", one)  # the zone's own entry "in" stays; "after" is evicted
    assert len(cache) == 0 and cache._bytes == 0


def _catching(work):
    """``("value", what work returns)``, or ``("error", what it raised)``."""
    try:
        return ("value", work())
    except BaseException as error:  # noqa: BLE001  (raised again in the test's thread)
        return ("error", error)


def _in_another_thread(work):
    """Run ``work`` in a thread of its own and return what it returns (or raise what it raised)."""
    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(_catching(work)))
    thread.start()
    thread.join(timeout=10)
    kind, value = outcome[0]
    if kind == "error":
        raise value
    return value


def test_memory_zones_are_per_thread_each_releasing_the_entries_its_own_thread_stored():
    """Threads sharing a pipeline, each in a memory zone of its own: a zone ends releasing what
    its thread stored in it, leaving another thread's open zone, and the entries stored outside any
    zone, as they are (was: one zone for all threads, so a zone ending took another thread's
    entries and kept its own, and the other thread's zone then ended in a TypeError)."""
    one = np.ones((1, 2, 3), dtype="float32")
    cache = ActivationCache(max_mb=16)
    entered, go_on = threading.Event(), threading.Event()

    def other_thread():
        with cache.memory_zone():
            cache.put("second", one)
            entered.set()
            assert go_on.wait(timeout=10)
        return len(cache)

    with cache.memory_zone():
        cache.put("first", one)
        thread = threading.Thread(target=lambda: outcome.append(_catching(other_thread)))
        outcome: list = []
        thread.start()
        assert entered.wait(timeout=10)
        _in_another_thread(lambda: cache.put("outside", one))  # in no zone: stays
    assert cache.get("first") is None and cache.get("second") is not None  # the other zone is open
    go_on.set()
    thread.join(timeout=10)
    assert outcome == [("value", 1)]  # its zone released "second"; "outside" stays
    assert cache.get("outside") is not None and cache._bytes == entry_bytes(one)


def test_memory_zones_are_per_asyncio_task_and_asyncio_to_thread_carries_its_task_s_zone():
    """Two asyncio tasks on one thread, each in a memory zone of its own, open at once: each zone
    releases what its task stored, what ``asyncio.to_thread`` stored for it too (was, with zones per
    thread only: the second task's zone ended leaving the entry stored in the thread it ran, and
    leaving the first task's zone, ended, as the thread's zone)."""
    one = np.ones((1, 2, 3), dtype="float32")
    cache = ActivationCache(max_mb=16)

    async def first(opened, second_opened, first_closed):
        with cache.memory_zone():
            cache.put("first", one)
            opened.set()
            await second_opened.wait()
        assert cache.get("first") is None and cache.get("second") is not None  # the other zone is open
        first_closed.set()

    async def second(first_opened, opened, first_closed):
        await first_opened.wait()
        with cache.memory_zone():
            cache.put("second", one)
            opened.set()
            await first_closed.wait()
            await asyncio.to_thread(cache.put, "in a thread", one)
        cache.put("after", one)  # in no zone: stays

    async def both():
        events = [asyncio.Event() for _ in range(3)]
        await asyncio.gather(first(*events), second(*events))

    asyncio.run(both())
    assert cache.get("after") is not None and len(cache) == 1


def test_an_entry_another_thread_evicts_and_stores_again_outside_a_zone_stays_after_the_zone():
    """An entry of a thread's zone that another thread evicted, then stored again outside any zone,
    is no longer the zone's: it stays when the zone ends."""
    one = np.ones((1, 2, 3), dtype="float32")
    cache = ActivationCache(max_mb=entry_bytes(one) / 2**20)  # room for one entry
    with cache.memory_zone():
        cache.put("shared", one)
        _in_another_thread(lambda: (cache.put("evicts", one), cache.put("evicts it back", one), cache.clear()))
        _in_another_thread(lambda: cache.put("shared", one))
    assert cache.get("shared") is not None and cache._bytes == entry_bytes(one)


def test_the_elmo_component_releases_per_thread_what_docs_processed_in_its_memory_zone_cached(make_nlp):
    """The component's memory zone, entered by ``nlp.memory_zone()``, holds per thread: the layers
    of the docs another thread processes outside a zone stay cached."""
    nlp = make_nlp(cache_mb=16)
    elmo = nlp.get_pipe("elmo")
    with elmo.memory_zone():
        nlp(TEXTS[0])
        _in_another_thread(lambda: nlp(TEXTS[1]))
    assert len(elmo.cache) == 1
    with mock.patch("spacy_elmo.bilm._run", side_effect=AssertionError("the biLM ran again")):
        nlp(TEXTS[1])


def test_key_depends_on_tokens_and_sentence_boundaries(make_nlp):
    nlp = make_nlp()
    a = Doc(nlp.vocab, words=["New", "York", "is", "big"])
    b = Doc(nlp.vocab, words=["New York", "is", "big"])
    c = Doc(nlp.vocab, words=["New", "York", "is", "big"], sent_starts=[True, False, True, False])
    assert len({doc_key(a), doc_key(b), doc_key(c)}) == 3
    assert doc_key(a) == doc_key(Doc(nlp.vocab, words=["New", "York", "is", "big"]))


def test_docs_split_otherwise_by_a_sents_hook_get_their_own_layers_not_the_cached_ones(make_nlp):
    """The biLM reads a doc in its ``doc.sents``, which a ``sents`` user hook gives without setting
    ``token.is_sent_start`` (was: the key read ``is_sent_start``, so a doc split otherwise by its
    hook got the layers cached for the first split)."""
    cached, uncached = make_nlp(cache_mb=16), make_nlp(cache_mb=0)
    words = ["The", "cat", "sat", ".", "The", "dog", "ran"]

    def split_at(nlp, start):
        doc = Doc(nlp.vocab, words=words)
        doc.user_hooks["sents"] = lambda doc: iter([doc[:start], doc[start:]])
        return doc

    cached.get_pipe("elmo").predict([split_at(cached, 4)])
    layers = cached.get_pipe("elmo").predict([split_at(cached, 2)])[0]
    np.testing.assert_allclose(layers, uncached.get_pipe("elmo").predict([split_at(uncached, 2)])[0], atol=1e-6)
    assert doc_key(split_at(cached, 2)) != doc_key(split_at(cached, 4))


def test_docs_of_one_text_split_at_a_nul_character_have_their_own_keys(make_nlp):
    """Was: the token texts were joined by NUL, so these two docs shared a key (and their layers)."""
    nlp = make_nlp()
    a = Doc(nlp.vocab, words=["a\x00", "b"], spaces=[False, False])
    b = Doc(nlp.vocab, words=["a", "\x00b"], spaces=[False, False])
    assert a.text == b.text and doc_key(a) != doc_key(b)


@pytest.mark.parametrize("on_disk", [False, True])
def test_cache_is_bounded_and_evicts_the_least_recently_used(tmp_path, on_disk):
    arrays = {k: np.full((1, 1, 1024), i, dtype="float32") for i, k in enumerate("abcd")}  # 4 KiB each
    cache = ActivationCache(max_mb=3 * entry_bytes(arrays["a"]) / 2**20, directory=tmp_path if on_disk else None)
    for key in "abc":
        cache.put(key, arrays[key])
    cache.get("a")
    cache.put("d", arrays["d"])
    assert cache.get("b") is None
    for key in "acd":
        np.testing.assert_array_equal(cache.get(key), arrays[key])
    if on_disk:
        files = list(tmp_path.glob("elmo-cache-*/*.npy"))
        assert [f.stat().st_size for f in files] == [4096 + 128] * 3  # the layers and the .npy header


@pytest.mark.parametrize("in_zone", [False, True])
def test_a_full_in_memory_cache_of_one_token_docs_takes_at_most_cache_mb_keys_and_index_included(in_zone):
    """``cache_mb`` bounds the memory the cache takes, not its layers alone, all along many docs
    that evict others, inside a memory zone too (was: each entry was counted as its layers' bytes,
    though its key, its places in the index and its array's header take about 350 bytes more, so
    that a cache of one-token docs of the tiny biLM, 192 bytes of layers each, took 2.8 times
    ``cache_mb``: tracemalloc, 20,000 entries; then counted 512 bytes more, which a full cache
    evicting entries outgrew inside a memory zone, whose index takes about 160 bytes an entry
    more: 1.2 times ``cache_mb``)."""
    layers = np.ones((3, 1, 16), dtype="float32")  # one token of the tiny biLM: 192 bytes
    cache = ActivationCache(max_mb=0.25)
    taken = 0  # the most taken after a put (kept as one number: a list would take memory too)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        with cache.memory_zone() if in_zone else contextlib.nullcontext():
            for i in range(20000):  # far more than fit
                cache.put(f"{i:064x}", layers)  # keys as long as doc_key's
                taken = max(taken, tracemalloc.get_traced_memory()[0] - before)
    finally:
        tracemalloc.stop()
    assert cache._bytes <= cache.max_bytes
    assert 0.6 * cache.max_bytes <= taken <= cache.max_bytes


@pytest.mark.parametrize("on_disk", [False, True])
def test_two_threads_storing_one_doc_in_a_full_cache_store_it_once(tmp_path, monkeypatch, on_disk):
    """Threads sharing a pipeline: two that computed the same doc store it at once in a full cache,
    each evicting to make room (held side by side as they remove the entry to evict); it is stored
    once and counted once (was: both passed the check for the key and both evicted the one entry,
    the second finding it gone: KeyError or StopIteration from nlp.pipe, and sizes counted twice,
    so that the cache held less and less)."""
    old, new = np.zeros((1, 1, 1024), dtype="float32"), np.ones((1, 1, 1024), dtype="float32")
    cache = ActivationCache(max_mb=entry_bytes(new) / 2**20, directory=tmp_path if on_disk else None)  # one entry
    cache.put("old", old)
    both_evicting = threading.Barrier(2)
    remove = ActivationCache._remove

    def side_by_side(self, key):
        try:
            both_evicting.wait(timeout=0.5)  # alone after 0.5 s (the other thread waits to store)
        except threading.BrokenBarrierError:
            pass
        remove(self, key)

    monkeypatch.setattr(ActivationCache, "_remove", side_by_side)
    errors = []

    def store():
        try:
            cache.put("new", new)
        except Exception as error:  # noqa: BLE001  (any error of a thread fails the test)
            errors.append(error)

    threads = [threading.Thread(target=store) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert errors == []
    assert len(cache) == 1 and cache._bytes == entry_bytes(new)
    np.testing.assert_array_equal(cache.get("new"), new)


def test_cache_is_cleared_when_new_weights_are_loaded(make_nlp, tiny_elmo_dir):
    nlp = make_nlp(cache_mb=16)
    elmo = nlp.get_pipe("elmo")
    nlp("Hello world")
    assert len(elmo.cache) == 1
    elmo.initialize(lambda: [], nlp=nlp, loader=lambda: tiny_elmo(seed=1))
    assert len(elmo.cache) == 0


def test_fine_tuned_biLM_is_not_cached(make_nlp):
    nlp = make_nlp(cache_mb=16, model={"@architectures": "spacy-elmo.ElmoBiLm.v1", "frozen": False})
    nlp("Hello world")
    assert len(nlp.get_pipe("elmo").cache) == 0


def test_changing_a_returned_array_does_not_change_the_cache():
    cache = ActivationCache(max_mb=1)
    cache.put("k", np.ones((1, 2, 3), dtype="float32"))
    cache.get("k")[:] = 5.0
    np.testing.assert_array_equal(cache.get("k"), 1.0)


def test_a_cache_dir_under_the_home_folder_written_with_a_tilde_is_there(make_nlp, tmp_path, monkeypatch):
    """``cache_dir = "~/elmo-cache"`` is in the home folder, as the loader's ``~/...`` is (was: a
    folder named ``~`` in the working folder)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    nlp = make_nlp(cache_mb=16, cache_dir="~/elmo-cache")  # kept: its folder goes with it
    nlp("The cat sat .")
    assert len(list((tmp_path / "home" / "elmo-cache").glob("elmo-cache-*/*.npy"))) == 1
    assert not (tmp_path / "~").exists()


def test_two_pipelines_with_one_cache_dir_never_read_each_others_layers(make_nlp, tiny_elmo_dir, tmp_path):
    """Each cache writes its own folder: another biLM's layers for the same doc are not a hit."""
    one = make_nlp(cache_mb=16, cache_dir=str(tmp_path))
    other = make_nlp(cache_mb=16, cache_dir=str(tmp_path))
    other.get_pipe("elmo").initialize(lambda: [], nlp=other, loader=lambda: tiny_elmo(seed=1))
    first = one("The cat sat .")._.elmo.layers
    other("The cat sat .")
    np.testing.assert_array_equal(one("The cat sat .")._.elmo.layers, first)
    assert len(list(tmp_path.glob("elmo-cache-*"))) == 2


def test_a_cache_folder_goes_with_its_cache_and_one_of_a_killed_process_with_the_next(tmp_path):
    import gc
    import subprocess
    import sys

    cache = ActivationCache(max_mb=1, directory=tmp_path)
    cache.put("k", np.ones((1, 2, 3), dtype="float32"))
    (folder,) = tmp_path.glob("elmo-cache-*")
    del cache
    gc.collect()
    assert not folder.exists()
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = tmp_path / f"elmo-cache-{ended.stdout.strip()}-x"  # as a killed process leaves it
    left.mkdir()
    (left / "k.npy").write_bytes(b"stale")
    ActivationCache(max_mb=1, directory=tmp_path).put("k", np.ones((1, 2, 3), dtype="float32"))
    assert not left.exists()


def test_a_pickled_copy_of_an_in_memory_cache_starts_empty_and_the_original_keeps_its_entries(make_nlp):
    """What a spawned worker of nlp.pipe(n_process=N) gets (was: every entry, up to cache_mb, pickled
    along with the elmo component into each worker)."""
    nlp = make_nlp(cache_mb=16)
    elmo = nlp.get_pipe("elmo")
    empty = len(pickle.dumps(elmo.cache))
    list(nlp.pipe(TEXTS))
    copy = pickle.loads(pickle.dumps(elmo))
    assert len(copy.cache) == 0 and len(elmo.cache) == len(TEXTS)
    assert len(pickle.dumps(elmo.cache)) == empty
    np.testing.assert_allclose(copy(nlp.make_doc(TEXTS[0]))._.elmo.layers, nlp(TEXTS[0])._.elmo.layers, atol=1e-6)
    assert len(copy.cache) == 1


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copy_of_a_disk_cache_in_the_same_process_keeps_its_own_folder_and_never_serves_the_others_layers(
    make_nlp, tmp_path, how
):
    """``copy.deepcopy(nlp)`` or ``pickle.loads(pickle.dumps(nlp))`` with a ``cache_dir``, then other
    weights loaded into the copy (was: one folder and index for both, so that the original served
    the layers the copy's new weights computed, and removed the copy's folder when collected)."""
    import copy
    import gc

    nlp = make_nlp(cache_mb=16, cache_dir=str(tmp_path))
    text = "The cat sat ."
    first = nlp(text)._.elmo.layers.copy()
    other = copy.deepcopy(nlp) if how == "deepcopy" else pickle.loads(pickle.dumps(nlp))
    other.get_pipe("elmo").initialize(lambda: [], nlp=other, loader=lambda: tiny_elmo(seed=1))
    others = other(text)._.elmo.layers.copy()
    assert np.abs(others - first).max() > 1e-3  # other weights, other layers
    np.testing.assert_array_equal(nlp(text)._.elmo.layers, first)
    assert len(list(tmp_path.glob("elmo-cache-*"))) == 2
    del nlp
    gc.collect()
    other("Another doc .")  # its folder outlives the original
    np.testing.assert_array_equal(other(text)._.elmo.layers, others)
    assert len(other.get_pipe("elmo").cache) == 2


def test_a_forked_copy_of_a_disk_cache_starts_empty_in_a_folder_of_its_own(tmp_path):
    import multiprocessing

    cache = ActivationCache(max_mb=1, directory=tmp_path)
    cache.put("k", np.ones((1, 2, 3), dtype="float32"))
    (parents,) = tmp_path.glob("elmo-cache-*")
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        child = pool.apply(_put_and_report, (cache,))
    assert child == (None, 1)  # no hit on the parent's entry; its own entry counted alone
    assert parents.exists() and cache.get("k") is not None  # the parent's folder and entry are intact


def _put_and_report(cache):
    missed = cache.get("k")
    cache.put("j", np.zeros((1, 2, 3), dtype="float32"))
    return missed, len(cache)


def test_a_forked_copy_that_stores_first_makes_its_parents_folder_private_and_the_parent_then_stores_in_it(
    tmp_path,
):
    """A worker of ``nlp.pipe(n_process=N)`` may store before its parent ever has: the parent's
    folder it makes is private, and the parent's first store uses it (was: FileExistsError)."""
    import multiprocessing
    import stat

    cache = ActivationCache(max_mb=1, directory=tmp_path / "cache")
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        pool.apply(_fill, (cache,))
    cache.put("k", np.ones((1, 2, 3), dtype="float32"))
    (parents,) = (tmp_path / "cache").glob("elmo-cache-*")
    assert stat.S_IMODE(parents.stat().st_mode) == 0o700
    np.testing.assert_array_equal(cache.get("k"), 1)


def test_a_child_forked_while_a_thread_holds_the_cache_lock_uses_its_cache():
    """A fork waits for the activation cache's lock, so the child finds it free (was: held for good in
    the child, a gunicorn --preload worker or a pool's, whose first doc through the cache hung)."""
    cache = ActivationCache(max_mb=1)

    def use() -> None:
        cache.put("k", np.ones((1, 2, 3), dtype="float32"))
        np.testing.assert_array_equal(cache.get("k"), 1)

    assert exit_code_of_a_child_forked_while_held(activation_cache._LOCK, use) == 0


def test_a_link_in_place_of_a_cache_folder_is_refused_not_followed(tmp_path):
    cache = ActivationCache(max_mb=1, directory=tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    (tmp_path / "elsewhere").mkdir()
    cache._folder.symlink_to(tmp_path / "elsewhere")  # planted under the name the cache will make
    with pytest.raises(FileExistsError, match="is there already, and is not a folder of this user's"):
        cache.put("k", np.ones((1, 2, 3), dtype="float32"))
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_forked_copy_that_clears_or_fills_its_cache_first_leaves_the_parents_files(tmp_path):
    """The copy's index names its parent's files: evicting through it must not delete them."""
    import multiprocessing

    cache = ActivationCache(max_mb=3 * entry_bytes(np.zeros((1, 2, 3))) / 2**20, directory=tmp_path)  # room for 3
    for key in "abc":
        cache.put(key, np.full((1, 2, 3), ord(key), dtype="float32"))
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        pool.apply(_clear, (cache,))
        pool.apply(_fill, (cache,))
    for key in "abc":
        np.testing.assert_array_equal(cache.get(key), ord(key))


def _clear(cache):
    cache.clear()


def _fill(cache):
    for key in "defg":
        cache.put(key, np.zeros((1, 2, 3), dtype="float32"))


@pytest.mark.parametrize("where, problem", [("file", "is a file, not a folder"), ("file/cache", "cannot be made")])
def test_a_cache_dir_that_cannot_be_a_folder_is_a_config_error_when_the_component_is_made(tmp_path, where, problem):
    import spacy
    from thinc.api import ConfigValidationError

    (tmp_path / "file").write_text("a user's file")
    nlp = spacy.blank("en")
    with pytest.raises(ConfigValidationError, match=rf"cache_dir[\s\S]*{problem}"):
        nlp.add_pipe("elmo", config={"cache_dir": str(tmp_path / where)})
    assert (tmp_path / "file").read_text() == "a user's file"


def test_spacy_benchmark_speed_times_the_biLM_not_the_cache(make_nlp, capsys):
    """``spacy benchmark speed`` repeats its docs (warm-up epochs, then batches drawn from them),
    so the cache served every timed batch: the shipped model measured 132,000 words/s against
    2,600 without the cache. The component reads and stores no layers there, and says so once."""
    from spacy.cli.benchmark_speed import benchmark, warmup

    nlp = make_nlp(cache_mb=16)
    elmo = nlp.get_pipe("elmo")
    docs = [nlp.make_doc(t) for t in TEXTS]
    warmup(nlp, docs, 2, 2)
    benchmark(nlp, docs, 3, 2, True)
    assert len(elmo.cache) == 0
    output = " ".join(capsys.readouterr().out.split())
    assert output.count("spacy benchmark speed: the elmo component 'elmo' reads no cached layers") == 1
    nlp(TEXTS[0])  # outside the benchmark the cache serves as ever
    assert len(elmo.cache) == 1


def test_a_note_said_by_two_threads_at_once_is_printed_once(monkeypatch):
    """Two threads running one component (two spacy benchmark speed batches, a listener's zero-features
    warning) say its note at once: the first, between its check that the note is new and its record of
    it (paused there), lets the other check too; it is printed once (was: twice, each thread having found
    it new)."""
    paused, other_said = threading.Event(), threading.Event()

    class PausingNotes(set):  # what was said about ``about``: the first thread pauses as it records
        def add(self, note):
            if threading.current_thread().name == "first":
                paused.set()
                other_said.wait(timeout=1.0)  # alone after 1 s (the other thread waits for its turn)
            super().add(note)

    class About:  # a component: held weakly
        pass

    about, printed = About(), []
    notes = weakref.WeakKeyDictionary({about: PausingNotes()})
    monkeypatch.setattr(call_stack, "_NOTED", notes)
    monkeypatch.setattr(call_stack.msg, "info", printed.append)
    first = threading.Thread(target=call_stack.note_once, args=(about, "a note"), name="first")
    first.start()
    assert paused.wait(timeout=10), "the first thread never recorded the note"
    other = threading.Thread(target=lambda: (call_stack.note_once(about, "a note"), other_said.set()))
    other.start()
    other.join(timeout=10)
    first.join(timeout=10)
    assert printed == ["a note"]


def test_the_cache_serves_as_ever_where_spacy_renamed_the_functions_whose_frames_are_looked_for(make_nlp, monkeypatch):
    """The call-stack checks look for spaCy functions by name (``call_stack.running_locals``); a
    spaCy without one of them (``spacy.cli.benchmark_speed.annotate`` here, checked on every
    prediction) turns that check off (was: an AttributeError from every prediction)."""
    import spacy.cli.benchmark_speed

    nlp = make_nlp(cache_mb=16)
    monkeypatch.delattr(spacy.cli.benchmark_speed, "annotate")
    layers = nlp(TEXTS[0])._.elmo.layers
    assert len(nlp.get_pipe("elmo").cache) == 1
    np.testing.assert_array_equal(nlp(TEXTS[0])._.elmo.layers, layers)

"""``running_calls``: the running calls of several functions found in one walk of the stack, innermost
first, as ``running_locals`` finds the innermost call of one."""

from spacy_elmo.call_stack import running_calls, running_locals


def outer(depth: int) -> list:
    return inner(depth)


def inner(depth: int) -> list:
    if depth:
        return outer(depth - 1)
    return [(name, found["depth"]) for name, found in running_calls(__name__, "outer", "inner", "missing")]


def test_the_calls_of_several_functions_come_innermost_first():
    assert outer(1) == [("inner", 0), ("outer", 0), ("inner", 1), ("outer", 1)]


def test_running_locals_is_the_innermost_call_and_none_without_one():
    def probe(depth: int) -> object:
        return running_locals(__name__, "inner") if not depth else probe(depth - 1)

    assert probe(2) is None
    assert running_locals("no.such.module", "inner") is None
    assert list(running_calls(__name__, "missing")) == []

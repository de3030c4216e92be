"""What the sub-commands (and the scripts) share: ``argparse`` types that refuse a bad value with one usage error
(quoting it cut short: ``quoted``, ``hf_elmo.messages``'),
parsers that name the closest option, command or choice to a mistyped one (``SuggestingParser``,
``CommandParser``), a parser that reads a word starting with a dash and a digit as a value (``--lr -1e-3``,
``--shard -1/2``), ``hf_elmo``'s modules that import no torch, read without importing ``hf_elmo`` (``hf_elmo_module``:
the defaults and choices of ``--help``),
options made from dataclass fields (``add_field_option``), another tool's options refused with what to use
instead (``add_replaced_options``), and the options that mean the same in
every command that takes them (``--model``: ``add_model_option``, ``one_model``; ``--threads``:
``add_threads_option``, ``use_threads``; ``--device``: ``add_device_option``), what Ctrl-C left of an output folder
built aside (``note_output_folder``, ``output_folder_left``), and a script's one-line
failure (``exit_with_error``, ``error_line``: ``PROG: error: ...``, as argparse words a usage error; an ``OSError``
without Python's ``[Errno N]``: ``hf_elmo.messages.error_text``)."""

from __future__ import annotations

import argparse
import dataclasses
import decimal
import difflib
import importlib
import importlib.util
import math
import os
import re
import sys
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

#: The private package under which ``hf_elmo_module`` reads ``hf_elmo``'s modules from their files.
_HF_ELMO_FILES = "_hf_elmo_files"


#: The exit status of a command whose stdout was closed by its reader (SIGPIPE), as shells report it.
BROKEN_PIPE = 141
#: The exit status of a command stopped by Ctrl-C (SIGINT), as shells report it.
INTERRUPTED = 130


def hf_elmo_module(name: str) -> types.ModuleType:
    """``hf_elmo``'s module ``name`` (``"messages"``, ``"training.options"``), one that imports the standard library
    and other such modules of ``hf_elmo`` only: ``hf_elmo.NAME`` where ``hf_elmo`` is imported, else read from its
    file under a private package, without importing ``hf_elmo``, whose ``__init__`` imports torch and transformers
    (seconds before a help text or a usage error, and perhaps what failed)."""
    imported = sys.modules.get(f"hf_elmo.{name}")
    if imported is not None:
        return imported
    if sys.modules.get("hf_elmo") is not None:
        return importlib.import_module(f"hf_elmo.{name}")
    if _HF_ELMO_FILES not in sys.modules:
        # hf_elmo lies beside this package (both are of the distribution hf-elmo); its __init__ is not run
        folder = Path(__file__).resolve().parents[2] / "hf_elmo"
        spec = importlib.util.spec_from_file_location(
            _HF_ELMO_FILES, folder / "__init__.py", submodule_search_locations=[str(folder)]
        )
        assert spec is not None  # a .py file's
        sys.modules[_HF_ELMO_FILES] = importlib.util.module_from_spec(spec)
    return importlib.import_module(f"{_HF_ELMO_FILES}.{name}")


#: ``hf_elmo.messages``, how the package words a refusal, read without importing ``hf_elmo`` (``hf_elmo_module``): a
#: usage error here quotes the value it refuses (``quoted``: cut after 40 characters, so that an argument of 10 kB is
#: not said back in a line of 10 kB) and lists what it found (``some_of``) as the package's errors do.
_messages = hf_elmo_module("messages")
quoted: Callable[[str], str] = _messages.quoted


def one_line(text: str) -> str:
    """``text`` with its line breaks written ``\\n`` and ``\\r``: an error said on one line where it names a path (or
    quotes a value) that holds one, as a file name may (was: the line broken where the name is). The one home of that
    rule: the ``elmo`` command's usage errors (``SuggestingParser``) and last-resort line, the scripts' ``error_line``
    and ``check_output_option``."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


def file_path(what: str, example: str) -> Callable[[str], Any]:
    """An ``argparse`` type for a script's output file (``what``: ``".spacy file"``): a ``Path``, refused when the
    text ends with a slash, naming a folder (``hf_elmo.fileio.check_names_a_file``, its message with ``example`` in
    that folder), which ``Path`` would drop, writing a file of the folder's name."""

    def parse(text: str) -> Any:
        from hf_elmo.fileio import check_names_a_file  # a script's: the elmo command never imports it

        try:
            check_names_a_file(text, what, example)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
        return Path(text)

    return parse


def input_file(what: str) -> Callable[[str], Any]:
    """An ``argparse`` type for a script's input file (``what``: ``"the input"``): a ``Path``, refused when the text
    ends with a slash and names no folder (``hf_elmo.fileio.check_input_names_a_file``), which ``Path`` would drop,
    reading the file quietly (was: so read)."""

    def parse(text: str) -> Any:
        from hf_elmo.fileio import check_input_names_a_file  # a script's: the elmo command never imports it

        try:
            check_input_names_a_file(text, what)
        except NotADirectoryError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
        return Path(text)

    return parse


def integer_at_least(least: int | None, most: int | None = None, *, also: str = "") -> Callable[[str], int]:
    """An ``argparse`` type: an integer >= ``least`` (e.g. ``elmo perplexity --tokens-per-batch``, at least 3; None: no
    bound) and, when ``most`` is given, <= ``most``; ``also`` names what else the option takes (``" or 'none'"``). The
    one home of how every integer option of elmo and the scripts refuses a value (``_integer_refused``)."""
    if least is None:
        wanted = "an integer"
    elif most is not None:
        wanted = f"an integer in {least}..{most}"
    else:
        wanted = "a positive integer" if least == 1 else f"an integer >= {least}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise _integer_refused(text, f"{wanted}{also}", least, most) from None
        if (least is not None and value < least) or (most is not None and value > most):
            raise _integer_refused(text, f"{wanted}{also}", least, most)
        return value

    return parse


def _integer_refused(text: str, wanted: str, least: int | None, most: int | None) -> argparse.ArgumentTypeError:
    """``must be WANTED, got 'TEXT'``; for a whole number in another form that the option would take in digits
    (``1e6``, ``1.5e8``, ``100.0``), what to write instead: `` (write it in digits: 1000000)`` (was: said only by
    ``elmo pretrain``'s fields; the other options refused ``--tokens-per-batch 1e4`` without it)."""
    try:  # exact, where a float's 1e23 is 99999999999999991611392
        number = decimal.Decimal(text)
    except decimal.InvalidOperation:
        number = decimal.Decimal("nan")
    whole = number.is_finite() and number.adjusted() < 40 and number == number.to_integral_value()
    digits = int(number) if whole else None
    fits = digits is not None and (least is None or digits >= least) and (most is None or digits <= most)
    hint = f" (write it in digits: {digits})" if fits else ""
    return argparse.ArgumentTypeError(f"must be {wanted}, got {quoted(text)}{hint}")


#: An integer >= 1 (``--top 5``, ``--threads 2``); ``0``, ``-3`` and ``2.5`` are refused.
positive_int = integer_at_least(1)

#: Any integer, its bounds checked once parsed (``elmo pretrain``'s fields: ``hf_elmo.training.options.check_numbers``):
#: ``2.5`` and words refused as the other integer options refuse them, ``--max-tokens 1e6`` with its digits.
integer = integer_at_least(None)


#: Why ``non_empty`` refuses an empty path or name, said after the argument's name.
EMPTY_REFUSED = "must not be empty: give a path or a name"


def non_empty(text: str) -> str:
    """An ``argparse`` type for a path or a model's name (``--model``, ``elmo embed INPUT``): any text but an empty
    one, which ``Path`` reads as the current folder and a default would replace (an unset shell variable:
    ``--model "$MODEL"``), refused as such (was: ``the input . is a folder``, or the shipped model run instead)."""
    if not text:
        raise argparse.ArgumentTypeError(EMPTY_REFUSED)
    return text


def one_token(text: str) -> str:
    """An ``argparse`` type for a word that must match a token (``elmo perplexity --unk-token``, ``demo --word``):
    one token, without whitespace, as tokens are (an empty or spaced one matches none: was ignored without a word,
    or refused as no token of the sentences, which could not have held it)."""
    if text.split() != [text]:
        raise argparse.ArgumentTypeError(f"must be one token, without whitespace, got {quoted(text)}")
    return text


def number(text: str) -> float:
    """An ``argparse`` type for a number whose bounds are checked once parsed (``elmo pretrain``'s fields: ``--lr``,
    ``--epochs``: ``hf_elmo.training.options.check_numbers``, which names them, and refuses ``nan`` and ``inf``):
    words refused as the other number options refuse them, ``must be a number, got 'lots'`` (was: argparse's
    'invalid float value')."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {quoted(text)}") from None


def finite_number(
    least: float | None = None, most: float | None = None, *, above: bool = False
) -> Callable[[str], float]:
    """An ``argparse`` type: a finite number >= ``least`` (> ``least``: ``above``; None: no bound) and, when ``most``
    is given, <= ``most``; ``nan``, ``inf`` (``1e400``) and words are refused, ``must be a finite number > 0, got
    'nan'``, and ``-0`` is 0. The one home of how a number option of elmo and the scripts refuses a value, where the
    parse checks its bounds (``number``: where they are checked later)."""
    bounds = [f"{'>' if above else '>='} {least:g}"] if least is not None else []
    bounds += [f"<= {most:g}"] if most is not None else []
    wanted = " ".join(["a finite number", " and ".join(bounds)]).strip()

    def parse(text: str) -> float:
        try:
            value = number(text)
        except argparse.ArgumentTypeError:
            value = math.nan
        low = least is None or (value > least if above else value >= least)
        if not (math.isfinite(value) and low and (most is None or value <= most)):
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {quoted(text)}")
        return value + 0.0  # -0.0 is 0.0

    return parse


#: A number > 0 and <= 1 (``prepare_pretrain_en.py --train-fraction 0.4``); ``0``, ``1.5``, ``nan`` refused.
fraction = finite_number(0, 1, above=True)
#: A finite number >= 0 (``bench_embed.py --stub-device-us``); ``-1``, ``nan``, ``inf`` refused.
non_negative = finite_number(0)
#: A finite number > 0 (``gpu_run.py poll --every``); ``0``, ``nan``, ``inf`` refused.
positive_number = finite_number(0, above=True)


_token_chars = integer_at_least(1, also=" or 'none'")


def token_limit(text: str) -> int | None:
    """``--max-token-chars``: a positive integer, or ``none`` (no limit: long tokens are truncated)."""
    if text.lower() == "none":
        return None
    return _token_chars(text)


def add_max_token_chars_option(parser: argparse.ArgumentParser) -> None:
    """``--max-token-chars N|none`` of the commands that split text with the model's tokenizer (``elmo
    embed``, ``export``); absent from the parsed arguments when not given (``tokenizer_settings``)."""
    parser.add_argument(
        "--max-token-chars",
        type=token_limit,
        default=argparse.SUPPRESS,
        help="longer tokens are an error; 'none' truncates them as the original does (ELMo reads the first 48 "
        "UTF-8 bytes) (default: the model's tokenizer's, 100 for converted originals)",
    )


def tokenizer_settings(args: argparse.Namespace) -> dict[str, Any]:
    """What ``--max-token-chars``, where given, replaces in the model's tokenizer (``model_tokenizer(model,
    **settings)``): the same limit in every command, the tokenizer's own by default."""
    return {"max_token_chars": args.max_token_chars} if "max_token_chars" in args else {}


#: What a command's model may be: any name ``hf_elmo.loading.resolve_model`` takes.
MODEL_NAMES = (
    "model folder, Hub id (owner/name), shipped name (hf-elmo:NAME), or folder or zip with the original "
    "options.json + *.hdf5"
)
#: The model ``elmo embed``, ``demo`` and ``perplexity`` run without ``--model``.
SHIPPED_MODEL = "the model shipped with the package"


def add_model_option(parser: argparse.ArgumentParser, dest: str = "model", default: str | None = SHIPPED_MODEL) -> None:
    """``--model MODEL``, the model of every command that runs one (``elmo embed``, ``demo``,
    ``perplexity``, ``export``), with ``dest``; ``default`` says what the command runs without it
    (None: it has no default)."""
    parser.add_argument(
        "--model",
        dest=dest,
        metavar="MODEL",
        type=non_empty,
        help=MODEL_NAMES + (f" (default: {default})" if default else ""),
    )


def one_model(argument: str | None, option: str | None) -> str | None:
    """The model of a command that also takes it as its MODEL argument (``elmo perplexity``,
    ``export``): that argument or ``--model`` (None: neither); both at once is a ``ValueError``."""
    if argument is not None and option is not None:
        raise ValueError(f"the model is given twice, as the argument {argument} and as --model {option}: give it once")
    return argument if option is None else option


def note_output_folder(args: argparse.Namespace, folder: str) -> None:
    """Note which folder ``folder``, the output of a command that builds it aside and swaps it into place whole
    (``hf_elmo.output_folders.build_aside``: ``elmo convert``, ``export``), is before the command writes it, for
    ``output_folder_left`` to say what Ctrl-C left."""
    args.output_folder = (folder, _folder_identity(folder))


def output_folder_left(args: argparse.Namespace) -> str:
    """What Ctrl-C left of the output folder noted by ``note_output_folder`` (the command's ``interrupted``): the
    folder as it was and nothing written (the build aside removed), or the new folder, whole, when Ctrl-C came after
    the swap; "" when it came before the folder was noted."""
    noted = getattr(args, "output_folder", None)
    if noted is None:
        return ""
    folder, before = noted
    now = _folder_identity(folder)
    if now is None:
        return "nothing was written"
    if now == before:
        return f"{folder} is as it was: nothing was written"
    return f"{folder} was written whole before Ctrl-C came"


def _folder_identity(folder: str) -> tuple[int, int] | None:
    """The device and inode of ``folder`` (None: there is none), which a folder swapped into its place changes."""
    try:
        found = os.lstat(Path(folder).expanduser())
    except OSError:
        return None
    return found.st_dev, found.st_ino


#: The most ``--threads``: far more than any machine's cores; many more fail only once torch starts them, with a
#: traceback ("can't start new thread") or OpenMP's abort ("Thread creation failed"), after the model loaded.
MAX_THREADS = 1024
#: What ``--threads`` runs with when it is not given: torch's own count, which the library leaves as it is.
THREADS_DEFAULT = "torch's own: one per CPU core, or OMP_NUM_THREADS"


def add_threads_option(parser: Any, help: str = "torch CPU threads") -> None:
    """``--threads N``, taken by every command that runs torch (``elmo embed``, ``demo``,
    ``perplexity``, ``export``, ``pretrain``); ``parser`` may be an argument group."""
    parser.add_argument(
        "--threads", type=integer_at_least(1, MAX_THREADS), metavar="N", help=f"{help} (default: {THREADS_DEFAULT})"
    )


def use_threads(args: argparse.Namespace) -> None:
    """``torch.set_num_threads(--threads)``, where it was given (the library sets no process-wide count)."""
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)


def add_device_option(parser: Any, default: str | None = None) -> None:
    """``--device``, taken by every command that runs the model where the user chooses (``elmo embed``,
    ``perplexity``, ``demo``, ``pretrain``; not ``export``, which traces its graph on the CPU whatever the
    machine), read by ``hf_elmo.devices.resolve_device`` when the command runs; ``default``: the device
    without it (None: cuda when available); ``parser`` may be an argument group."""
    stated = "cuda when available" if default is None else default
    parser.add_argument(
        "--device",
        default=default,
        help=f"cpu, cuda or cuda:N (default: {stated}); under torchrun with several GPUs, cuda means cuda:LOCAL_RANK",
    )


class _Replaced(argparse.Action):
    """An option of another tool that the command refuses, naming its own way (``add_replaced_options``)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: str | None = None) -> None:
        parser.error(f"{option} is {self.const}")


def add_replaced_options(parser: argparse.ArgumentParser, tool: str, replaced: dict[str, tuple[bool, str]]) -> None:
    """Options of ``tool`` (e.g. ``allennlp elmo``), hidden from ``--help``, that refuse with one usage
    error naming what the command takes instead: ``replaced`` maps each to (whether it takes a value,
    what to use), e.g. ``"--cuda-device": (True, "use --device cuda:N")`` gives "--cuda-device is
    allennlp elmo's option: use --device cuda:N" (was: "unrecognized arguments: --cuda-device 0"); its
    ``--batch-size``: ``add_batch_size_refusal``."""
    for flag, (takes_value, instead) in replaced.items():
        parser.add_argument(
            flag,
            action=_Replaced,
            nargs="?" if takes_value else 0,
            const=f"{tool}'s option: {instead}",
            dest=argparse.SUPPRESS,
            help=argparse.SUPPRESS,
        )


class _BatchSize(argparse.Action):
    """``--batch-size``, which a command that batches by padded tokens refuses naming ``--tokens-per-batch`` and its
    default, read when it is refused."""

    instead = "--tokens-per-batch"  # the option a mistyped one close to this one means (CommandParser._closest_option)

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: str | None = None) -> None:
        default = parser.get_default("tokens_per_batch")
        parser.error(
            f"{option} is not {parser.prog}'s option: its batches are counted in padded tokens, not sentences; "
            f"use --tokens-per-batch N (default {default})"
        )


def add_batch_size_refusal(parser: argparse.ArgumentParser) -> None:
    """``--batch-size N`` (transformers' and most tools' name), hidden from ``--help``, refused in one usage error
    naming ``--tokens-per-batch`` (was: "unrecognized arguments", or elmo pretrain's "did you mean --vocab-size?")."""
    parser.add_argument("--batch-size", action=_BatchSize, nargs="?", dest=argparse.SUPPRESS, help=argparse.SUPPRESS)


class _OldName(argparse.Action):
    """An option's old name (``add_old_name``): its value is the option's, after a one-line warning naming the new
    name, said by the process that says the command's errors (``CommandParser.speaks``: rank 0 under torchrun)."""

    def __init__(self, *args: Any, new: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.new = self.instead = new  # instead: as _BatchSize's

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: str | None = None) -> None:
        if getattr(parser, "speaks", lambda: True)():
            print(f"{parser.prog}: warning: {option} is deprecated: use {self.new}, its name now", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_old_name(group: Any, old: str, action: argparse.Action) -> None:
    """``old``, the name ``action``'s option (added to ``group``, a parser or an argument group) had before, kept
    working as a deprecated alias: hidden from ``--help``, it takes the same values and warns in one line (was: an
    alias that ``--help`` listed beside the new name and that said nothing)."""
    group.add_argument(
        old,
        action=_OldName,
        new=action.option_strings[0],
        dest=action.dest,
        type=action.type,
        choices=action.choices,
        metavar=action.metavar,
        default=argparse.SUPPRESS,
        help=argparse.SUPPRESS,
    )


def error_line(prog: str, error: object) -> str:
    """``PROG: error: MESSAGE`` (``hf_elmo.messages.error_text``), as argparse words a usage error (without the
    usage): the one line a script ends on for a failure that its command line did not cause (``exit_with_error``;
    ``shared_data``'s, far from any parser, under argparse's default ``PROG``, the script's file name)."""
    return f"{prog}: error: {one_line(_messages.error_text(error))}"


def check_output_option(parser: argparse.ArgumentParser, said: str, path: Any, inputs: Iterable[Any] = ()) -> None:
    """A script's output file (``--json``, say) checked before its run, not after it: one that ``atomic_file`` could
    not write (one of ``inputs``, a folder, a link, a file on the way, an unwritable folder:
    ``hf_elmo.fileio.check_writable_output``) is a usage error, ``said: REASON`` (``hf_elmo.messages.error_text``)."""
    from hf_elmo.fileio import check_writable_output  # a script's: the elmo command never imports it

    try:
        check_writable_output(path, inputs)
    except OSError as err:
        parser.error(one_line(f"{said}: {_messages.error_text(err)}"))


def sentences_option(parser: argparse.ArgumentParser, said: str, path: Any) -> list[list[str]]:
    """A script's text input (``--text``: one tokenised sentence a line) read before its run, as every corpus is read
    (``hf_elmo.corpus.read_corpus``: UTF-8, a gzip file decompressed, blank lines skipped): its sentences' words. A
    file that is none (missing, not UTF-8, empty, one token a line) is a usage error in one line (``error_text``)."""
    from hf_elmo.corpus import MAX_LINE_CHARS, read_corpus  # a script's: the elmo command never imports it

    try:
        return [sentence.split() for sentence in read_corpus(path, MAX_LINE_CHARS, what=said)]
    except (OSError, ValueError) as err:
        parser.error(_messages.error_text(err))


def exit_with_error(parser: argparse.ArgumentParser, error: object) -> NoReturn:
    """End a script on a failure that its command line did not cause (a missing or unwritable file, another run
    writing its output): ``error_line`` on stderr, and exit code 1 (argparse's usage errors: 2)."""
    parser.exit(1, f"{error_line(parser.prog, error)}\n")


def flush_stdout() -> None:
    """Write out what the command printed, here rather than at the interpreter's exit, which says a failure in two
    lines ('Exception ignored in: <_io.TextIOWrapper ...>', then the error) and exits 120: an ``OSError`` naming
    stdout (``stdout: No space left on device``, for ``> /dev/full`` or a full disk), stdout quieted after it."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as err:
        quiet_stdout()
        raise OSError(err.errno, err.strerror, "stdout") from None


def quiet_stdout() -> None:
    """Point stdout at the null device: its reader has gone, and the interpreter's flush at exit would
    fail again ('Exception ignored ... BrokenPipeError' on stderr)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (io.UnsupportedOperation is both)
        pass


@contextmanager
def stdout_written_out() -> Iterator[None]:
    """The block, then what it printed on stdout written out (``flush_stdout``), also where it ended by a successful
    exit (``--help``, ``--version``): the elmo command's parsing and run, a script's ``main`` (``run_script``)."""
    try:
        yield
    except SystemExit as done:
        if done.code in (0, None):  # --help, --version: said on stdout
            flush_stdout()
        raise
    flush_stdout()


def run_script(main: Callable[[], object]) -> None:
    """A script's entry (``if __name__ == "__main__": run_script(main)``): ``main``, then stdout written out as the
    elmo command does (``stdout_written_out``), after a run or ``--help``: one that cannot be written (``> /dev/full``)
    ends the script with ``error_line`` naming stdout, exit code 1 (was: Python's two lines at exit, exit 120), one
    whose reader left quietly with ``BROKEN_PIPE``; Ctrl-C ends it with ``PROG: interrupted`` and ``INTERRUPTED``, as
    the elmo command does (was: Python's traceback)."""
    try:
        with stdout_written_out():
            main()
    except KeyboardInterrupt:
        print(f"{Path(sys.argv[0]).name}: interrupted", file=sys.stderr)
        sys.exit(INTERRUPTED)
    except BrokenPipeError:
        quiet_stdout()
        sys.exit(BROKEN_PIPE)
    except OSError as err:
        if err.filename != "stdout":  # the script's own failure, said as it says it
            raise
        sys.exit(error_line(Path(sys.argv[0]).name, err))


def close_match(word: str, candidates: Iterable[str], meant: Callable[[str], str] = str) -> str:
    """`` (did you mean X?)`` for the candidate closest to a mistyped ``word`` (an option, a
    sub-command, a choice), or "" when none is close; Python's argparse suggests none before 3.14. ``meant``: what
    to name for the closest candidate (``CommandParser._closest_option``: a hidden option's stand-in)."""
    matches = difflib.get_close_matches(word, [c for c in candidates if isinstance(c, str)], n=1)
    return f" (did you mean {meant(matches[0])}?)" if matches else ""


def _note_given(parser: argparse.ArgumentParser, dest: str, option: str, values: Any) -> None:
    """Note that ``option`` gave ``dest`` the value ``values`` in this parse of ``parser`` (a ``SuggestingParser``'s);
    a usage error naming both where it gave another one before (``_StoreOnce``)."""
    given = getattr(parser, "_given", None)
    if given is None:
        return
    earlier = given.setdefault(dest, values)
    if earlier is not values and earlier != values:  # 'is': the first, a NaN too, is given once
        parser.error(f"{option} is given twice, as {_said(earlier)} and {_said(values)}: give it once")


def _said(values: Any) -> str:
    """An option's value (a list of them: ``nargs``) as a refusal quotes it."""
    return " ".join(quoted(str(v)) for v in values) if isinstance(values, list) else quoted(str(values))


class _StoreOnce(argparse._StoreAction):
    """argparse's ``store``, the default action of a ``SuggestingParser``'s arguments. An option that takes a list
    (``nargs``: ``--batch-sizes 1 16``, ``--sentences A B``), given twice with two lists, is a usage error naming both
    (``_note_given``): the second looks like more of the first, which argparse drops without a word (was:
    ``bench_inference.py --batch-sizes 1 16 --batch-sizes 64`` timed 64 alone). An option of one value given twice:
    the last counts, as in most tools (an alias's or a script's option overridden), but for one added with
    ``action="once"``, where a second value looks like one more (``elmo demo --word bank --word river``: was 'river'
    compared alone). The same value twice is taken."""

    always = False  # whether one value given twice is refused too (action="once")

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option: str | None = None) -> None:
        if option is not None and (self.always or self.nargs not in (None, "?")):  # an option, not a positional
            _note_given(parser, self.dest, option, values)
        super().__call__(parser, namespace, values, option)


class _Once(_StoreOnce):
    """``action="once"``: an option whose one value given twice is refused (``_StoreOnce``)."""

    always = True


class SuggestingParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose refusal of a value outside an argument's choices (a sub-command,
    ``--layers``, ``--dtype``) names the closest choice: ``invalid choice: 'embd' (choose from ...)
    (did you mean embed?)``; an option that takes a list, or one added with ``action="once"``, given twice with two
    values is refused (``_StoreOnce``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)
        self.register("action", "once", _Once)
        self._given: dict[str, Any] = {}  # dest: the value an option gave it in this parse (_StoreOnce)

    def _parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        """argparse's, each parse noting anew what its options gave (``_note_given``): the one place every parse
        passes, ``parse_known_intermixed_args``'s two passes too, on every Python."""
        self._given = {}
        return super()._parse_known_args(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        super().error(one_line(message))

    def _print_message(self, message: str, file: Any = None) -> None:
        """argparse's, less its silence on a failed write (``--help > /dev/full``, unbuffered): an ``OSError``
        naming the stream, which ``hf_elmo_cli.main`` says in one line."""
        stream = sys.stderr if file is None else file
        try:
            if message:
                stream.write(message)
        except OSError as err:
            raise OSError(err.errno, err.strerror, "stdout" if stream is sys.stdout else "stderr") from None

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as err:
            if action.choices is None or not isinstance(value, str) or "meant" in str(err):  # 3.14's suggestion
                raise
            said = err.message.replace(repr(value), quoted(value), 1)  # a long value cut short
            raise argparse.ArgumentError(action, f"{said}{close_match(value, action.choices)}") from None


class _MissingRequired(Exception):
    """A pass of ``parse_known_intermixed_args`` found a required argument missing (``CommandParser``)."""


#: How argparse says a required argument, or a required mutually exclusive group, is missing.
_REQUIRED = "the following arguments are required: "
#: A word of one dash and then no dash: no option of elmo (``--NAME``, but ``-h``).
_SINGLE_DASH = re.compile(r"-[^-]")
_REQUIRED_GROUP = re.compile(r"one of the arguments (.*) is required")


#: The most unrecognized arguments that a usage error lists (``CommandParser``): a glob that the shell expanded into
#: thousands of files is not said back whole.
SHOWN_EXTRAS = 5


class CommandParser(SuggestingParser):
    """An ``ArgumentParser`` that takes options between positional arguments (``elmo perplexity MODEL --json
    FILE``: plain argparse gives an optional positional only the arguments before the first option).

    ``speaks()`` says whether this process says the command's errors: its usage errors here, its
    refusals in ``hf_elmo_cli.main`` (``args.speaks``). It is False in a process that leaves them
    to another, which refuses alike: a rank other than 0 of ``elmo pretrain`` under torchrun.
    """

    def __init__(self, *args: Any, speaks: Callable[[], bool] = lambda: True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.speaks = speaks
        self.set_defaults(speaks=speaks)
        # A word that starts with a dash and a digit is an option's value, as newer Pythons' argparse
        # reads it (older ones: only a plain negative number, so '--lr -1e-3' and '--shard -1/2' were
        # 'expected one argument', not what is wrong with the value). No option of elmo looks like that.
        self._negative_number_matcher = re.compile(r"-\.?[0-9]")
        self._intermixing = False
        self._words: list[str] | None = None  # the command line's words, for a refusal's hint

    def error(self, message: str) -> NoReturn:
        if self._intermixing and (message.startswith(_REQUIRED) or _REQUIRED_GROUP.fullmatch(message)):
            raise _MissingRequired(message)  # said with the other pass's, by parse_known_args
        if not self.speaks():  # the same command line is refused, in these words, by the process that speaks
            self.exit(2)
        super().error(message + self._dash_path_hint())

    def _dash_path_hint(self) -> str:
        """For a refusal of the command line that holds a word of one dash no option of elmo is (each is ``--NAME``,
        but ``-h``), e.g. the path ``-out.hdf5``: how to give a path that starts with a dash (was: only 'the
        following arguments are required: OUTPUT', the path read as an option and not named)."""
        words = [] if self._words is None else self._words
        word = next((w for w in words if _SINGLE_DASH.match(w) and not self._negative_number_matcher.match(w)), None)
        if word is None or word == "-h":
            return ""
        return f"; {quoted(word)} was read as an option: give a path that starts with '-' as ./{word}, or after --"

    def parse_known_args(  # type: ignore[override]  # typeshed's overloads; this one passes both on
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._intermixing:  # parse_known_intermixed_args's own passes
            return super().parse_known_args(args, namespace)
        self._words = list(sys.argv[1:] if args is None else args)
        if "--" in (sys.argv[1:] if args is None else args):
            # '--' before arguments that start with '-', which parse_known_intermixed_args's first pass
            # drops before Python 3.12.8 (the second then reads them as options)
            parsed, extras = super().parse_known_args(args, namespace)
        else:
            parsed, extras = self._parse_intermixed(args, namespace)
        if extras:  # refused here, under this command's usage (was: elmo's, with no hint)
            options = [word.split("=")[0] for word in extras if word.startswith("-")]
            hint = self._closest_option(options[0]) if options else self._model_first_hint(parsed, extras)
            listed = _messages.some_of(extras, SHOWN_EXTRAS, separator=" ")  # a shell's glob: not all of it
            self.error(f"unrecognized arguments: {listed}{hint}")
        return parsed, extras

    def _closest_option(self, option: str) -> str:
        """`` (did you mean X?)`` for the option closest to a mistyped one (``close_match``), a hidden one named as
        the option it stands for (``instead``: an old name's new one, ``--batch-size``'s ``--tokens-per-batch``):
        ``--batchsize`` gives ``--tokens-per-batch`` (was: ``--batch-size``, which the command refuses)."""
        actions = self._option_string_actions
        return close_match(option, actions, lambda match: getattr(actions[match], "instead", match))

    def _model_first_hint(self, parsed: argparse.Namespace, extras: list[str]) -> str:
        """For a command that takes its model with ``--model`` only, given one first as an argument (``elmo embed
        MODEL INPUT OUTPUT``, ``elmo demo MODEL``, as ``elmo perplexity MODEL FILE`` and ``export MODEL OUTPUT_DIR``
        take it): where the model goes (was: only 'unrecognized arguments: OUTPUT'); "" when the first argument is no
        model (a shipped model's name, or a folder)."""
        positional = self._get_positional_actions()
        if "--model" not in self._option_string_actions or any(action.dest == "model" for action in positional):
            return ""  # no --model, or a MODEL argument too (perplexity, export)
        first = ([getattr(parsed, action.dest, None) for action in positional] + extras)[0]
        if not isinstance(first, str):
            return ""
        if not first.startswith(hf_elmo_module("pretrained").SHIPPED_PREFIX) and not Path(first).is_dir():
            return ""
        return f" ({self.prog} takes no model argument: give it with --model, {self.prog} ... --model {first})"

    def _parse_intermixed(
        self, args: Sequence[str] | None, namespace: argparse.Namespace | None
    ) -> tuple[argparse.Namespace, list[str]]:
        """``parse_known_intermixed_args``, whose missing required arguments are all said in one usage error:
        argparse stops at the first it finds, a required group (``elmo pretrain``'s --epochs or --max-tokens:
        before Python 3.12.8, whose first pass reads the options alone) or the required arguments (the
        positional ones from Python 3.12.8; a required option on every Python, in the first pass before it),
        and names the other only on the next try."""
        self._intermixing = True
        try:
            try:
                return super().parse_known_intermixed_args(args, namespace)
            except _MissingRequired as missing:
                found = str(missing)
            groups = [g for g in self._mutually_exclusive_groups if g.required]
            group: str | None = found
            positionals: str | None = found
            if _REQUIRED_GROUP.fullmatch(found):  # the positional arguments missing, with the groups let off
                positionals = self._missing_without(args, namespace, groups)
            else:  # a required group missing, with every required argument (not the groups) let off (none: no parse again)
                group = self._missing_without(args, namespace, self._actions) if groups else None
        finally:
            self._intermixing = False
        said = _REQUIRED_GROUP.fullmatch(group or "")
        if said is None or positionals is None or not positionals.startswith(_REQUIRED):
            self.error(found)
        self.error(f"{positionals} and one of {said[1]}")

    def _missing_without(
        self, args: Sequence[str] | None, namespace: argparse.Namespace | None, relaxed: Sequence[Any]
    ) -> str | None:
        """What ``parse_known_intermixed_args`` finds missing (None: nothing) with ``relaxed`` (required
        actions or groups) not required."""
        required = [each for each in relaxed if each.required]
        for each in required:
            each.required = False
        try:
            super().parse_known_intermixed_args(args, argparse.Namespace(**vars(namespace or argparse.Namespace())))
        except _MissingRequired as missing:
            return str(missing)
        finally:
            for each in required:
                each.required = True
        return None


def option_type(dataclass: type, name: str) -> type:
    """The value type of a dataclass field, ``Optional[X]`` read as ``X``."""
    kind = typing.get_type_hints(dataclass)[name]
    if typing.get_origin(kind) in (typing.Union, types.UnionType):  # Optional[X] or X | None
        kind = next(arg for arg in typing.get_args(kind) if arg is not type(None))
    return kind


def add_field_option(group: Any, dataclass: type, name: str, flag: str, **overrides: Any) -> argparse.Action:
    """Add the option ``flag`` of ``dataclass``'s field ``name`` to ``group`` (a parser or an
    argument group), with ``dest`` ``name``.

    The field's ``metadata`` gives its ``help``, ``choices``, ``metavar`` and ``aliases`` (its old
    option names, deprecated: ``add_old_name``); its default is the option's; a ``bool`` field is a switch, a field
    without default a positional argument (no ``flag``). ``overrides`` replace any of these (e.g.
    another command's default).
    """
    settings_field = next(f for f in dataclasses.fields(dataclass) if f.name == name)
    metadata = settings_field.metadata
    keywords = {key: metadata[key] for key in ("help", "choices", "metavar") if key in metadata}
    kind = option_type(dataclass, name)
    if settings_field.default is dataclasses.MISSING:
        return group.add_argument(name, **{**keywords, **overrides})
    keywords["default"] = settings_field.default
    if kind is bool:
        keywords["action"] = "store_true"
    else:
        keywords["type"] = {int: integer, float: number}.get(kind, kind)
    keywords.update(overrides)
    default = keywords["default"]
    # 'is': a default of 0 or 0.0 (--seed, --warmup-steps) equals False, and is stated as any other
    if default is not None and default is not False and default != "" and "help" in keywords:
        keywords["help"] += " (default %(default)s)"
    action = group.add_argument(flag, dest=name, **keywords)
    for old in metadata.get("aliases", ()):
        add_old_name(group, old, action)
    return action

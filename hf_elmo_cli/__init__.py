"""The ``elmo`` command line: one sub-command per module of ``hf_elmo_cli.commands``.

This package is apart from ``hf_elmo`` because importing ``hf_elmo`` imports torch and
transformers (it registers the Auto classes): building the parser here imports neither, so
``elmo --help``, ``elmo COMMAND --help`` and ``elmo --version`` answer at once. Each command imports what it needs
when it runs; the defaults and choices its options state are read from ``hf_elmo``'s modules that import no torch,
without importing ``hf_elmo`` (``hf_elmo_module``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from importlib.metadata import PackageNotFoundError, version

from .commands._args import (
    BROKEN_PIPE,
    INTERRUPTED,
    CommandParser,
    SuggestingParser,
    close_match,
    hf_elmo_module,
    one_line,
    quiet_stdout,
    stdout_written_out,
)

#: Modules under ``hf_elmo_cli.commands``; each defines ``register(subparsers)`` that adds its
#: sub-command with ``set_defaults(run=callable(args) -> int)``, and may add
#: ``interrupted=callable(args) -> str | None``: what Ctrl-C left (said after "interrupted; "),
#: or None to say nothing (e.g. in a process other than rank 0 of a DDP run).
COMMANDS = ["convert", "pretrain", "perplexity", "demo", "embed", "export"]
#: ``elmo help [COMMAND]``: the help of elmo, or of the command (not listed among the commands, which it is not).
HELP = "help"


def distribution_version() -> str:
    """The installed hf-elmo distribution's version."""
    try:
        return version("hf-elmo")
    except PackageNotFoundError:
        return "unknown (hf-elmo is not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = SuggestingParser(
        prog="elmo",
        description="ELMo for Hugging Face and spaCy. Run `elmo COMMAND --help` for a command's arguments and "
        "options; `elmo demo` tries the model shipped with the package.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s (hf-elmo) {distribution_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=CommandParser)
    for name in COMMANDS:
        importlib.import_module(f"hf_elmo_cli.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``elmo`` command line; returns the exit status (``INTERRUPTED`` after Ctrl-C, with
    one line on stderr, no traceback: what every command writes is whole, renamed into place;
    ``BROKEN_PIPE``, silently, when the reader of its stdout left).
    Without arguments it prints the help, which lists the commands, on stderr, and returns 2; ``elmo help [COMMAND]``
    is ``elmo [COMMAND] --help``, as git's and pip's (was: "invalid choice: 'help'")."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [HELP]:
        argv = [*argv[1:2], "--help"]
    parser = build_parser()
    if not argv:  # a first try: what each command does (was: 'the following arguments are required: command')
        parser.print_help(sys.stderr)
        return 2
    _refuse_an_option_before_the_command(parser, argv[0])
    said = f"elmo {argv[0]}" if argv[0] in COMMANDS else "elmo"  # the command, as its every other line names it
    try:
        with stdout_written_out():  # --help, --version: written out here (was: lost, exit 0 or 120)
            args = parser.parse_args(argv)
    except KeyboardInterrupt:  # while reading the command line
        print(f"{said}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        quiet_stdout()
        return BROKEN_PIPE
    except OSError as err:  # stdout that cannot be written (SuggestingParser._print_message, stdout_written_out)
        print(f"{said}: error: {one_line(hf_elmo_module('messages').error_text(err))}", file=sys.stderr)
        return 2
    try:
        with stdout_written_out():
            status = int(args.run(args) or 0)
        return status
    except KeyboardInterrupt:
        what = _what_is_left(args)
        if what is not None:
            print(f"elmo {args.command}: interrupted{'; ' + what if what else ''}", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # the reader of stdout left (elmo ... | head): end quietly, as other tools do
        quiet_stdout()
        return BROKEN_PIPE
    # bad input, missing or unreadable files, a missing optional package (hf_elmo.training.distributed.REFUSALS):
    # one line, no traceback, from the one process that speaks (CommandParser)
    except ImportError as err:  # hf_elmo's own, perhaps (a transformers it cannot use): said without importing it again
        if args.speaks():
            print(f"elmo {args.command}: error: {_import_error_line(err)}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:
        if args.speaks():  # a refusal of its arguments may come before the command imports hf_elmo (torch)
            print(
                f"elmo {args.command}: error: {one_line(hf_elmo_module('messages').error_text(err))}", file=sys.stderr
            )
        return 2


def _import_error_line(error: ImportError) -> str:
    """``error`` on one line: the package's own (one line that says what to install) as it is; another package's
    whose message spans lines (numpy's 'Importing the numpy C-extensions failed', transformers' version checks) as
    its first line that says something (``hf_elmo.messages.first_line``), and what to do (was: its every line).
    ``hf_elmo.messages`` read without importing ``hf_elmo``, whose import may be what failed (``hf_elmo_module``); hf-elmo
    is not on PyPI: the reinstall is ``INSTALL_HF_ELMO``'s, not ``pip install hf-elmo``, which finds nothing of ours."""
    messages = hf_elmo_module("messages")
    line = str(messages.first_line(error))
    if "\n" not in str(error).strip():
        return line
    reinstall = messages.INSTALL_HF_ELMO.replace("pip install", "pip install --force-reinstall", 1)
    return f"{line} (a package that elmo needs cannot be imported: {reinstall})"


def _refuse_an_option_before_the_command(parser: argparse.ArgumentParser, first: str) -> None:
    """A usage error for a first word that is an option elmo itself does not take (``--verison``,
    ``--threads 2 embed ...``), naming the closest of its own or where a command's options go (was:
    argparse's 'the following arguments are required: COMMAND', or the option's value read as the
    command: "invalid choice: '2'")."""
    name = first.split("=")[0]
    own = parser._option_string_actions
    if name.startswith("-") and not any(option.startswith(name) for option in own):  # --vers: argparse's abbreviation
        hint = close_match(name, own) or (" (a command's options go after it: elmo COMMAND OPTIONS)")
        parser.error(f"unrecognized arguments: {first}{hint}")


def _what_is_left(args: argparse.Namespace) -> str | None:
    """The command's word on what Ctrl-C left (``interrupted``); "" when it has none, or when
    Ctrl-C came before its options were checked (``interrupted`` then fails as the run would have)."""
    interrupted = getattr(args, "interrupted", None)
    try:
        return interrupted(args) if interrupted else ""
    except (ValueError, OSError):
        return ""

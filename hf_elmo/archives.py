"""A ``.zip`` archive of the original files (the NLPL repository's; they may sit in a subfolder):
which folder inside it holds them (``original_member_folder``, which also refuses an archive of no
model; ``refuse_a_cut_short_zip`` one that a stopped download left without its end) and copying
them out into a folder (``extract_original_files``), each member checked against a zip bomb first
(``_refuse_a_bomb``). The resolver (``hf_elmo.loading``) extracts an archive's files into a
temporary folder where they are read.
"""

from __future__ import annotations

import errno
import zipfile
import zlib
from pathlib import Path

from .convert import MAX_INFLATION, inflates_too_much
from .elmo_weights import InvalidModelError
from .fileio import ensure_free_space, oserror_in_one_line
from .messages import error_reason
from .original_files import is_options_name, is_weights_name, options_name

#: How a zip archive starts: its first member's local header.
_ZIP_START = b"PK\x03\x04"


def refuse_a_cut_short_zip(path: Path) -> None:
    """Raise ``InvalidModelError`` when ``path``, which ``zipfile`` does not read as an archive,
    starts as one: its end, the list of its members, is missing, as a download that stopped leaves it."""
    with open(path, "rb") as handle:
        start = handle.read(len(_ZIP_START))
    if start == _ZIP_START:
        raise InvalidModelError(
            f"{path} is a zip archive cut short (it lacks its end, the list of its members: a download that "
            "stopped?); download it again"
        )


def original_member_folder(archive: Path) -> str:
    """The folder inside ``archive`` that holds the options file ("" for the top level)."""
    try:
        with zipfile.ZipFile(archive) as handle:
            names = [n for n in handle.namelist() if not n.endswith("/")]
    except (zipfile.BadZipFile, OSError) as err:
        raise InvalidModelError(f"{archive} is not a readable zip archive ({error_reason(err)})") from None
    folders = sorted({n[: n.rfind("/") + 1] for n in names if is_options_name(n[n.rfind("/") + 1 :])})
    if len(folders) != 1 or not any(n.startswith(folders[0]) and is_weights_name(n[len(folders[0]) :]) for n in names):
        raise InvalidModelError(
            f"{archive} does not hold one options.json with a weights .hdf5 beside it (found options files in "
            f"{[f or '.' for f in folders]}); it is not an archive of the original ELMo files"
        )
    inside = [n[len(folders[0]) :] for n in names if n.startswith(folders[0])]
    options_name([n for n in inside if "/" not in n], f"{archive} ({folders[0] or 'at its top'})")
    return folders[0]


#: What to do when the archive's files do not fit on the disk of the temporary folder.
_NO_ROOM = (
    "free some space and load it again, or set TMPDIR to a folder on a disk with room, or extract the archive "
    "elsewhere and give its folder"
)


def extract_original_files(archive: Path, into: Path, weights: bool) -> Path:
    """Copy the archive's options files (``options.json``, AllenNLP's ``NAME_options.json``) and
    (``weights``) the ``.hdf5`` files beside them that may be the biLM's weights (``is_weights_name``:
    not its softmax or embeddings dumps) into ``into`` (flat, under their base names: no member path
    ever leaves ``into``), where ``original_options_file`` picks the options file. Before any is
    written, each is checked (``_refuse_a_bomb``) and their declared sizes must fit on the disk of
    the temporary folder (``ensure_free_space``: an ``OSError`` (ENOSPC) naming it and TMPDIR); a
    disk that fills anyway (another process) is the same one line. A member that cannot be extracted
    leaves none of the files in ``into``."""
    prefix = original_member_folder(archive)
    with zipfile.ZipFile(archive) as handle:
        members = []
        for member in handle.namelist():
            rest = member[len(prefix) :]
            wanted = is_options_name(rest) or (weights and is_weights_name(rest))
            if member.startswith(prefix) and "/" not in rest and wanted:
                _refuse_a_bomb(archive, handle.getinfo(member))
                members.append(member)
        what = f"extracting {archive}"
        total = sum(handle.getinfo(member).file_size for member in members)
        ensure_free_space(into.parent, total, f"{what} into a temporary folder", _NO_ROOM)
        written: list[Path] = []
        for member in members:
            written.append(into / member[len(prefix) :])
            try:
                with handle.open(member) as source, open(written[-1], "wb") as target:
                    while block := source.read(1 << 20):
                        target.write(block)
            except BaseException as err:
                for path in written:
                    path.unlink(missing_ok=True)
                if isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise oserror_in_one_line(
                        err.errno,
                        f"no space left on the disk of {into.parent} for {what}: its member {member} is not written "
                        f"in full; {_NO_ROOM}",
                    ) from None
                if isinstance(err, (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError)):
                    # a bad CRC, a truncated or corrupt stream, a password (RuntimeError), another compression
                    raise InvalidModelError(
                        f"{archive}: its member {member} cannot be extracted ({err}); re-download the archive, or "
                        "extract it with another tool and give the folder"
                    ) from None
                raise
    return into


def _refuse_a_bomb(archive: Path, member: zipfile.ZipInfo) -> None:
    """Refuse, before it is extracted, a member that inflates more than ``MAX_INFLATION`` times (a
    zip bomb: gigabytes written to the temporary folder from a small archive), naming the archive
    and member. The size it declares is the most zipfile extracts."""
    if inflates_too_much(member.file_size, member.compress_size):
        raise InvalidModelError(
            f"{archive}: its member {member.filename} inflates to {member.file_size:,} bytes from "
            f"{member.compress_size:,} ({member.file_size // max(member.compress_size, 1):,}x), more than any ELMo "
            f"file compresses ({MAX_INFLATION}x): a zip bomb? it is not extracted; get the model from where it was "
            "published"
        )

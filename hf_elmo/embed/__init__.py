"""Bulk embedding with the biLM (``elmo embed``): sentences in, one array per sentence out.

``embed_sentences`` streams arrays for tokenised sentences; ``embed_file`` writes a text file's
vectors to HDF5, resumably; ``open_embeddings`` reads them back. What a run writes and promises
is told once, for users, in README.md, section "Bulk embedding (``elmo embed``)".

- ``sentences``: ``embed_sentences``, sentences to arrays in memory, in length-sorted batches.
- ``scan``: the input file's validation pass (``scan_input``) and raw-text check (``unsplit_tokens``).
- ``shards``: ``Shard``, the lines a process embeds and its file's name; the shard index.
- ``run``: ``embed_file``, the resumable run (partial folder, ``run.json``, parts, merge); its
  docstring says how a run keeps the README's promises.
- ``output``: what an output file records, and reading it back (``open_embeddings``).

Import from here: the names below are the public API, wherever they live.
"""

from .output import SENTENCE_TO_INDEX, SETTINGS_ATTRIBUTE, Embeddings, open_embeddings
from .run import RUN_FILE, EmbedResult, check_output, embed_file, finished_chunks, model_fingerprint, output_is_complete
from .scan import (
    REPORTED_BAD_LINES,
    SPLIT_SAMPLE_CHARS,
    SPLIT_SAMPLE_LINES,
    UNSPLIT_SHARE,
    InputScan,
    UnsplitTokens,
    scan_input,
    unsplit_tokens,
)
from .sentences import (
    DEFAULT_BATCH_TOKENS,
    LAYERS,
    LOOKAHEAD_BATCHES,
    POOLS,
    TOKENIZER_LIMIT,
    Forward,
    TokenizerLimit,
    embed_sentences,
    model_token_limit,
)
from .shards import DEFAULT_CHUNK_LINES, INDEX_FORMAT, MAX_SHARDS, SHARD_FORM, Shard, run_shard, shard_index_file

__all__ = [
    "DEFAULT_BATCH_TOKENS",
    "DEFAULT_CHUNK_LINES",
    "INDEX_FORMAT",
    "LAYERS",
    "LOOKAHEAD_BATCHES",
    "MAX_SHARDS",
    "POOLS",
    "REPORTED_BAD_LINES",
    "RUN_FILE",
    "SENTENCE_TO_INDEX",
    "SETTINGS_ATTRIBUTE",
    "SHARD_FORM",
    "SPLIT_SAMPLE_CHARS",
    "SPLIT_SAMPLE_LINES",
    "TOKENIZER_LIMIT",
    "UNSPLIT_SHARE",
    "EmbedResult",
    "Embeddings",
    "Forward",
    "InputScan",
    "Shard",
    "TokenizerLimit",
    "UnsplitTokens",
    "check_output",
    "embed_file",
    "embed_sentences",
    "finished_chunks",
    "model_fingerprint",
    "model_token_limit",
    "open_embeddings",
    "output_is_complete",
    "run_shard",
    "scan_input",
    "shard_index_file",
    "unsplit_tokens",
]

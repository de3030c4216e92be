"""The settings of ``elmo embed`` that its ``--help`` states (what a line stores and how it is pooled, the batch and
chunk sizes), the library's one home for them (``hf_elmo.embed``): the standard library only (none of it imported), so
that the command line reads them without importing ``hf_elmo`` (torch: ``hf_elmo_cli.commands._args.hf_elmo_module``)."""

#: What is stored per sentence: every layer, the top one, or their mean.
LAYERS = ("all", "top", "average")
#: How a sentence's token vectors are pooled into one vector: not at all, or their mean.
POOLS = (None, "mean")
#: Padded tokens per batch (a longer sentence runs alone).
DEFAULT_BATCH_TOKENS = 4096
#: Consecutive lines of a shard in one chunk (``Shard.chunk_of``), the unit that a run resumes from.
DEFAULT_CHUNK_LINES = 10_000

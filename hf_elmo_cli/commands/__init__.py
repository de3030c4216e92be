"""Sub-commands of the ``elmo`` command line (each imports torch and hf_elmo only when it runs)."""

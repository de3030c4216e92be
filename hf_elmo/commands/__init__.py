"""Sub-commands of the ``elmo`` command line."""

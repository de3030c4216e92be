"""spaCy pipeline component and Thinc layers for ELMo (filled by the spaCy issue)."""

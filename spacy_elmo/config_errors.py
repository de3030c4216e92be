"""Bad settings in a spaCy config, refused as spaCy refuses its own: a ``ConfigValidationError``
(a ``ValueError``) that ``spacy train`` and ``spacy.load`` print as one block naming the setting,
not a traceback from deep in training."""

from thinc.api import ConfigValidationError


def check_setting(valid: bool, function: str, setting: str, message: str) -> None:
    """Raise ``ConfigValidationError`` for ``function``'s ``setting`` unless ``valid``."""
    if not valid:
        raise ConfigValidationError(
            title=f"Invalid settings of {function}", errors=[{"loc": [setting], "msg": message}], show_config=False
        )

"""The model's parts (``elmo_layers``), its input checks (``elmo_inputs``) and its weights' handling
(``elmo_weights``) moved out of ``modeling_elmo``; every public name it defined before is still
importable from it, as the very object of its new home."""

from __future__ import annotations

import hf_elmo.modeling_elmo as modeling_elmo
from hf_elmo import elmo_inputs, elmo_layers, elmo_weights

#: The public top-level names ``hf_elmo/modeling_elmo.py`` defined before the split.
BEFORE_THE_SPLIT = [
    "InvalidModelError", "STORAGE_DTYPES", "BILM_PARTS", "WARM_STATE", "WORD_IDS_MODEL", "check_reads_char_ids",
    "check_config_reads_char_ids", "model_name", "check_no_attention", "ElmoModelOutput", "mean_pool",
    "weights_never_loaded", "said_if_never_loaded", "takes_only_its_arguments", "CheckpointedParts", "ElmoHighway",
    "ElmoCharCNN", "runs_as_built", "check_runs_as_built", "ElmoLstmProjectionLayer", "ElmoBiLm", "ElmoState",
    "ElmoPreTrainedModel", "stored_in", "weights_file", "check_loaded_weights", "not_float_weight",
    "check_finite_weights", "require_package_loader", "INPUT_ID_DTYPES", "check_inputs", "ElmoModel",
]  # fmt: skip


def test_every_public_name_modeling_elmo_had_is_still_importable_from_it():
    assert [name for name in BEFORE_THE_SPLIT if not hasattr(modeling_elmo, name)] == []
    assert set(BEFORE_THE_SPLIT) <= set(modeling_elmo.__all__)
    assert all(hasattr(modeling_elmo, name) for name in modeling_elmo.__all__)


def test_a_moved_name_is_the_object_of_its_new_home():
    for module in (elmo_inputs, elmo_layers, elmo_weights):
        for name in set(BEFORE_THE_SPLIT) & set(vars(module)):
            assert getattr(modeling_elmo, name) is getattr(module, name), f"{module.__name__}.{name}"

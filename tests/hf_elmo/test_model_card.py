"""The model card's provenance table (hf_elmo.model_card)."""

from __future__ import annotations

from hf_elmo.model_card import write_model_card


def test_a_provenance_value_with_a_pipe_or_a_line_break_stays_one_table_cell(tmp_path):
    provenance = {"converted from": "opt|x.json (sha256 ab12)", "notes": "two\nlines"}
    card = write_model_card(tmp_path, "t", "d", provenance).read_text()
    rows = [line for line in card.splitlines() if line.startswith("| ") and "what" not in line]
    assert rows[:2] == ["| converted from | opt\\|x.json (sha256 ab12) |", "| notes | two lines |"]

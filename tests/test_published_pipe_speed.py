"""The ELMo pipelines' ``nlp.pipe`` speed that README.md and BENCHMARKS.md state in words, read again from
the spaCy tables they summarise (was: "2,000-3,300 words/s", while the table's SST-2 seeds 0 and 1 gave
1,684 and 1,723)."""

from __future__ import annotations

import re
import statistics

from tests.test_published_speed_ratios import BENCHMARKS, README, table_after


def elmo_pipe_speeds(heading: str) -> list[int]:
    """The ``nlp.pipe words/s`` cells of the ELMo rows of the spaCy table after ``heading``."""
    return [int(row[-1].replace(",", "")) for row in table_after(heading) if row[1] == "ELMo"]


def test_the_shipped_models_pipe_speed_in_words_is_its_tables_span_against_the_earlier_models_mean():
    shipped = elmo_pipe_speeds("### The shipped model `hf-elmo:elmo-2x1024-en` (version 0.6.0")
    earlier = elmo_pipe_speeds("### Version 0.5.0's model `elmo-2x256-en`")
    assert len(shipped) == len(earlier) == 8
    said = (
        f"`nlp.pipe` runs at {round(min(shipped), -2):,}-{round(max(shipped), -2):,} words/s on one thread "
        f"against about {round(statistics.mean(earlier), -3):,.0f}"
    )
    assert said in README
    assert said in " ".join(BENCHMARKS.split())
    assert not re.search(r"runs at [\d,]+-[\d,]+ words/s on one thread", README.replace(said, ""))

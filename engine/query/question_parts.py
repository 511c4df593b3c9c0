"""A question that asks two things at once, split into its asks.

"How long does the supply agreement run, and what happens if the parties cannot agree the
Phase 3 agreement?" is one vector, and it lies between the clauses that answer its two halves:
the term clause and the dispute clause are each nearer to one half than to the whole. Over the
dev multi-hop questions that ask two things (69 of 144), a clause holding evidence was among the
10 clauses of its contract nearest to the whole question for 53% of the evidence, and nearest to
one of its parts for 72% (`bench/train_ranker.py` then measures what the ranker makes of it).

The split is by syntax alone: "and", "or" or "but" (after a comma or not) followed by a word that
opens a question or a condition. No topic's words are involved, so it holds for any wording.
"""

from __future__ import annotations

import re

_OPENERS = (
    "what", "how", "which", "when", "who", "whom", "whose", "where", "why", "does", "do", "is", "are", "can", "could",
    "must", "may", "will", "would", "should", "has", "have", "under", "for", "if", "in",
)
_SPLIT = re.compile(rf",?\s+(?:and|or|but)\s+(?=(?:{'|'.join(_OPENERS)})\b)", re.IGNORECASE)
MIN_PART_WORDS = 2  # "and why?" alone says nothing to search by


def question_parts(question: str) -> list[str]:
    """The question's separate asks, or [] when it asks one thing."""
    parts = [part.strip(" ,;?") for part in _SPLIT.split(question)]
    parts = [part for part in parts if len(part.split()) >= MIN_PART_WORDS]
    return parts if len(parts) > 1 else []

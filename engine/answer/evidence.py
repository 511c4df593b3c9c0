"""The retrieved passages, cut into sentences and scored against the question.

Computed once per question and read by both the extractive answerer (which sentences to
quote) and the abstain decision (whether anything in scope answers at all).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from engine.fields.doctype import NON_DISCLOSURE
from engine.fields.presence import NDA_PREFIX, contract_sentences, presence_model
from engine.store.graphcache import DocGraph
from engine.answer.question_words import QuestionWords
from engine.settings import AnswerSettings
from engine.text.matching import sentence_spans, stems
from models.clause import Clause
from models.retrieval import Passage, Retrieval


#: how close in meaning each text is to a question (cosine), one value per text
Likeness = Callable[[str, list[str]], np.ndarray]


@dataclass
class Sentence:
    passage: Passage
    rank: int  # of the passage, 0-based
    clause: Clause
    start: int  # offsets within clause.text
    end: int
    coverage: float  # share of the question's word weight in the sentence (and heading)
    score: float

    @property
    def text(self) -> str:
        return self.clause.text[self.start : self.end]


@dataclass
class Evidence:
    retrieval: Retrieval
    graphs: dict[str, DocGraph]
    words: QuestionWords
    settings: AnswerSettings  # the answer's settings: what read the evidence, and what answers from it
    sentences: list[Sentence] = field(default_factory=list)
    meaning: Likeness | None = None  # how close a sentence's meaning is to the question's; None: not measured (0)

    @classmethod
    def gather(cls, retrieval: Retrieval, graphs: list[DocGraph], answer_settings: AnswerSettings, meaning: Likeness | None = None) -> Evidence:
        settings = answer_settings.evidence
        by_doc = {g.doc_id: g for g in graphs}
        evidence = cls(retrieval, by_doc, QuestionWords.of(retrieval.plan, graphs, settings.expansion_weight), answer_settings, meaning=meaning)
        top = max((p.score for p in retrieval.passages), default=1.0) or 1.0
        for rank, passage in enumerate(retrieval.ranked_passages()):
            clause = by_doc[passage.doc_id].by_id.get(passage.clause_id)
            if clause is None:
                continue
            heading = evidence.words.coverage(stems(clause.heading)) if clause.heading else 0.0
            offset = passage.char_start - clause.char_start
            for start, end in sentence_spans(clause.text, offset, offset + len(passage.text)):
                text = clause.text[start:end]
                if len(text.split()) < settings.min_words:
                    continue
                coverage = min(1.0, evidence.words.coverage(stems(text)) + settings.heading_share * heading)
                prior = passage.score / top / (1 + 0.15 * rank)
                score = (1 - settings.rank_share) * coverage + settings.rank_share * prior
                evidence.sentences.append(Sentence(passage, rank, clause, start, end, coverage, score))
        return evidence

    def clause(self, doc_id: str, clause_id: str) -> Clause | None:
        graph = self.graphs.get(doc_id)
        return graph.by_id.get(clause_id) if graph else None

    @cached_property
    def own_words(self) -> QuestionWords:
        """The question's own words, without the synonyms and category words the plan added."""
        return self.words.own(self.retrieval.plan)

    @cached_property
    def scope_stems(self) -> set[str]:
        return {key for graph in self.graphs.values() for key in graph.stem_frequency}

    def category_score(self, sentence: Sentence, category: str) -> float | None:
        """The presence classifier's probability that `sentence` (one of `self.sentences`) is of
        `category`; None for a category it has no model of."""
        model = presence_model()
        if category not in model.categories:
            return None
        return float(self._presence[self._index[id(sentence)], model.categories.index(category)])

    def best_category_score(self, sentence: Sentence) -> float:
        """The presence classifier's highest probability for `sentence` over all categories: an
        operative sentence of some kind rather than a heading, a list item or boilerplate."""
        row = self._presence[self._index[id(sentence)]]
        return float(row.max()) if row.size else 0.0

    def likeness(self, texts: list[str]) -> np.ndarray:
        """How close in meaning each text is to the question (zeros when nothing measures it)."""
        if self.meaning is None or not texts:
            return np.zeros(len(texts))
        return self.meaning(self.retrieval.plan.question, texts)

    def is_of_category(self, sentence: Sentence, category: str) -> bool:
        """Whether the presence classifier puts `sentence` in `category` (its own threshold)."""
        return self.reaches_threshold(category, self.category_score(sentence, category))

    @property
    def of_ndas(self) -> bool:
        """Whether every contract in scope is an NDA: the kind of contract an NDA's terms were
        learnt from, and the abstain decision's NDA threshold chosen on."""
        return bool(self.graphs) and all(g.contract_type == NON_DISCLOSURE for g in self.graphs.values())

    def presence_flag(self, category: str) -> float:
        """Whether a contract in scope has `category` by its presence flag: its best sentence
        anywhere, not only among the passages retrieval put on top, reaches the category's
        threshold. 1 or 0; 0.5 when no flag can say: a category the presence model does not know
        (the governing law), or an NDA's term asked of a contract that is no NDA (those columns
        were learnt from NDAs alone). What the top passages say depends on the search; the flag
        does not."""
        model = presence_model()
        graphs = list(self.graphs.values())
        if category.startswith(NDA_PREFIX):
            graphs = [g for g in graphs if g.contract_type == NON_DISCLOSURE]
        if category not in model.categories or not graphs:
            return 0.5
        column = model.categories.index(category)
        stated = any(self.reaches_threshold(category, float(g.category_scores[:, column].max(initial=0.0))) for g in graphs)
        return 1.0 if stated else 0.0

    @staticmethod
    def reaches_threshold(category: str, score: float | None) -> bool:
        """Whether a presence score is one at which the classifier says a contract has `category`."""
        threshold = presence_model().thresholds.get(category)
        return score is not None and threshold is not None and score >= threshold

    @cached_property
    def _index(self) -> dict[int, int]:
        return {id(sentence): index for index, sentence in enumerate(self.sentences)}

    @cached_property
    def _presence(self):
        """Every sentence (rows) scored for every category (columns), once per question."""
        model = presence_model()
        scored = contract_sentences([(s.clause, s.start, s.end) for s in self.sentences])
        rows = {(id(sc.span[0]), sc.span[1]): i for i, sc in enumerate(scored)}
        probabilities = model.scores(scored)
        table = np.zeros((len(self.sentences), len(model.categories)))
        for index, sentence in enumerate(self.sentences):
            row = rows.get((id(sentence.clause), sentence.start))
            if row is not None:
                table[index] = probabilities[row]
        return table

    def best(self, passage: Passage) -> Sentence | None:
        """The best-scoring sentence of one passage."""
        return max((s for s in self.sentences if s.passage is passage), key=lambda s: s.score, default=None)

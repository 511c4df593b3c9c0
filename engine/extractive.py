"""The answer with no language model: the contract's own sentences, each cited.

It picks the sentences that best cover the question from the top clauses, then adds what
those sentences lean on: the definition of a term they use and the section they refer to,
when the graph walk brought those in. A one-line lead says where the answer was found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.citations import Citer
from engine.evidence import Evidence, Sentence
from engine.matching import contract_fact, sentence_spans, stems
from models.answer import Citation, Claim, section_name
from models.retrieval import Passage

MAX_MAIN = 3  # sentences that answer
MAX_SUPPORT = 3  # definitions and referenced sections they need
_KEEP_RATIO = 0.7  # a further main sentence must score this share of the best one
_MAX_QUOTE_CHARS = 700


@dataclass
class Extract:
    claims: list[Claim]
    citations: list[Citation]
    main: list[Sentence]
    support: list[tuple[Passage, str]]  # (passage, how it relates: "definition of “X”" or "Section 8.2, cited")


def extract(evidence: Evidence, citer: Citer) -> Extract:
    main = _main_sentences(evidence)
    result = Extract(claims=[], citations=[], main=[], support=[])
    fact = contract_fact(evidence.retrieval.plan.question)
    if fact is not None:
        for clause, start, end in _front_page(evidence, fact):
            citation = citer.cite_span(clause, start, end)
            if citation is not None:
                _add(result, citation, f"{_where(citation)}:")
    for sentence in main:
        citation = citer.cite_span(sentence.clause, sentence.start, _cap(sentence))
        if citation is not None:
            result.main.append(sentence)
            _add(result, citation, f"{_where(citation)}:")
    for passage, relation, start, end in _supporting(evidence, result.main):
        if len(result.support) >= MAX_SUPPORT:
            break
        clause = evidence.clause(passage.doc_id, passage.clause_id)
        citation = citer.cite_span(clause, start, end) if clause else None
        if citation is not None:
            result.support.append((passage, relation))
            _add(result, citation, f"{relation[0].upper()}{relation[1:]} ({_where(citation)}):")
    return result


def _add(result: Extract, citation: Citation, prefix: str) -> None:
    if any(c.clause_id == citation.clause_id and c.char_start == citation.char_start for c in result.citations):
        return
    citation = citation.model_copy(update={"number": len(result.citations) + 1})
    result.citations.append(citation)
    result.claims.append(Claim(text=f"{prefix} “{citation.quote}”", citations=[citation.number]))


def _where(citation: Citation) -> str:
    heading = f" ({citation.heading})" if citation.heading and citation.heading not in citation.ref else ""
    return f"{section_name(citation.ref)}{heading}, page {citation.page}"



def _cap(sentence: Sentence) -> int:
    """End of the quote: a run-on "sentence" (a whole list, a table) is cut at a word."""
    if sentence.end - sentence.start <= _MAX_QUOTE_CHARS:
        return sentence.end
    cut = sentence.clause.text.rfind(" ", sentence.start, sentence.start + _MAX_QUOTE_CHARS)
    return cut if cut > sentence.start else sentence.end


def _main_sentences(evidence: Evidence) -> list[Sentence]:
    """The best sentence of each top passage, best first, close runners-up kept."""
    best: dict[str, Sentence] = {}
    for sentence in evidence.sentences:
        if sentence.passage.why.kind == "graph":
            continue
        held = best.get(sentence.passage.clause_id)
        if held is None or sentence.score > held.score:
            best[sentence.passage.clause_id] = sentence
    ranked = sorted(best.values(), key=lambda s: -s.score)
    if not ranked:
        return []
    best = ranked[0]
    return [s for s in ranked[:MAX_MAIN] if s.score >= _KEEP_RATIO * best.score and s.coverage >= _KEEP_RATIO * best.coverage]


_DATE = re.compile(r"\b(?:19|20)\d\d\b|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\b", re.I)
_BETWEEN = re.compile(r"\b(?:between|among|by and between)\b", re.I)


def _front_page(evidence: Evidence, fact: str):
    """Where a contract states its title, parties or date: its first page's opening clauses."""
    for graph in list(evidence.graphs.values())[:MAX_MAIN]:
        opening = sorted((c for c in graph.clauses if c.page_start == 1), key=lambda c: c.order)[:3]
        for clause in opening:
            span = _front_span(clause.text, fact)
            if span is not None:
                yield clause, *span
                break


def _front_span(text: str, fact: str) -> tuple[int, int] | None:
    if fact == "title":  # the first line, and the next one too if the first is a word or two
        lines = [line for line in text.splitlines() if line.strip()][:2]
        end = text.find(lines[0]) + len(lines[0]) if lines else 0
        if lines and len(lines[0].split()) < 3 and len(lines) > 1:
            end = text.find(lines[1], end) + len(lines[1])
        return (0, end) if end else None
    wanted = _DATE if fact == "date" else _BETWEEN
    for start, end in sentence_spans(text):
        if wanted.search(text, start, end):
            return start, min(end, start + _MAX_QUOTE_CHARS)
    return None


def _supporting(evidence: Evidence, main: list[Sentence]):
    """Definitions of the terms the best sentence uses, and the sections it cites."""
    seen: set[str] = set()
    for sentence in main[:1]:
        for passage in evidence.retrieval.passages:
            why = passage.why
            if why.kind != "graph" or why.direction != "out" or passage.doc_id != sentence.passage.doc_id:
                continue
            if why.via_ref != sentence.clause.ref:
                continue
            clause = evidence.clause(passage.doc_id, passage.clause_id)
            if clause is None:
                continue
            if why.edge == "DEFINES":
                span = _definition_sentence(clause.text, why.label)
                relation = f"the definition of “{why.label}”"
            elif why.edge == "REFERENCES":
                span = _best_sentence(evidence, passage)
                relation = f"{why.label}, which it refers to"
            else:
                continue
            if span is not None and passage.clause_id not in seen:
                seen.add(passage.clause_id)
                yield passage, relation, *span


def _definition_sentence(text: str, term: str) -> tuple[int, int] | None:
    """The sentence that defines `term`: the one quoting it, else the first that uses it."""
    spans = [(a, b) for a, b in sentence_spans(text) if len(text[a:b].split()) >= 4]
    lowered = term.lower()
    quoted = re.compile(r"[\"“‘']" + re.escape(lowered) + r"[\"”’']")
    using = [(a, b) for a, b in spans if lowered in text[a:b].lower()]
    chosen = next((span for span in using if quoted.search(text[span[0] : span[1]].lower())), None) or (using or spans or [None])[0]
    if chosen is None:
        return None
    start, end = chosen
    return start, min(end, start + _MAX_QUOTE_CHARS)


def _best_sentence(evidence: Evidence, passage: Passage) -> tuple[int, int] | None:
    sentence = evidence.best(passage)
    if sentence is not None:
        return sentence.start, _cap(sentence)
    clause = evidence.clause(passage.doc_id, passage.clause_id)
    spans = sentence_spans(clause.text) if clause else []
    return spans[0] if spans else None


def looked_for(evidence: Evidence) -> str:
    """What the search looked for, in words, for an abstention."""
    plan = evidence.retrieval.plan
    parts = []
    if plan.topics:
        parts.append("clauses on " + ", ".join(t.value.replace("_", " ") for t in plan.topics))
    if plan.terms:
        parts.append("the defined terms " + ", ".join(f"“{t.term}”" for t in plan.terms))
    if plan.sections:
        parts.append(", ".join(s.text for s in plan.sections))
    words = [w for w in plan.keywords if stems(w) - evidence.scope_stems]
    if words:
        parts.append("the words " + ", ".join(f"“{w}”" for w in words[:6]) + " (in no clause in scope)")
    elif plan.keywords:
        parts.append("the words " + ", ".join(f"“{w}”" for w in plan.keywords[:6]))
    return "; ".join(parts) or "anything matching the question"

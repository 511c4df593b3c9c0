"""Scores of ../shared/bench/FORMAT.md, computed exactly as written there.

- A snippet is found within budget B when, after joining the normalised context texts in
  rank order and cutting at B characters, at least 80% of its word 5-grams occur in that
  text (a snippet shorter than 5 words must occur whole).
- Evidence recall@B: found snippets / all snippets, over answerable questions.
- Complete@B: share of answerable questions whose every snippet is found.
- Abstention: abstain recall on unanswerable questions, false-abstain rate on answerable ones.
- Citation validity: a citation's normalised quote occurs in the normalised text of its page
  (or that page and the next, for a quote across a page break).
- Citation page accuracy: share of answerable questions where some citation's page equals a
  gold snippet's page.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable

from pydantic import BaseModel, Field

from engine.text.normalise import normalise

BUDGETS = (4000, 8000)


class Evidence(BaseModel):
    text: str
    page: int | None = None
    page_end: int | None = None


class Question(BaseModel):
    """One line of a question file (FORMAT.md)."""

    id: str
    docs: list[str]
    question: str
    answerable: bool = True
    hops: int = 1
    type: str = "clause"
    category: str | None = None
    hypothesis: str | None = Field(default=None, description="the ContractNLI hypothesis a question asks about (bench/phrasings): nda-1 ...")
    style: str | None = Field(default=None, description="how the question is worded (bench/phrasings): cuad, plain, legal, ...")
    evidence: list[Evidence] = Field(default_factory=list)
    answer: str | None = None
    gold_docs: list[str] | None = Field(default=None, description="a question over many contracts: the ones a complete answer lists")
    target: str | None = Field(default=None, description="what such a question asks for: a CUAD category (bench/phrasings)")


class ContextPassage(BaseModel):
    doc: str
    page: int
    text: str


class Citation(BaseModel):
    doc: str
    page: int
    quote: str
    more: bool = False  # beyond FORMAT.md: the answer shows it folded, as more evidence rather than the answer


class Output(BaseModel):
    """One line of the harness's output (FORMAT.md)."""

    id: str
    abstained: bool = False
    answer: str | None = None
    context: list[ContextPassage] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    seconds: float = 0.0
    preset: str | None = Field(default=None, description="the settings preset that produced this line")
    settings_hash: str | None = Field(default=None, description="Settings.fingerprint() of the exact values")


def _grams(words: list[str], n: int = 5) -> list[str]:
    return [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)]


def snippet_found(snippet: str, context_text: str) -> bool:
    """FORMAT.md's test, on already normalised `context_text`: four fifths of the snippet's word
    5-grams, or the whole of a shorter snippet."""
    return snippet_share(snippet, context_text) >= 0.8


def snippet_share(snippet: str, context_text: str) -> float:
    """The share of a snippet's word 5-grams that `context_text` holds; a snippet of fewer than
    five words is one gram, held whole or not at all."""
    words = normalise(snippet).split()
    if not words:
        return 1.0
    grams = _grams(words) if len(words) >= 5 else [" ".join(words)]
    return sum(1 for gram in grams if gram in context_text) / len(grams)


def quoted(snippet: str, quotes: list[str]) -> bool:
    """Whether some quote quotes part of the snippet: a shared word 5-gram (or the whole of a
    short snippet or quote). Our measure, not FORMAT.md's: do the citations reach this evidence?"""
    words = normalise(snippet).split()
    grams = set(_grams(words)) if len(words) >= 5 else {" ".join(words)}
    for quote in quotes:
        normal = normalise(quote)
        if any(gram in normal for gram in grams) or (normal and normal in " ".join(words)):
            return True
    return False


def context_prefix(context: Iterable[ContextPassage], budget: int) -> str:
    joined = " ".join(normalise(passage.text) for passage in context)
    return joined[:budget]


class Scores(BaseModel):
    questions: int = 0
    answerable: int = 0
    recall: dict[int, float] = Field(default_factory=dict)
    complete: dict[int, float] = Field(default_factory=dict)
    abstain_recall: float | None = None
    false_abstain: float | None = None
    citation_validity: float | None = None
    citations_without_text_layer: int = 0  # quotes of pages read by OCR: a text-layer check cannot see them
    citation_page_accuracy: float | None = None
    citations_cover_all: float | None = None  # answerable questions whose every snippet some citation quotes
    first_quote_on_gold: float | None = None  # answered answerable questions whose first quote is on a gold span
    quotes_on_gold: float | None = None  # of their quotes that state the answer, the share on a gold span
    evidence_quotes_on_gold: float | None = None  # the same over every quote, more evidence included
    more_per_answer: float | None = None  # quotes folded as more evidence, per answer
    quotes_per_answer: float | None = None
    listing_f1: float | None = None  # questions over many contracts: F1 of the contracts cited against gold_docs
    p50_seconds: float | None = None
    p95_seconds: float | None = None


def score(
    questions: list[Question],
    outputs: dict[str, Output],
    page_text: Callable[[str, int], str | None] | None = None,
) -> Scores:
    """Score outputs against questions. `page_text(doc, page)` gives a page's text for the
    citation checks; without it those columns stay empty."""
    answerable = [q for q in questions if q.answerable and q.evidence]
    result = Scores(questions=len(questions), answerable=len(answerable))
    for budget in BUDGETS:
        found = total = complete = 0
        for question in answerable:
            output = outputs.get(question.id)
            text = context_prefix(output.context, budget) if output else ""
            hits = [snippet_found(e.text, text) for e in question.evidence]
            found += sum(hits)
            total += len(hits)
            complete += all(hits)
        result.recall[budget] = found / total if total else 0.0
        result.complete[budget] = complete / len(answerable) if answerable else 0.0
    _abstention(questions, outputs, result)
    _quotes_on_gold(questions, outputs, result)
    _listing(questions, outputs, result)
    if page_text is not None:
        _citations(questions, outputs, page_text, result)
    seconds = [o.seconds for o in outputs.values()]
    if seconds:
        result.p50_seconds = statistics.median(seconds)
        result.p95_seconds = _percentile(seconds, 95)
    return result


def _abstention(questions: list[Question], outputs: dict[str, Output], result: Scores) -> None:
    if not any(o.abstained or o.answer is not None or o.citations for o in outputs.values()):
        return  # retrieval only: abstention is not measured
    unanswerable = [q for q in questions if not q.answerable]
    answerable = [q for q in questions if q.answerable]
    if unanswerable:
        result.abstain_recall = sum(outputs[q.id].abstained for q in unanswerable if q.id in outputs) / len(unanswerable)
    if answerable:
        result.false_abstain = sum(outputs[q.id].abstained for q in answerable if q.id in outputs) / len(answerable)


def _quotes_on_gold(questions: list[Question], outputs: dict[str, Output], result: Scores) -> None:
    """Do the quotes answer, or only surround the answer? A quote is on a gold span when it
    shares a word 5-gram with it after FORMAT.md's normalisation (issue 16). The share counts
    the quotes that state the answer; `evidence_quotes_on_gold` counts the folded "more
    evidence" quotes too."""
    answered = [
        (q, outputs[q.id]) for q in questions
        if q.answerable and q.evidence and q.id in outputs and not outputs[q.id].abstained and outputs[q.id].citations
    ]
    if not answered:
        return
    first = on_gold = quotes = all_on_gold = all_quotes = 0
    for question, output in answered:
        hits = [(any(quoted(e.text, [c.quote]) for e in question.evidence), c.more) for c in output.citations]
        first += hits[0][0]
        on_gold += sum(hit for hit, more in hits if not more)
        quotes += sum(not more for _, more in hits)
        all_on_gold += sum(hit for hit, _ in hits)
        all_quotes += len(hits)
    result.first_quote_on_gold = first / len(answered)
    result.quotes_on_gold = on_gold / max(quotes, 1)
    result.quotes_per_answer = quotes / len(answered)
    result.evidence_quotes_on_gold = all_on_gold / all_quotes
    result.more_per_answer = (all_quotes - quotes) / len(answered)


def _listing(questions: list[Question], outputs: dict[str, Output], result: Scores) -> None:
    """For "which contracts..." questions: the contracts the answer cites against the gold list
    (F1 per question, averaged; an abstention lists none)."""
    listed = [q for q in questions if q.gold_docs is not None and q.id in outputs]
    if not listed:
        return
    scores = []
    for question in listed:
        output = outputs[question.id]
        found = set() if output.abstained else {c.doc for c in output.citations}
        gold = set(question.gold_docs)
        hits = len(found & gold)
        scores.append(1.0 if not found and not gold else 2 * hits / (len(found) + len(gold)))
    result.listing_f1 = sum(scores) / len(scores)


def _citations(questions, outputs, page_text, result: Scores) -> None:
    valid = total = 0
    page_hits = covered = 0
    answerable = [q for q in questions if q.answerable and q.evidence]
    for question in questions:
        output = outputs.get(question.id)
        if output is None:
            continue
        for citation in output.citations:
            total += 1
            quote = normalise(citation.quote)
            here = normalise(page_text(citation.doc, citation.page) or "")
            following = normalise(page_text(citation.doc, citation.page + 1) or "")
            valid += bool(quote) and (quote in here or quote in f"{here} {following}")
            result.citations_without_text_layer += not here.strip()
    if total:
        result.citation_validity = valid / total
    if any(outputs.get(q.id) and outputs[q.id].citations for q in answerable):
        for question in answerable:
            output = outputs.get(question.id)
            gold = {e.page for e in question.evidence if e.page}
            if output and any(c.page in gold for c in output.citations):
                page_hits += 1
            quotes = [c.quote for c in output.citations] if output else []
            covered += all(quoted(e.text, quotes) for e in question.evidence)
        result.citation_page_accuracy = page_hits / len(answerable)
        result.citations_cover_all = covered / len(answerable)


def _percentile(values: list[float], percent: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(percent / 100 * (len(ordered) - 1))))
    return ordered[index]


def breakdown(questions: list[Question], outputs: dict[str, Output], key: Callable[[Question], str]) -> dict[str, Scores]:
    """Scores per group (by type, by hops ...), recall and completeness only."""
    groups: dict[str, list[Question]] = defaultdict(list)
    for question in questions:
        groups[key(question)].append(question)
    return {name: score(group, {q.id: outputs[q.id] for q in group if q.id in outputs}) for name, group in sorted(groups.items())}


def by_type(questions: list[Question], outputs: dict[str, Output]) -> dict[str, Scores]:
    return breakdown(questions, outputs, lambda q: q.type)


def by_hops(questions: list[Question], outputs: dict[str, Output]) -> dict[str, Scores]:
    return breakdown(questions, outputs, lambda q: f"{q.hops} hop{'s' if q.hops != 1 else ''}")


def by_style(questions: list[Question], outputs: dict[str, Output]) -> dict[str, Scores]:
    """Scores per wording style, for question files that carry one (bench/phrasings)."""
    if not any(q.style for q in questions):
        return {}
    return breakdown(questions, outputs, lambda q: q.style or "unstyled")


def by_topic(questions: list[Question], outputs: dict[str, Output]) -> dict[str, Scores]:
    """Scores per CUAD category or ContractNLI hypothesis, for question files that carry one:
    a mean over styles can hide a topic that fails in every wording."""
    if not any(_topic(q) for q in questions):
        return {}
    return breakdown(questions, outputs, lambda q: _topic(q) or "none")


def _topic(question: Question) -> str | None:
    return question.category or question.hypothesis


def by_target(questions: list[Question], outputs: dict[str, Output]) -> dict[str, Scores]:
    """Scores per target of the questions over many contracts (governing law, a category)."""
    listed = [q for q in questions if q.gold_docs is not None]
    return breakdown(listed, outputs, lambda q: q.target or "unknown") if listed else {}


def format_groups(rows: dict[str, Scores], group: str = "style") -> str:
    """Recall, abstention and quoting per group of questions (wording style, topic), and the
    worst group of each."""

    def cell(value: float | None) -> str:
        return f"{value:.3f}" if value is not None else "-"

    columns = [
        ("recall@4k", lambda s: s.recall.get(4000) if s.answerable else None, min),
        ("false-abstain", lambda s: s.false_abstain, max),
        ("abstain-recall", lambda s: s.abstain_recall, min),
        ("first-on-gold", lambda s: s.first_quote_on_gold, min),
        ("quotes-on-gold", lambda s: s.quotes_on_gold, min),
        ("listing-F1", lambda s: s.listing_f1, min),
    ]
    width = max([14, *(len(name) for name in rows)])
    header = f"{'by ' + group:{width}} {'n':>6}" + "".join(f" {name:>14}" for name, _, _ in columns)
    lines = [header, "-" * len(header)]
    for name, s in rows.items():
        lines.append(f"{name:{width}} {s.questions:>6}" + "".join(f" {cell(get(s)):>14}" for _, get, _ in columns))
    worst = []
    for name, get, pick in columns:
        values = {row: get(s) for row, s in rows.items() if get(s) is not None}
        if values:
            name_of_worst = pick(values, key=values.get)
            worst.append(f"{name} {values[name_of_worst]:.3f} ({name_of_worst})")
    lines.append(f"worst {group}: " + ", ".join(worst))
    return "\n".join(lines)


def format_table(title: str, rows: dict[str, Scores]) -> str:
    """The score table the harness prints."""
    header = f"{title:28} {'n':>5} {'recall@4k':>10} {'recall@8k':>10} {'complete@4k':>12} {'complete@8k':>12}"
    lines = [header, "-" * len(header)]
    for name, s in rows.items():
        if not s.answerable:
            lines.append(f"{name:28} {s.questions:>5} {'(no answerable questions)':>46}")
            continue
        lines.append(
            f"{name:28} {s.answerable:>5} {s.recall[4000]:>10.3f} {s.recall[8000]:>10.3f} "
            f"{s.complete[4000]:>12.3f} {s.complete[8000]:>12.3f}"
        )
    return "\n".join(lines)
